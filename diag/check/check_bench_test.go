package check_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// BenchmarkCheckScale is the whole check — source findings, streams, MVs,
// metrics, overview, policy, sorting — over the design's scale snapshot
// (2,000 MVs × 3 base tables, 1,000 user streams, 50,000 partitions).
// Budget (design.md): diag under 200 ms.
func BenchmarkCheckScale(b *testing.B) {
	snap := scenario.Scale(scenario.DefaultScale)
	series := []*snapshot.Snapshot{snap}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := check.Run(series, check.Options{})
		if res.Overview.MVs.Total != 2000 {
			b.Fatalf("MVs = %d", res.Overview.MVs.Total)
		}
	}
}
