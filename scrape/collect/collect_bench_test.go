package collect_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/scrape/collect"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// BenchmarkCollectScale collects the scale scenario (2,000 MVs, 7,000
// streams, 50,000 consumption rows) from the emulator through the real
// driver. The emulator runs in the same process, so B/op and allocs/op
// include its side of the wire too (docs/performance.md "Collector").
//
//	go test ./scrape -run XXX -bench CollectScale -benchmem -benchtime 5x
func BenchmarkCollectScale(b *testing.B) {
	snap, err := scenario.Load("scale")
	if err != nil {
		b.Fatal(err)
	}
	e, cfg := startEmulator(b, snap, emulator.Options{QueryLog: true})
	b.ResetTimer()
	var got *snapshot.Snapshot
	for i := 0; i < b.N; i++ {
		e.ResetQueries()
		got, err = collect.Collect(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var buf bytes.Buffer
	_ = snapshot.Write(&buf, got)
	b.ReportMetric(float64(len(e.Queries())), "queries/op")
	b.ReportMetric(float64(len(got.Streams)), "streams")
	b.ReportMetric(float64(len(got.Consumption)), "consumption_rows")
	b.ReportMetric(float64(buf.Len())/1e6, "snapshot_MB")
}
