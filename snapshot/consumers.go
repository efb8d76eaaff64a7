package snapshot

import (
	"strconv"
	"strings"
	"time"
)

// Increment types of an external consumer (the Flink Doris connector's
// source.binlog.increment-type, lower case as the config file spells them).
const (
	IncrementMinDelta   = "min_delta"
	IncrementDetail     = "detail"
	IncrementAppendOnly = "append_only"
)

// IncrementTypes lists the accepted increment types, in the order errors
// name them.
var IncrementTypes = []string{IncrementMinDelta, IncrementDetail, IncrementAppendOnly}

// ExternalConsumer is one reader of a table's changelog that keeps its own
// position outside Doris and publishes it to an offset table (the Flink
// Doris connector's source.binlog.offset-table / consumer-id: after each
// completed checkpoint its subtask 0 appends (consumer_id, offset_timestamp,
// update_time)). The declaration comes from the config file (consumers:);
// a live collection adds what it read. Unreadable reads are recorded
// (Error), never dropped, so check --snapshot judges them offline
// (docs/consumers.md).
type ExternalConsumer struct {
	// The declaration, as the config file gave it.
	Name          string `json:"name"`
	OffsetTable   string `json:"offset_table"`   // db.tbl the connector publishes to
	ConsumerID    string `json:"consumer_id"`    // source.binlog.consumer-id
	SourceTable   string `json:"source_table"`   // db.tbl whose changelog it reads
	IncrementType string `json:"increment_type"` // min_delta | detail | append_only
	// TimeZone is the zone the connector's session wrote offset_timestamp
	// and update_time in (configured); "" when not configured: the
	// cluster's session time zone (Cluster.TimeZone) is assumed.
	TimeZone string `json:"time_zone,omitempty"`
	// MaxPublishAgeSeconds is the configured staleness threshold of the
	// publisher (no new row for this long); 0 when not configured (the
	// command's default applies).
	MaxPublishAgeSeconds float64 `json:"max_publish_age_seconds,omitempty"`

	// What the live collection read.
	//
	// Query is the statement sent (SELECT consumer_id,
	// MAX(offset_timestamp), MAX(update_time) ... WHERE consumer_id = ...).
	Query string `json:"query,omitempty"`
	// Read is true when the statement answered (with or without a row).
	Read bool `json:"read"`
	// Found is true when the offset table has a row of ConsumerID.
	Found bool `json:"found,omitempty"`
	// OffsetTimestamp and UpdateTime are MAX(offset_timestamp) and
	// MAX(update_time) exactly as the server printed them: zone-less
	// datetime text in the connector's session zone, "" for NULL.
	OffsetTimestamp string `json:"offset_timestamp,omitempty"`
	UpdateTime      string `json:"update_time,omitempty"`
	// Error is why the offset table could not be read ("" when Read).
	Error string `json:"error,omitempty"`
}

// OffsetTableParts splits "db.tbl" (ParseName's rules: backquoted parts
// allowed).
func (c ExternalConsumer) OffsetTableParts() (db, table string, ok bool) {
	return splitQualified(c.OffsetTable)
}

// SourceTableParts splits the source table's "db.tbl".
func (c ExternalConsumer) SourceTableParts() (db, table string, ok bool) {
	return splitQualified(c.SourceTable)
}

func splitQualified(s string) (string, string, bool) {
	i := strings.IndexByte(s, '.')
	if i <= 0 || i == len(s)-1 || strings.Count(s, ".") != 1 {
		return "", "", false
	}
	return strings.Trim(s[:i], "`"), strings.Trim(s[i+1:], "`"), true
}

// ParseTimeZone reads a Doris time zone as the session variables give it
// (an IANA name, UTC or an offset such as +08:00); ok=false for anything
// else (SYSTEM must be resolved through @@system_time_zone first).
func ParseTimeZone(tz string) (*time.Location, bool) {
	tz = strings.TrimSpace(tz)
	switch strings.ToUpper(tz) {
	case "UTC", "GMT", "Z", "+00:00", "-00:00", "00:00":
		return time.UTC, true
	}
	if len(tz) == 6 && (tz[0] == '+' || tz[0] == '-') && tz[3] == ':' {
		h, err1 := strconv.Atoi(tz[1:3])
		m, err2 := strconv.Atoi(tz[4:6])
		if err1 == nil && err2 == nil && h <= 14 && m < 60 {
			off := h*3600 + m*60
			if tz[0] == '-' {
				off = -off
			}
			return time.FixedZone(tz, off), true
		}
		return nil, false
	}
	if strings.Contains(tz, "/") {
		if l, err := time.LoadLocation(tz); err == nil {
			return l, true
		}
	}
	return nil, false
}

// ParseDatetimeText reads Doris datetime text ("2006-01-02 15:04:05" with
// up to six fractional digits, or "2006-01-02T15:04:05") in loc.
func ParseDatetimeText(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
