package tsotool

import (
	"time"

	"github.com/dorisdiag/dorisdiag/tso"
)

// The `dorisdiag tso` tools: small pure functions over the tso package's
// arithmetic that return the typed results report renders. The retention
// arithmetic is Doris' own (fe-core ChangelogUtils.calculateCutoff and
// TSOTimestamp.nextTso, as implemented and cited in tso/retention.go); what
// is decided here is only the verdict and its findings.

// DecodeResult is `tso decode`: every input taken apart, and the inputs
// that are not TSO text at all (each with its error, in input order).
type DecodeResult struct {
	TSOs   []tso.Decoded `json:"tsos"`
	Errors []InputError  `json:"errors"`
}

// InputError is one input `tso decode` could not read.
type InputError struct {
	Input string `json:"input"`
	Error string `json:"error"`
}

// Decode parses and decodes each input; loc, when not nil, adds the time
// in that zone. Nothing is dropped: a bad input is in Errors.
func Decode(inputs []string, loc *time.Location) DecodeResult {
	res := DecodeResult{TSOs: []tso.Decoded{}, Errors: []InputError{}}
	for _, in := range inputs {
		p, err := tso.Parse(in)
		if err != nil {
			res.Errors = append(res.Errors, InputError{Input: in, Error: err.Error()})
			continue
		}
		res.TSOs = append(res.TSOs, tso.Decode(p, loc))
	}
	return res
}

// LagResult is `tso lag`: a raw LAG of table_stream_consumption turned
// into milliseconds, or the reason it is not.
type LagResult struct {
	Lag              string   `json:"lag"`
	HasValue         bool     `json:"has_value"`
	Milliseconds     *float64 `json:"milliseconds,omitempty"`
	Approximate      bool     `json:"approximate"`
	Duration         string   `json:"duration,omitempty"`
	ProbablyVersions bool     `json:"probably_versions"`
	Note             string   `json:"note,omitempty"`
}

// Lag judges one raw LAG text. offset is the CONSUMPTION_STATUS text of
// the same row ("" when not given), read only when the LAG has a value: next
// to a real offset, a LAG under 2^18 is probably a count of partition
// versions (older builds), not a TSO difference (tso.LooksLikeVersionCount).
// A LAG or offset that is not Doris text is an error.
func Lag(raw, offset string) (LagResult, error) {
	lag, ok, err := tso.ParseLag(raw)
	if err != nil {
		return LagResult{}, err
	}
	res := LagResult{Lag: raw, HasValue: ok}
	if !ok {
		res.Note = "no LAG: the partition has data and no offset (N/A); see `dorisdiag streams show`"
		return res, nil
	}
	var off tso.TSO = -1
	if offset != "" {
		p, err := tso.ParseOffset(offset)
		if err != nil {
			return LagResult{}, err
		}
		off = p.TSO
	}
	if tso.LooksLikeVersionCount(lag, off) {
		res.ProbablyVersions = true
		res.Note = "probably a count of partition versions (older builds), not a TSO difference: not converted to time"
		return res, nil
	}
	ms := tso.LagMillis(lag)
	res.Milliseconds, res.Approximate = &ms, true
	res.Duration = tso.FormatDuration(int64(ms))
	return res, nil
}

// DiffResult is `tso diff`: A − B in physical milliseconds and logical
// steps.
type DiffResult struct {
	A          tso.TSO `json:"a"`
	B          tso.TSO `json:"b"`
	PhysicalMs int64   `json:"physical_ms"` // physical(A) - physical(B)
	Logical    int64   `json:"logical"`     // logical(A) - logical(B)
	Duration   string  `json:"duration"`
}

// Diff subtracts b from a.
func Diff(a, b tso.TSO) DiffResult {
	ms, lg := tso.Diff(a, b)
	return DiffResult{A: a, B: b, PhysicalMs: ms, Logical: lg, Duration: tso.FormatDuration(ms)}
}
