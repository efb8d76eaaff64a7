package streams_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestMaxPendingAgeNeverBelowAPartitionBound (issue 20, Why: `streams`
// showed 40s for demo.s_events_dup on legacy while `streams show` proves
// p20261126 at least 3h50m behind): on every bundled scenario a stream's max
// pending age — the value `streams`, its JSON, the exporter and -o prom
// carry — is never below the lower bound any of its partitions proves, and
// has no upper bound when a partition behind has none.
func TestMaxPendingAgeNeverBelowAPartitionBound(t *testing.T) {
	for _, name := range []string{"healthy", "incident", "legacy"} {
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		res := streams.Analyze([]*snapshot.Snapshot{s}, streams.Options{})
		checked := 0
		for _, sr := range res.Streams {
			shown := sr.MaxPendingAge.Seconds
			if shown == nil {
				shown = sr.MaxPendingAge.Lower
			}
			for _, p := range sr.Partitions {
				if p.OffsetState == streams.OffsetInitialSnapshotPending {
					continue
				}
				lo := p.PendingAge.Lower
				if lo == nil && p.PendingAge.Precision == diag.PrecisionPrecise {
					lo = p.PendingAge.Seconds
				}
				if lo != nil {
					checked++
					if shown == nil || *shown < *lo {
						t.Errorf("%s: %s.%s shows %s, but %s is proven at least %.0fs behind", name, sr.DB, sr.Name, diag.ValueText(sr.MaxPendingAge), p.Unit, *lo)
					}
				}
				if p.PendingAge.Seconds == nil && sr.MaxPendingAge.Seconds != nil {
					t.Errorf("%s: %s.%s has an upper bound %s though %s has none", name, sr.DB, sr.Name, diag.ValueText(sr.MaxPendingAge), p.Unit)
				}
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no partition bound checked", name)
		}
	}
}
