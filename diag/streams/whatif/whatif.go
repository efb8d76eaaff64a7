// Package whatif answers the maintenance-window question of apache/doris#69907
// S4: which stream partitions can still resume if nobody consumes until a
// given time (and with another TTL), by running the streams analysis now and
// at that time and comparing partition by partition. It is a consumer of
// diag/streams' result, not part of the analysis.
package whatif

import (
	"sort"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// HeadroomRow is one partition with a TTL in a what-if plan.
type HeadroomRow struct {
	DB       string       `json:"db"`
	Stream   string       `json:"stream"`
	StreamID int64        `json:"stream_id"`
	Kind     streams.Kind `json:"kind"`
	ReadMode string       `json:"read_mode"`
	MVName   string       `json:"mv_name,omitempty"`
	Unit     string       `json:"unit"`
	TTL      int64        `json:"ttl_seconds"`
	// Now: with the same TTL (the --ttl override when given) at the cluster time.
	HeadroomNowSeconds *float64 `json:"headroom_now_seconds"`
	CanResumeNow       bool     `json:"can_resume_now"`
	// At: if nobody consumes until then.
	HeadroomAtSeconds *float64 `json:"headroom_at_seconds"`
	CanResumeAt       bool     `json:"can_resume_at"`
	NextReadAt        string   `json:"next_read_at"`
	// Lost: resumes now, not any more at the what-if time.
	Lost bool `json:"lost"`
	// Fraction of the TTL left at the what-if time, clamped to [0, 1].
	FractionAt *float64 `json:"headroom_fraction_at,omitempty"`
}

// Verdict is the what-if judgment of the row and its level: "LOST"
// (critical) when it resumes now and not at the what-if time, "expired
// already" (warning) when it cannot resume now, else "safe" (ok).
func (r HeadroomRow) Verdict() (verdict, level string) {
	switch {
	case r.Lost:
		return "LOST", "critical"
	case !r.CanResumeNow:
		return "expired already", "warning"
	}
	return "safe", "ok"
}

// HeadroomPlan answers "which partitions can still resume if nobody consumes
// until At" (planning a maintenance window).
type HeadroomPlan struct {
	Now         time.Time     `json:"now"`
	At          time.Time     `json:"at"`
	TTLOverride *int64        `json:"ttl_override_seconds,omitempty"`
	Rows        []HeadroomRow `json:"partitions"`
	Lost        int           `json:"lost"`            // resumable now, not at At
	Expired     int           `json:"already_expired"` // cannot resume now already
	Safe        int           `json:"safe"`            // still resumable at At
	// Findings are the what-if analysis' findings at At.
	Findings []diag.Finding `json:"findings"`
}

// PlanHeadroom evaluates every partition with a TTL now and at `at`, with
// opt.TTLOverride applied to both.
func PlanHeadroom(series []*snapshot.Snapshot, opt streams.Options, at time.Time) *HeadroomPlan {
	nowOpt := opt
	nowOpt.At = nil
	now := streams.Analyze(series, nowOpt)
	atOpt := opt
	atOpt.At = &at
	later := streams.Analyze(series, atOpt)
	plan := &HeadroomPlan{Now: now.Now, At: later.EvaluatedAt, TTLOverride: opt.TTLOverride, Rows: []HeadroomRow{}, Findings: later.Findings}
	for i := range later.Streams {
		ls := &later.Streams[i]
		ns := now.ByID(ls.ID)
		if ls.State == streams.StateDisabled || ls.State == streams.StateStale || ls.TTLSeconds == nil {
			continue
		}
		nowParts := map[string]*streams.Partition{}
		if ns != nil {
			for j := range ns.Partitions {
				nowParts[ns.Partitions[j].Unit] = &ns.Partitions[j]
			}
		}
		for j := range ls.Partitions {
			lp := &ls.Partitions[j]
			if !lp.RetentionApplicable || lp.CanResume == nil {
				continue
			}
			row := HeadroomRow{DB: ls.DB, Stream: ls.Name, StreamID: ls.ID, Kind: ls.Kind, ReadMode: ls.ReadMode, MVName: ls.MVName,
				Unit: lp.Unit, TTL: *ls.TTLSeconds, HeadroomAtSeconds: lp.HeadroomSeconds, CanResumeAt: *lp.CanResume,
				NextReadAt: lp.NextRead, FractionAt: lp.HeadroomFraction}
			if np := nowParts[lp.Unit]; np != nil && np.CanResume != nil {
				row.HeadroomNowSeconds = np.HeadroomSeconds
				row.CanResumeNow = *np.CanResume
			}
			row.Lost = row.CanResumeNow && !row.CanResumeAt
			switch {
			case row.Lost:
				plan.Lost++
			case !row.CanResumeNow:
				plan.Expired++
			default:
				plan.Safe++
			}
			plan.Rows = append(plan.Rows, row)
		}
	}
	rank := func(r *HeadroomRow) int {
		switch {
		case r.Lost:
			return 0
		case !r.CanResumeNow:
			return 1
		}
		return 2
	}
	sort.SliceStable(plan.Rows, func(i, j int) bool {
		a, b := &plan.Rows[i], &plan.Rows[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		if ha, hb := streams.HeadroomKey(a.HeadroomAtSeconds), streams.HeadroomKey(b.HeadroomAtSeconds); ha != hb {
			return ha < hb
		}
		if a.DB+"."+a.Stream != b.DB+"."+b.Stream {
			return a.DB+"."+a.Stream < b.DB+"."+b.Stream
		}
		return a.Unit < b.Unit
	})
	return plan
}
