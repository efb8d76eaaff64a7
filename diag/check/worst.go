package check

import (
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
)

// WorstMV picks the MV an on-call engineer should look at first: the worst
// finding severity, then the most critical findings, then the largest known
// delay. nil when there is no MV with a finding.
func (r *Result) WorstMV() *mv.MV {
	var best *mv.MV
	var bestKey [3]float64
	for i := range r.MVs.MVs {
		m := &r.MVs.MVs[i]
		sev, crit := r.severityOf("mv", m.DB, m.Name)
		if sev == 0 {
			continue
		}
		key := [3]float64{float64(sev), float64(crit), m.DataDelay.Get(0)}
		if best == nil || less3(bestKey, key) {
			best, bestKey = m, key
		}
	}
	return best
}

// WorstStream picks the user stream to look at first: the worst finding
// severity, then the smallest retention headroom (the one losing changes
// soonest, or already most expired), then the largest pending age. Internal
// streams are left to WorstMV: their MV explains them.
func (r *Result) WorstStream() *streams.Stream {
	var best *streams.Stream
	var bestKey [3]float64
	for i := range r.Streams.Streams {
		s := &r.Streams.Streams[i]
		if s.Kind != streams.KindUser {
			continue
		}
		sev, _ := r.severityOf("stream", s.DB, s.Name)
		if sev == 0 {
			continue
		}
		head := 1e18
		if s.MinHeadroomSeconds != nil {
			head = *s.MinHeadroomSeconds
		}
		key := [3]float64{float64(sev), -head, s.MaxPendingAge.Get(0)}
		if best == nil || less3(bestKey, key) {
			best, bestKey = s, key
		}
	}
	return best
}

// severityOf is the worst severity and the number of critical findings
// about one object (partition findings count for their stream).
func (r *Result) severityOf(kind, db, name string) (diag.Severity, int) {
	var worst diag.Severity
	crit := 0
	for _, f := range r.Findings {
		k := f.Object.Kind
		if k == "partition" {
			k = "stream"
		}
		if k != kind || f.Object.DB != db || f.Object.Name != name {
			continue
		}
		if f.Severity > worst {
			worst = f.Severity
		}
		if f.Severity == diag.SeverityCritical {
			crit++
		}
	}
	return worst, crit
}

func less3(a, b [3]float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
