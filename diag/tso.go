package diag

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/tso"
)

// The `dorisdiag tso` tools: small pure functions over the tso package's
// arithmetic that return the typed results report renders. The retention
// arithmetic is Doris' own (fe-core ChangelogUtils.calculateCutoff and
// TSOTimestamp.nextTso, as implemented and cited in tso/retention.go); what
// is decided here is only the verdict and its findings.

// TSODecodeResult is `tso decode`: every input taken apart, and the inputs
// that are not TSO text at all (each with its error, in input order).
type TSODecodeResult struct {
	TSOs   []tso.Decoded   `json:"tsos"`
	Errors []TSOInputError `json:"errors"`
}

// TSOInputError is one input `tso decode` could not read.
type TSOInputError struct {
	Input string `json:"input"`
	Error string `json:"error"`
}

// TSODecode parses and decodes each input; loc, when not nil, adds the time
// in that zone. Nothing is dropped: a bad input is in Errors.
func TSODecode(inputs []string, loc *time.Location) TSODecodeResult {
	res := TSODecodeResult{TSOs: []tso.Decoded{}, Errors: []TSOInputError{}}
	for _, in := range inputs {
		p, err := tso.Parse(in)
		if err != nil {
			res.Errors = append(res.Errors, TSOInputError{Input: in, Error: err.Error()})
			continue
		}
		res.TSOs = append(res.TSOs, tso.Decode(p, loc))
	}
	return res
}

// TSOLagResult is `tso lag`: a raw LAG of table_stream_consumption turned
// into milliseconds, or the reason it is not.
type TSOLagResult struct {
	Lag              string   `json:"lag"`
	HasValue         bool     `json:"has_value"`
	Milliseconds     *float64 `json:"milliseconds,omitempty"`
	Approximate      bool     `json:"approximate"`
	Duration         string   `json:"duration,omitempty"`
	ProbablyVersions bool     `json:"probably_versions"`
	Note             string   `json:"note,omitempty"`
}

// TSOLag judges one raw LAG text. offset is the CONSUMPTION_STATUS text of
// the same row ("" when not given), read only when the LAG has a value: next
// to a real offset, a LAG under 2^18 is probably a count of partition
// versions (older builds), not a TSO difference (tso.LooksLikeVersionCount).
// A LAG or offset that is not Doris text is an error.
func TSOLag(raw, offset string) (TSOLagResult, error) {
	lag, ok, err := tso.ParseLag(raw)
	if err != nil {
		return TSOLagResult{}, err
	}
	res := TSOLagResult{Lag: raw, HasValue: ok}
	if !ok {
		res.Note = "no LAG: the partition has data and no offset (N/A); see `dorisdiag streams show`"
		return res, nil
	}
	var off tso.TSO = -1
	if offset != "" {
		p, err := tso.ParseOffset(offset)
		if err != nil {
			return TSOLagResult{}, err
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

// TSOHeadroomInput is one `tso headroom` question: offset C at reference
// TSO Now under TTLSeconds.
type TSOHeadroomInput struct {
	OffsetText  string     // as given: a TSO or CONSUMPTION_STATUS text
	Offset      tso.Parsed // its parse: tso.KindTSO or tso.KindNoOffset
	Now         tso.TSO    // the cluster's current TSO
	TTLSeconds  int64      // changelog.ttl_seconds, > 0
	MinHeadroom time.Duration
}

// TSOHeadroomResult is the retention computation for one offset (the
// definitions of docs/tso.md: cutoff, retention floor, next required,
// can_resume, headroom), what each read mode does next, and the findings.
type TSOHeadroomResult struct {
	Offset            string           `json:"offset"`
	HasOffset         bool             `json:"has_offset"`
	TTLSeconds        int64            `json:"ttl_seconds"`
	ReferenceTSO      tso.TSO          `json:"reference_tso"`
	ReferenceTime     string           `json:"reference_time"`
	ConsumedTSO       *tso.TSO         `json:"consumed_tso,omitempty"`
	ConsumedTime      string           `json:"consumed_time,omitempty"`
	CutoffTSO         tso.TSO          `json:"cutoff_tso"`
	RetentionFloorTSO tso.TSO          `json:"retention_floor_tso"`
	RetentionFloor    string           `json:"retention_floor_time"`
	NextRequiredTSO   *tso.TSO         `json:"next_required_tso,omitempty"`
	CanResume         *bool            `json:"can_resume,omitempty"`
	HeadroomSeconds   *float64         `json:"headroom_seconds,omitempty"`
	Headroom          string           `json:"headroom,omitempty"`
	LostSeconds       *float64         `json:"lost_seconds,omitempty"`
	ReadEffects       []tso.ReadEffect `json:"read_effects"`
	Findings          []Finding        `json:"findings"`
}

// TSOHeadroomError says which input of TSOHeadroom was unusable: "ttl"
// (at that reference TSO) or "offset" (Err names the offset text).
type TSOHeadroomError struct {
	Input string
	Err   error
}

func (e *TSOHeadroomError) Error() string { return e.Input + ": " + e.Err.Error() }
func (e *TSOHeadroomError) Unwrap() error { return e.Err }

// TSOHeadroom computes the retention of one offset and raises
// TSO_OFFSET_EXPIRED (cannot resume) or TSO_HEADROOM_LOW (headroom under
// in.MinHeadroom). A TTL the arithmetic cannot apply, or an offset that is
// not one (UNBOUNDED_TSO), is a *TSOHeadroomError.
func TSOHeadroom(in TSOHeadroomInput) (TSOHeadroomResult, error) {
	switch in.Offset.Kind {
	case tso.KindTSO, tso.KindNoOffset:
	default:
		return TSOHeadroomResult{}, &TSOHeadroomError{"offset", fmt.Errorf("%s is UNBOUNDED_TSO, a sentinel, not an offset", in.OffsetText)}
	}
	cutoff, err := tso.Cutoff(in.Now, in.TTLSeconds)
	if err != nil {
		return TSOHeadroomResult{}, &TSOHeadroomError{"ttl", err}
	}
	floor, err := tso.Next(cutoff)
	if err != nil { // cutoff <= now < MaxReal: unreachable, but never a panic
		return TSOHeadroomResult{}, fmt.Errorf("retention floor: %w", err)
	}
	res := TSOHeadroomResult{
		Offset: in.OffsetText, TTLSeconds: in.TTLSeconds,
		ReferenceTSO: in.Now, ReferenceTime: in.Now.Time().Format(tso.TimeLayout),
		CutoffTSO: cutoff, RetentionFloorTSO: floor, RetentionFloor: floor.Time().Format(tso.TimeLayout),
		Findings: []Finding{},
	}
	if in.Offset.Kind == tso.KindNoOffset {
		res.ReadEffects = tso.NoOffsetReadEffects()
		return res, nil
	}
	r, err := tso.ComputeRetention(in.Now, in.TTLSeconds, in.Offset.TSO)
	if err != nil {
		return TSOHeadroomResult{}, &TSOHeadroomError{"offset", fmt.Errorf("%s: %w", in.OffsetText, err)}
	}
	c, n := r.ConsumedTSO, r.NextRequiredTSO
	hs := r.HeadroomSeconds()
	res.HasOffset = true
	res.ConsumedTSO, res.ConsumedTime, res.NextRequiredTSO = &c, c.Time().Format(tso.TimeLayout), &n
	res.CanResume, res.HeadroomSeconds, res.Headroom = &r.CanResume, &hs, tso.FormatDuration(r.HeadroomMs)
	res.ReadEffects = r.ReadEffects()
	if !r.CanResume {
		lost := float64(r.ExpiredWindowMs) / 1000
		res.LostSeconds = &lost
	}
	res.Findings = tsoHeadroomFindings(in, r, res.Headroom)
	return res, nil
}

// tsoHeadroomFindings: at most one, the worse of expired and low.
func tsoHeadroomFindings(in TSOHeadroomInput, r tso.Retention, headroom string) []Finding {
	obj := Object{Kind: "offset", Name: in.OffsetText}
	headroomSeconds := r.HeadroomSeconds()
	ev := map[string]string{
		"headroom_seconds": strconv.FormatFloat(r.HeadroomSeconds(), 'f', 3, 64),
		"ttl_seconds":      strconv.FormatInt(in.TTLSeconds, 10),
	}
	switch {
	case !r.CanResume:
		return []Finding{{
			Code: CodeTSOOffsetExpired, Severity: CodeTSOOffsetExpired.Severity(), Object: obj, Evidence: ev, Magnitude: &headroomSeconds,
			Summary: "offset is past the retention: MIN_DELTA reads are rejected, DETAIL/APPEND_ONLY reads skip " + tso.FormatDuration(r.ExpiredWindowMs) + " of changes",
			Next:    "dorisdiag streams show DB.STREAM  # find the consumer; then reset it or rebuild its target",
		}}
	case time.Duration(r.HeadroomMs)*time.Millisecond < in.MinHeadroom:
		return []Finding{{
			Code: CodeTSOHeadroomLow, Severity: CodeTSOHeadroomLow.Severity(), Object: obj, Evidence: ev, Magnitude: &headroomSeconds,
			Summary: "only " + headroom + " before the TTL expires the next change this offset needs (under --min-headroom " + in.MinHeadroom.String() + ")",
			Next:    "consume the stream now, or raise changelog.ttl_seconds on the base table",
		}}
	}
	return []Finding{}
}

// TSODiffResult is `tso diff`: A − B in physical milliseconds and logical
// steps.
type TSODiffResult struct {
	A          tso.TSO `json:"a"`
	B          tso.TSO `json:"b"`
	PhysicalMs int64   `json:"physical_ms"` // physical(A) - physical(B)
	Logical    int64   `json:"logical"`     // logical(A) - logical(B)
	Duration   string  `json:"duration"`
}

// TSODiff subtracts b from a.
func TSODiff(a, b tso.TSO) TSODiffResult {
	ms, lg := tso.Diff(a, b)
	return TSODiffResult{A: a, B: b, PhysicalMs: ms, Logical: lg, Duration: tso.FormatDuration(ms)}
}
