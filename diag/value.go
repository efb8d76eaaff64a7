package diag

import (
	"math"

	"github.com/dorisdiag/dorisdiag/tso"
)

// Precision says how exact a derived value is (seed §3 "Definitions":
// PENDING_AGE_PRECISION / DELAY_PRECISION).
type Precision string

// The three precisions of the seed.
const (
	// PrecisePrecision: exact, or off by at most one sampling interval (the
	// seed's change-point rule).
	PrecisionPrecise Precision = "PRECISE"
	// PrecisionUpperBound: the value is an upper bound; the true value is
	// between Lower (when known) and Seconds. Never reported too small.
	PrecisionUpperBound Precision = "UPPER_BOUND"
	// PrecisionUnknown: no value could be computed (offset unreadable, ...).
	PrecisionUnknown Precision = "UNKNOWN"
)

// Value sources.
const (
	SourceServer = "server" // a seed column the build filled
	SourceClient = "client" // computed by dorisdiag from the raw columns
)

// Value is a derived duration with its precision and where it came from
// (design.md "Every value carries its precision").
type Value struct {
	// Seconds is the reported value: the upper end of the bound, so a delay is
	// never reported too small. Nil when unknown.
	Seconds *float64 `json:"seconds"`
	// Lower is the lower end of the bound when known (UPPER_BOUND and
	// PRECISE values from a series).
	Lower     *float64  `json:"lower_seconds,omitempty"`
	Precision Precision `json:"precision"`
	Source    string    `json:"source"`         // "server" | "client"
	Note      string    `json:"note,omitempty"` // how it was bounded, or why unknown
	// BoundSource and LowerSource name the facts the upper and the lower
	// bound came from, where a value has several possible ones (a partition
	// with data and no offset, docs/streams.md "Pending age"):
	// "partition_create_time" or "none" (no sound upper bound: UNKNOWN);
	// "source_end" or "update_time". Omitted elsewhere.
	BoundSource string `json:"bound_source,omitempty"`
	LowerSource string `json:"lower_source,omitempty"`
}

// Known reports whether the value has a number.
func (v Value) Known() bool { return v.Seconds != nil }

// Get returns the seconds, or def when unknown.
func (v Value) Get(def float64) float64 {
	if v.Seconds == nil {
		return def
	}
	return *v.Seconds
}

// UnknownValue is a value with no number, and why.
func UnknownValue(source, note string) Value {
	return Value{Precision: PrecisionUnknown, Source: source, Note: note}
}

// WorstPrecision orders precisions: UNKNOWN is worse than UPPER_BOUND, which
// is worse than PRECISE (the seed: "its precision is the worst of its parts").
func WorstPrecision(a, b Precision) Precision {
	rank := func(p Precision) int {
		switch p {
		case PrecisionPrecise:
			return 0
		case PrecisionUpperBound:
			return 1
		}
		return 2
	}
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

// DurationText renders seconds for people, rounded to the millisecond.
func DurationText(sec float64) string { return tso.FormatDuration(int64(math.Round(sec * 1000))) }

// ValueText renders a value with its precision: "12m00s (PRECISE)",
// "≤ 26h00m (UPPER_BOUND)", "unknown".
func ValueText(v Value) string {
	if v.Seconds == nil {
		if v.Lower != nil {
			return "≥ " + DurationText(*v.Lower) + " (UNKNOWN)"
		}
		return "unknown"
	}
	if v.Precision == PrecisionUpperBound && *v.Seconds > 0 {
		return "≤ " + DurationText(*v.Seconds) + " (UPPER_BOUND)"
	}
	return DurationText(*v.Seconds) + " (" + string(v.Precision) + ")"
}
