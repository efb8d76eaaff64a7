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

	// Derived by Normalize from the text above and Cluster.TimeZone on
	// every build and load (docs/snapshot.md "Parsed once"; never written).
	//
	// Zone is the zone the text is read in: the configured TimeZone, else
	// the cluster's session time zone, else UTC; ZoneName names it as
	// given and ZoneSource says which ("configured", "session", or
	// "unknown": UTC assumed because neither gave a zone Go can read).
	Zone       *time.Location `json:"-"`
	ZoneName   string         `json:"-"`
	ZoneSource string         `json:"-"`
	// OffsetMs and UpdateMs are OffsetTimestamp and UpdateTime in Zone
	// (Unix ms); nil when empty or not datetime text.
	OffsetMs *int64 `json:"-"`
	UpdateMs *int64 `json:"-"`
	// OffsetRepeated: the offset's wall clock occurs twice in Zone (a
	// daylight-saving repeat), so the instant may be an hour earlier.
	OffsetRepeated bool `json:"-"`
}

// Zone sources of ExternalConsumer.ZoneSource.
const (
	ZoneConfigured = "configured"
	ZoneSession    = "session"
	ZoneUnknown    = "unknown"
)

// normalizeConsumers derives each external consumer's zone and instants.
func (s *Snapshot) normalizeConsumers() {
	for i := range s.ExternalConsumers {
		c := &s.ExternalConsumers[i]
		c.Zone, c.ZoneName, c.ZoneSource = time.UTC, c.TimeZone, ZoneUnknown
		switch {
		case c.TimeZone != "":
			if l, ok := ParseTimeZone(c.TimeZone); ok {
				c.Zone, c.ZoneSource = l, ZoneConfigured
			}
		case s.Cluster.TimeZone != "":
			c.ZoneName = s.Cluster.TimeZone
			if l, ok := ParseTimeZone(s.Cluster.TimeZone); ok {
				c.Zone, c.ZoneSource = l, ZoneSession
			}
		}
		c.OffsetMs, c.UpdateMs, c.OffsetRepeated = nil, nil, false
		if t, ok := ParseDatetimeText(c.OffsetTimestamp, c.Zone); ok && c.OffsetTimestamp != "" {
			v := t.UnixMilli()
			c.OffsetMs = &v
			c.OffsetRepeated = repeatedWallClock(t, c.Zone)
		}
		if t, ok := ParseDatetimeText(c.UpdateTime, c.Zone); ok && c.UpdateTime != "" {
			v := t.UnixMilli()
			c.UpdateMs = &v
		}
	}
}

// repeatedWallClock: the wall-clock text of t occurs twice in loc.
func repeatedWallClock(t time.Time, loc *time.Location) bool {
	const layout = "2006-01-02 15:04:05"
	text := t.In(loc).Format(layout)
	for _, d := range []time.Duration{-time.Hour, time.Hour, -30 * time.Minute, 30 * time.Minute} {
		if t.Add(d).In(loc).Format(layout) == text {
			return true
		}
	}
	return false
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
