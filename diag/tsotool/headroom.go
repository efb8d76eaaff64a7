package tsotool

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/tso"
)

// CodeOffsetExpired: The offset given to `tso headroom` is past the retention
var CodeOffsetExpired = diag.Declare(diag.Declaration{
	Code:      "TSO_OFFSET_EXPIRED",
	Action:    "find the consumer, then reset or rebuild",
	Severity:  diag.SeverityCritical,
	Impact:    diag.ImpactLoss,
	Place:     4,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Title:     "The offset given to `tso headroom` is past the retention",
	Spec:      "apache/doris#69907 §3 Definitions (can_resume); docs/tso.md",
	Meaning:   "nextTso(C) is below the retention floor nextTso(calculateCutoff(now, ttl)): the next change this consumer needs has expired.",
	Matters:   "A MIN_DELTA read from this offset is rejected; a DETAIL or APPEND_ONLY read succeeds and silently skips the expired changes (apache/doris#69907 §1 S4) — on a build that enforces the TTL. " + ttl.BuildsDiffer + " `tso headroom` reads no cluster: only --assume-ttl-enforced tells it.",
	Confirm:   "SELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_NAME = '<stream>';\nSELECT CURRENT_TSO FROM information_schema.tso_status;",
	Fix:       "Find the consumer (dorisdiag streams), then reset the stream or rebuild the target from the base table; raise changelog.ttl_seconds so it does not recur.",
	Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_CANNOT_RESUME_CLIPPED", "TSO_HEADROOM_LOW"},
})

// CodeHeadroomLow: The offset given to `tso headroom` is close to leaving the retention
var CodeHeadroomLow = diag.Declare(diag.Declaration{
	Code:      "TSO_HEADROOM_LOW",
	Action:    "consume the stream now, or raise the TTL",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactLoss,
	Place:     7,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Title:     "The offset given to `tso headroom` is close to leaving the retention",
	Spec:      "apache/doris#69907 §3 Definitions (headroom_seconds)",
	Meaning:   "The headroom — physical(next_required) − physical(retention_floor) — is under --min-headroom (default 30m).",
	Matters:   "When it reaches 0, the consumer can no longer resume: MIN_DELTA reads are rejected and DETAIL/APPEND_ONLY reads skip changes — on a build that enforces the TTL. " + ttl.BuildsDiffer,
	Confirm:   "dorisdiag tso headroom --offset C --ttl SECONDS --now CURRENT_TSO",
	Fix:       "Consume the stream before the headroom runs out, or raise changelog.ttl_seconds on the base table.",
	Related:   []string{"TSO_OFFSET_EXPIRED", "STREAM_HEADROOM_LOW"},
})

// HeadroomInput is one `tso headroom` question: offset C at reference
// TSO Now under TTLSeconds.
type HeadroomInput struct {
	OffsetText  string     // as given: a TSO or CONSUMPTION_STATUS text
	Offset      tso.Parsed // its parse: tso.KindTSO or tso.KindNoOffset
	Now         tso.TSO    // the cluster's current TSO
	TTLSeconds  int64      // changelog.ttl_seconds, > 0
	MinHeadroom time.Duration
	// AssumeTTLEnforced is the user's word on whether the build enforces
	// the TTL (--assume-ttl-enforced; nil: not given, unknown). The tool
	// reads no cluster, so it has no other evidence; the findings follow
	// ttl.Qualify, as check's do.
	AssumeTTLEnforced *bool
}

// HeadroomResult is the retention computation for one offset (the
// definitions of docs/tso.md: cutoff, retention floor, next required,
// can_resume, headroom), what each read mode does next, and the findings.
type HeadroomResult struct {
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
	Findings          []diag.Finding   `json:"findings"`
}

// HeadroomError says which input of Headroom was unusable: "ttl"
// (at that reference TSO) or "offset" (Err names the offset text).
type HeadroomError struct {
	Input string
	Err   error
}

func (e *HeadroomError) Error() string { return e.Input + ": " + e.Err.Error() }
func (e *HeadroomError) Unwrap() error { return e.Err }

// Headroom computes the retention of one offset and raises
// TSO_OFFSET_EXPIRED (cannot resume) or TSO_HEADROOM_LOW (headroom under
// in.MinHeadroom). A TTL the arithmetic cannot apply, or an offset that is
// not one (UNBOUNDED_TSO), is a *TSOHeadroomError.
func Headroom(in HeadroomInput) (HeadroomResult, error) {
	switch in.Offset.Kind {
	case tso.KindTSO, tso.KindNoOffset:
	default:
		return HeadroomResult{}, &HeadroomError{"offset", fmt.Errorf("%s is UNBOUNDED_TSO, a sentinel, not an offset", in.OffsetText)}
	}
	cutoff, err := tso.Cutoff(in.Now, in.TTLSeconds)
	if err != nil {
		return HeadroomResult{}, &HeadroomError{"ttl", err}
	}
	floor, err := tso.Next(cutoff)
	if err != nil { // cutoff <= now < MaxReal: unreachable, but never a panic
		return HeadroomResult{}, fmt.Errorf("retention floor: %w", err)
	}
	res := HeadroomResult{
		Offset: in.OffsetText, TTLSeconds: in.TTLSeconds,
		ReferenceTSO: in.Now, ReferenceTime: in.Now.Time().Format(tso.TimeLayout),
		CutoffTSO: cutoff, RetentionFloorTSO: floor, RetentionFloor: floor.Time().Format(tso.TimeLayout),
		Findings: []diag.Finding{},
	}
	if in.Offset.Kind == tso.KindNoOffset {
		res.ReadEffects = tso.NoOffsetReadEffects()
		return res, nil
	}
	r, err := tso.ComputeRetention(in.Now, in.TTLSeconds, in.Offset.TSO)
	if err != nil {
		return HeadroomResult{}, &HeadroomError{"offset", fmt.Errorf("%s: %w", in.OffsetText, err)}
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
	res.Findings = ttl.Qualify(ttl.Assumed(in.AssumeTTLEnforced), "", tsoHeadroomFindings(in, r, res.Headroom), expiryCode)
	return res, nil
}

// expiryCode: both codes rest on expiry (ttl.Qualify).
func expiryCode(c diag.Code) bool { return c == CodeOffsetExpired || c == CodeHeadroomLow }

// tsoHeadroomFindings: at most one, the worse of expired and low.
func tsoHeadroomFindings(in HeadroomInput, r tso.Retention, headroom string) []diag.Finding {
	obj := diag.Object{Kind: "offset", Name: in.OffsetText}
	headroomSeconds := r.HeadroomSeconds()
	ev := map[string]string{
		"headroom_seconds": strconv.FormatFloat(r.HeadroomSeconds(), 'f', 3, 64),
		"ttl_seconds":      strconv.FormatInt(in.TTLSeconds, 10),
	}
	switch {
	case !r.CanResume:
		return []diag.Finding{{
			Code: CodeOffsetExpired, Severity: CodeOffsetExpired.Severity(), Object: obj, Evidence: ev, Magnitude: &headroomSeconds,
			Summary: "offset is past the retention: MIN_DELTA reads are rejected, DETAIL/APPEND_ONLY reads skip " + tso.FormatDuration(r.ExpiredWindowMs) + " of changes",
			Next:    "dorisdiag streams show DB.STREAM  # find the consumer; then reset it or rebuild its target",
		}}
	case time.Duration(r.HeadroomMs)*time.Millisecond < in.MinHeadroom:
		return []diag.Finding{{
			Code: CodeHeadroomLow, Severity: CodeHeadroomLow.Severity(), Object: obj, Evidence: ev, Magnitude: &headroomSeconds,
			Summary: "only " + headroom + " before the TTL expires the next change this offset needs (under --min-headroom " + in.MinHeadroom.String() + ")",
			Next:    "consume the stream now, or raise changelog.ttl_seconds on the base table",
		}}
	}
	return []diag.Finding{}
}
