package tso

import "time"

// Decoded is one TSO taken apart, for `dorisdiag tso decode`.
type Decoded struct {
	Input      string    `json:"input"`
	Kind       string    `json:"kind"` // tso | no_offset | unbounded
	TSO        *TSO      `json:"tso,omitempty"`
	PhysicalMs *int64    `json:"physical_ms,omitempty"`
	Time       string    `json:"time,omitempty"` // RFC 3339 UTC with milliseconds
	LocalTime  string    `json:"local_time,omitempty"`
	Logical    *int64    `json:"logical,omitempty"`
	Hex        string    `json:"hex,omitempty"`
	Note       string    `json:"note,omitempty"`
	time       time.Time // for the local rendering
}

// TimeLayout is RFC 3339 with exactly three fractional digits: a TSO's
// physical part is whole milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Decode takes parsed text apart. loc, when not nil, adds LocalTime in it.
func Decode(p Parsed, loc *time.Location) Decoded {
	d := Decoded{Input: p.Raw, Kind: p.Kind.String()}
	switch p.Kind {
	case KindNoOffset:
		d.Note = "no committed offset (N/A, \\N, empty or a negative sentinel such as -1)"
		return d
	case KindUnbounded:
		t := p.TSO
		d.TSO = &t
		d.Hex = t.Hex()
		d.Note = "UNBOUNDED_TSO sentinel (2^63-1): \"latest / no bound\", never a real TSO"
		return d
	}
	t := p.TSO
	ph, lg := t.Physical(), t.Logical()
	d.TSO, d.PhysicalMs, d.Logical = &t, &ph, &lg
	d.time = t.Time()
	d.Time = d.time.Format(TimeLayout)
	if loc != nil {
		d.LocalTime = d.time.In(loc).Format(TimeLayout)
	}
	d.Hex = t.Hex()
	return d
}

// ReadEffect says what the next read of one read mode does from an offset
// (doris.md §2 "Effect on reads").
type ReadEffect struct {
	Mode   string `json:"mode"`   // MIN_DELTA | DETAIL | APPEND_ONLY
	Effect string `json:"effect"` // proceed | rejected | clipped | from_retained_start | may_skip_rows
	Detail string `json:"detail"`
}

// ReadEffects of a consumer at this retention: MIN_DELTA (and snapshot reads)
// are rejected once the offset expired; DETAIL and APPEND_ONLY are clipped
// silently to the retention floor, losing ExpiredWindowMs of changes.
func (r Retention) ReadEffects() []ReadEffect {
	if r.CanResume {
		d := "the next change it needs is still retained for " + FormatDuration(r.HeadroomMs)
		return []ReadEffect{
			{"MIN_DELTA", "proceed", d},
			{"DETAIL", "proceed", d},
			{"APPEND_ONLY", "proceed", d},
		}
	}
	lost := FormatDuration(r.ExpiredWindowMs)
	return []ReadEffect{
		{"MIN_DELTA", "rejected", "the read fails with the expired-offset error (\"offset has expired according to ttl_seconds\"); reset the stream or rebuild the consumer"},
		{"DETAIL", "clipped", "the read succeeds but silently skips " + lost + " of expired changes (from next_required to the retention floor)"},
		{"APPEND_ONLY", "clipped", "the read succeeds but silently skips " + lost + " of expired changes (from next_required to the retention floor)"},
	}
}

// NoOffsetReadEffects says what a read does for a partition with no offset
// (CONSUMPTION_STATUS N/A): seed §1 T12.
func NoOffsetReadEffects() []ReadEffect {
	return []ReadEffect{
		{"MIN_DELTA", "may_skip_rows", "no offset: the stream reads the retained changelog; rows of the partition older than the TTL are silently skipped (until the build reads such a partition from the base table, apache/doris#69907 T12) and the offset moves past them"},
		{"DETAIL", "from_retained_start", "no offset: the read starts at the oldest retained change; on a duplicate-key table rows older than the TTL are silently skipped (apache/doris#69907 T12)"},
		{"APPEND_ONLY", "from_retained_start", "no offset: the read starts at the oldest retained change; on a duplicate-key table rows older than the TTL are silently skipped (apache/doris#69907 T12)"},
	}
}
