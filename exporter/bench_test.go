package exporter_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/dorisdiag/dorisdiag/diag/changepoints"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Benchmarks of docs/performance.md "dorisdiag exporter", at the design's
// scale (scenario.DefaultScale: 2,000 MVs, 7,000 streams, 50,000 partitions).

// changing returns round n of a cluster that keeps changing: every 10th
// partition gets a write each round and its consumer catches up to the
// previous end (one change point kept), every 100th gets a write and its
// consumer never moves (points pile up to the cap and merge), the rest are
// idle; the clock advances 15 s a round.
func changing(tb testing.TB, base *snapshot.Snapshot, n int) *snapshot.Snapshot {
	tb.Helper()
	s, err := exporter.Advance(base, time.Duration(n)*interval)
	if err != nil {
		tb.Fatal(err)
	}
	s.Consumption = append([]snapshot.Consumption(nil), base.Consumption...)
	s.Streams = append([]snapshot.Stream(nil), base.Streams...)
	for i := range s.Streams {
		st := &s.Streams[i]
		st.MonitorState, st.PendingPartitions, st.MaxPendingAgeSeconds, st.PendingAgePrecision = nil, nil, nil, nil
		st.CanResume, st.MinRetentionHeadroomSeconds, st.GapEvents, st.LastGapTimeMs, st.MonitorSampleTimeMs = nil, nil, nil, nil, nil
	}
	s.MVStatus, s.Dependencies = nil, nil
	nowMs := s.Cluster.CurrentTSO.Physical()
	at := func(ms int64) *tso.TSO {
		v, _ := tso.Compose(ms, 1)
		return &v
	}
	for i := range s.Consumption {
		c := &s.Consumption[i]
		{
			// A build without the monitor, the exporter's target: the scale
			// scenario's static server columns would disagree with a moving
			// clock (SERVER_CLIENT_MISMATCH on every row).
			c.PendingAgeSeconds, c.PendingAgePrecision, c.CaughtUp, c.PositionGapSeconds = nil, nil, nil, nil
			c.RetentionHeadroomSeconds, c.CanResume, c.NextRequiredTSO, c.RetentionFloorTSO = nil, nil, nil, nil
			c.OffsetState, c.RetentionApplicable = nil, nil
		}
		switch {
		case i%100 == 0:
			c.SourceEndTSO = at(nowMs - 1000)
		case i%10 == 0:
			c.SourceEndTSO = at(nowMs - 1000)
			off := at(nowMs - 1000 - interval.Milliseconds())
			c.Offset, c.ConsumedTSO = off, off
		}
	}
	return s
}

// BenchmarkExporterRoundScale: one round's computation excluding the
// collection (diag.ExporterState.Round: the whole check, the change points,
// the counters, the per-object values). Budget: < 200 ms.
func BenchmarkExporterRoundScale(b *testing.B) {
	base := scenario.Scale(scenario.DefaultScale)
	st := round.NewState(round.Options{})
	st.Round(changing(b, base, 0))
	snaps := make([]*snapshot.Snapshot, 8)
	for i := range snaps {
		snaps[i] = changing(b, base, i+1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st.Round(snaps[i%len(snaps)])
	}
}

// BenchmarkExporterRenderScale: one scrape of the published result at scale
// (client_golang gather and text encoding). Budget: < 50 ms, about 9,100
// design series and 1 MB.
func BenchmarkExporterRenderScale(b *testing.B) {
	e := demoExporter(b, scenario.Scale(scenario.DefaultScale), 1)
	var buf bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		fams, err := e.Registry().Gather()
		if err != nil {
			b.Fatal(err)
		}
		enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, f := range fams {
			if err := enc.Encode(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	design := strings.Count(buf.String(), "\ndoris_fe_")
	b.ReportMetric(float64(buf.Len()), "bytes/scrape")
	b.ReportMetric(float64(design), "design-series")
}

func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, _ := strconv.ParseFloat(f[1], 64)
	return pages * float64(os.Getpagesize()) / (1 << 20)
}

// BenchmarkExporterSoak1000Rounds: 1,000 rounds of the changing cluster at
// scale through exporter.Exporter.Round (the process's own path: collect,
// compute, publish, collect the garbage); reports the live heap and the
// resident set after round 100 and after round 1,000 (flat: the change points
// stop at their caps), the peak resident set (VmHWM; it includes the
// benchmark's own 50,000-partition base snapshot and its per-round copy),
// and the points kept. Run with -benchtime 1x (10–16 minutes on the shared
// 2-core machine). DORISDIAG_SOAK_ROUNDS shortens it.
func BenchmarkExporterSoak1000Rounds(b *testing.B) {
	rounds := 1000
	if n, err := strconv.Atoi(os.Getenv("DORISDIAG_SOAK_ROUNDS")); err == nil && n > 100 {
		rounds = n
	}
	base := scenario.Scale(scenario.DefaultScale)
	for i := 0; i < b.N; i++ {
		e, err := exporter.New(exporter.Options{Interval: interval, Demo: true,
			Source: func(_ context.Context, n int) (*snapshot.Snapshot, error) { return changing(b, base, n-1), nil }})
		if err != nil {
			b.Fatal(err)
		}
		var heap100, rss100 float64
		var ms runtime.MemStats
		for n := 0; n < rounds; n++ {
			if err := e.Round(context.Background()); err != nil {
				b.Fatal(err)
			}
			if n == 99 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				heap100, rss100 = float64(ms.HeapInuse)/(1<<20), rssMB()
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		st := e.State()
		b.ReportMetric(heap100, "heapMB@100")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heapMB@end")
		b.ReportMetric(rss100, "rssMB@100")
		b.ReportMetric(rssMB(), "rssMB@end")
		b.ReportMetric(hwmMB(), "VmHWM-MB")
		b.ReportMetric(float64(st.Points().Total()), "points")
		b.ReportMetric(float64(st.Points().Merges()), "merges")
	}
}

// hwmMB is this process's peak resident set (VmHWM), -1 without /proc.
func hwmMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return -1
}

// TestMemoryBoundedOverRounds: the state a long run keeps stops growing at
// the caps — 1,000 rounds of a changing small cluster keep at most 64 points
// per partition (the 1-in-100 partitions that never catch up sit at the cap,
// merging), and no more partitions than the cluster has.
func TestMemoryBoundedOverRounds(t *testing.T) {
	base := scenario.Scale(scenario.ScaleConfig{MVs: 20, BasePerMV: 2, UserStreams: 10, ConsumptionRows: 500})
	st := round.NewState(round.Options{})
	var at200 int
	for n := 0; n < 1000; n++ {
		st.Round(changing(t, base, n))
		if n == 199 {
			at200 = st.Points().Total()
		}
	}
	cp := st.Points()
	if cp.Partitions() > len(base.Consumption) {
		t.Errorf("%d partitions tracked, the cluster has %d", cp.Partitions(), len(base.Consumption))
	}
	stuck := (len(base.Consumption) + 99) / 100
	if max := stuck*changepoints.DefaultMaxPointsPerPartition + len(base.Consumption); cp.Total() > max {
		t.Errorf("%d points after 1,000 rounds, want at most %d (64 per stuck partition)", cp.Total(), max)
	}
	if cp.Total() != at200 {
		t.Errorf("points grew from %d (round 200) to %d (round 1,000): past the caps nothing may grow", at200, cp.Total())
	}
	if cp.Merges() == 0 {
		t.Error("no merge in 1,000 rounds: the per-partition cap was never reached")
	}
}

// BenchmarkCheckSameSnapshotScale: check.Run alone over the same snapshots
// as BenchmarkExporterRoundScale: the difference is the exporter's own cost
// (change points, counters, per-object values).
func BenchmarkCheckSameSnapshotScale(b *testing.B) {
	base := scenario.Scale(scenario.DefaultScale)
	snaps := make([]*snapshot.Snapshot, 8)
	for i := range snaps {
		snaps[i] = changing(b, base, i+1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		check.Run([]*snapshot.Snapshot{snaps[i%len(snaps)]}, check.Options{})
	}
}

// BenchmarkExporterRoundVsCheckScale: each iteration runs check.Run and the
// exporter's round on the same snapshot, one after the other, and reports
// both times and their ratio: interleaved, a shared machine's load affects
// both alike (docs/performance.md "dorisdiag exporter").
func BenchmarkExporterRoundVsCheckScale(b *testing.B) {
	base := scenario.Scale(scenario.DefaultScale)
	st := round.NewState(round.Options{})
	st.Round(changing(b, base, 0))
	snaps := make([]*snapshot.Snapshot, 8)
	for i := range snaps {
		snaps[i] = changing(b, base, i+1)
	}
	var checkD, roundD time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := snaps[i%len(snaps)]
		runtime.GC() // each side starts from the same heap
		t0 := time.Now()
		check.Run([]*snapshot.Snapshot{s}, check.Options{})
		t1 := time.Now()
		runtime.GC()
		t2 := time.Now()
		st.Round(s)
		roundD += time.Since(t2)
		checkD += t1.Sub(t0)
	}
	b.ReportMetric(float64(checkD.Milliseconds())/float64(b.N), "check-ms")
	b.ReportMetric(float64(roundD.Milliseconds())/float64(b.N), "round-ms")
	b.ReportMetric(float64(roundD)/float64(checkD), "round/check")
}
