package cmdutil

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The flag values `headroom` and `tso headroom` share, validated once
// (they used to check a TTL and a time each their own way).

// ParseTTL reads a --ttl: whole seconds ("172800") or a duration ("48h"),
// above zero (a TTL of 0 keeps nothing: issue 25) and small enough that the
// retention math's ttl·1000 ms does not overflow (doris.md §2).
func ParseTTL(flag, s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		d, derr := time.ParseDuration(strings.TrimSpace(s))
		if derr != nil {
			return 0, UsageErrorf("%s %q: want seconds or a duration like 48h", flag, s)
		}
		n = int64(d / time.Second)
	}
	if n <= 0 {
		return 0, UsageErrorf("%s %q: want a TTL above zero (seconds, or a duration like 48h)", flag, s)
	}
	if n > math.MaxInt64/1000 {
		return 0, UsageErrorf("%s %q: at most %d seconds", flag, s, int64(math.MaxInt64/1000))
	}
	return n, nil
}

// ParseTimeFlag reads a time flag: RFC 3339, or "YYYY-MM-DD HH:MM:SS[.fff]"
// in the zone tz (ParseTimeArg); "now" is this machine's clock when
// allowNow.
func ParseTimeFlag(flag, s, tz string, allowNow bool) (time.Time, error) {
	if allowNow && strings.EqualFold(strings.TrimSpace(s), "now") {
		return time.Now(), nil
	}
	t, err := ParseTimeArg(s, tz)
	if err != nil {
		return time.Time{}, UsageErrorf("%s: %v", flag, err)
	}
	return t, nil
}

// Cursor is a reader's position as typed: a TSO (or CONSUMPTION_STATUS
// text), or a timestamp in a zone — the generic form of an external
// reader's cursor (docs/consumers.md "Any reader with its own cursor").
type Cursor struct {
	Offset tso.Parsed
	// Time is the timestamp's instant (zero for a TSO), Zone the zone its
	// wall-clock text was read in.
	Time time.Time
	Zone string
	// Text is what to print: the input, and for a timestamp its UTC
	// instant beside the zone used.
	Text string
}

// ParseCursor reads --offset: a TSO or CONSUMPTION_STATUS text first, else
// a timestamp ("2026-11-29 08:59:48" in tz, or RFC 3339). A timestamp
// covers its whole millisecond (the last TSO of it is consumed): a reader
// that restarts after it needs the next millisecond's changes.
func ParseCursor(flag, s, tz string) (Cursor, error) {
	if p, err := tso.ParseOffset(s); err == nil {
		return Cursor{Offset: p, Text: s}, nil
	}
	t, err := ParseTimeArg(s, tz)
	if err != nil {
		return Cursor{}, UsageErrorf("%s %q: want a TSO, CONSUMPTION_STATUS text (N/A) or a timestamp (RFC 3339, or \"YYYY-MM-DD HH:MM:SS\" in --tz)", flag, s)
	}
	v, err := tso.Compose(t.UnixMilli(), tso.MaxLogical)
	if err != nil {
		return Cursor{}, UsageErrorf("%s %q: %v", flag, s, err)
	}
	zone := tz
	if zone == "" {
		zone = "UTC"
	}
	if _, rfcErr := time.Parse(time.RFC3339Nano, strings.TrimSpace(s)); rfcErr == nil {
		zone = t.Format("-07:00")
	}
	p, err := tso.ParseOffset(v.String())
	if err != nil {
		return Cursor{}, UsageErrorf("%s %q: %v", flag, s, err)
	}
	return Cursor{Offset: p, Time: t, Zone: zone,
		Text: fmt.Sprintf("%s (%s) = %s", strings.TrimSpace(s), zone, t.UTC().Format("2006-01-02T15:04:05.000Z"))}, nil
}

// SplitTable splits a "DB.TABLE" flag value (--table, a config file's
// offset_table and source_table); ok=false for anything else.
func SplitTable(s string) (db, table string, ok bool) {
	return snapshot.ExternalConsumer{SourceTable: s}.SourceTableParts()
}
