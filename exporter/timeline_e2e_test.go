package exporter_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

const interval = 15 * time.Second

// stage is the healthy scenario d after its time, with its rows copied so
// that a round's changes do not leak into the others.
func stage(t testing.TB, base *snapshot.Snapshot, d time.Duration, mutate func(s *snapshot.Snapshot, nowMs int64)) *snapshot.Snapshot {
	t.Helper()
	s, err := exporter.Advance(base, d)
	if err != nil {
		t.Fatal(err)
	}
	s.Consumption = append([]snapshot.Consumption(nil), s.Consumption...)
	s.Partitions = append([]snapshot.Partition(nil), s.Partitions...)
	s.Tasks = append([]snapshot.Task(nil), s.Tasks...)
	mutate(s, s.Cluster.CurrentTSO.Physical())
	return s
}

func tsoAt(t testing.TB, ms int64) tso.TSO {
	t.Helper()
	v, err := tso.Compose(ms, 1)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setRow sets one consumption row as a build without the seed's columns
// serves it: CONSUMPTION_STATUS (the offset) and LAG (end − offset).
func setRow(t testing.TB, s *snapshot.Snapshot, streamID int64, unit string, offset, end tso.TSO) {
	t.Helper()
	for i := range s.Consumption {
		c := &s.Consumption[i]
		if c.StreamID == streamID && c.Unit == unit {
			c.ConsumptionStatus = offset.String()
			o := offset
			c.Offset = &o
			lag := int64(end - offset)
			c.Lag = tso.TSO(lag).String()
			c.LagValue = &lag
			c.SourceEndTSO, c.ConsumedTSO = nil, nil
			return
		}
	}
	t.Fatalf("no consumption row %d/%s", streamID, unit)
}

func setPartition(t testing.TB, s *snapshot.Snapshot, table, name string, version, visibleMs int64) {
	t.Helper()
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if p.Table == table && p.Name == name {
			p.VisibleVersion, p.VisibleTimeMs = &version, &visibleMs
			return
		}
	}
	t.Fatalf("no partition %s.%s", table, name)
}

// TestTimelineUpperBoundPreciseZero is the design's change-point rule end to
// end (apache/doris#69907 §3 "Pending age"), over the real MySQL protocol: the
// emulator advances between rounds and the stream's pending age goes
// UPPER_BOUND → PRECISE → 0; counters never go back; a failed round keeps the
// last result and counts the failure; /readyz turns unready after two failed
// intervals.
func TestTimelineUpperBoundPreciseZero(t *testing.T) {
	base, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	const stream, unit = 61001, "p20261130" // s_orders_cdc on demo.orders
	t0 := base.Cluster.CurrentTSO.Physical()
	end0 := tsoAt(t, t0-20_000)
	var version0 int64 = 3391
	var failed snapshot.Task
	for _, tk := range base.Tasks {
		if tk.MVName == "mv_payments_rollup" {
			failed = tk
		}
	}

	// Round 1: the consumer is 10 minutes behind since before the exporter
	// started: nothing was seen arrive, so the age is an UPPER_BOUND.
	r1 := stage(t, base, 0, func(s *snapshot.Snapshot, now int64) {
		setRow(t, s, stream, unit, tsoAt(t, now-600_000), end0)
		setPartition(t, s, "orders", unit, version0, t0-20_000)
	})
	emu, cfg := startEmulator(t, r1, emulator.Options{Legacy: true, QueryLog: true})
	clock := newFakeClock()
	e, err := exporter.New(exporter.Options{Interval: interval, Source: exporter.LiveSource(cfg), Now: clock.Now,
		Diag: round.Options{KeepCheck: true}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	if code, _ := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before any round: %d, want 503", code)
	}
	mustRound(t, e)
	s1, _ := gather(t, e)
	age1 := s1.get(t, "doris_fe_changelog_stream_pending_age_seconds", "stream_name=s_orders_cdc")
	if age1 < 600 || age1 > 601 {
		t.Errorf("round 1 pending age %v, want the UPPER_BOUND now − physical(C) = 600", age1)
	}
	if p := partitionPrecision(t, e, stream, unit); p != diag.PrecisionUpperBound {
		t.Errorf("round 1 precision %s, want UPPER_BOUND", p)
	}
	if s1.get(t, "dorisdiag_exporter_pending_partitions", "precision=UPPER_BOUND") < 1 {
		t.Error("round 1: no partition counted as UPPER_BOUND")
	}

	// Round 2, 15 s later: the consumer caught up to the old end, and one new
	// version became visible 10 s after round 1 (its visible time known): the
	// change point makes the age exact, 5 s. A refresh task failed.
	clock.Advance(interval)
	emu.SetSnapshot(stage(t, base, interval, func(s *snapshot.Snapshot, now int64) {
		setRow(t, s, stream, unit, end0, tsoAt(t, t0+10_000))
		setPartition(t, s, "orders", unit, version0+1, t0+10_000)
		f := failed
		f.TaskID, f.Status, f.ErrorMsg = 1764400999001, "FAILED", "errCode = 2, detailMessage = execution failed"
		c, st, fin, dur := now-9_000, now-8_000, now-4_000, int64(4_000)
		f.CreateTimeMs, f.StartTimeMs, f.FinishTimeMs, f.DurationMs = &c, &st, &fin, &dur
		s.Tasks = append(s.Tasks, f)
	}))
	mustRound(t, e)
	s2, _ := gather(t, e)
	age2 := s2.get(t, "doris_fe_changelog_stream_pending_age_seconds", "stream_name=s_orders_cdc")
	if age2 != 5 {
		t.Errorf("round 2 pending age %v, want 5 (exact: one new version, its visible time known)", age2)
	}
	if p := partitionPrecision(t, e, stream, unit); p != diag.PrecisionPrecise {
		t.Errorf("round 2 precision %s, want PRECISE", p)
	}
	if pts := e.State().Points().Points(stream, unit); len(pts) != 1 || !pts[0].Exact {
		t.Errorf("round 2 change points %+v, want one exact point", pts)
	}
	fail2 := sum(s2, "doris_fe_ivm_refresh_failures_total")
	tasks2 := sum(s2, "doris_fe_ivm_refresh_tasks_total")
	if fail2 != 1 || tasks2 != 1 {
		t.Errorf("round 2: failures %v, tasks %v; want the one new failed task counted once (the baseline of round 1 not counted)", fail2, tasks2)
	}

	// Round 3: the consumer reached the new end: caught up, 0, and the
	// caught-up partition keeps no point. The failed task is still in
	// tasks(): it is not counted again.
	clock.Advance(interval)
	emu.SetSnapshot(stage(t, base, 2*interval, func(s *snapshot.Snapshot, now int64) {
		end1 := tsoAt(t, t0+10_000)
		setRow(t, s, stream, unit, end1, end1)
		setPartition(t, s, "orders", unit, version0+1, t0+10_000)
		s.Tasks = append(s.Tasks, stageTasks(t, failed, now)...)
	}))
	mustRound(t, e)
	s3, _ := gather(t, e)
	if age3 := s3.get(t, "doris_fe_changelog_stream_pending_age_seconds", "stream_name=s_orders_cdc"); age3 != 0 {
		t.Errorf("round 3 pending age %v, want 0 (caught up)", age3)
	}
	if pts := e.State().Points().Points(stream, unit); len(pts) != 0 {
		t.Errorf("round 3: a caught-up partition keeps %d points, want none", len(pts))
	}
	if f := sum(s3, "doris_fe_ivm_refresh_failures_total"); f != fail2 {
		t.Errorf("round 3 failures %v, want %v: a task counts once, by task ID", f, fail2)
	}
	if code, _ := get(t, srv.URL+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after a round: %d, want 200", code)
	}

	// Rounds 4 and 5 fail: the FE is gone. The last result stays served,
	// the failures are counted, and after two failed intervals /readyz is
	// unready while /healthz stays alive.
	emu.Close()
	for i := 0; i < 2; i++ {
		clock.Advance(interval + time.Second)
		if err := e.Round(context.Background()); err == nil {
			t.Fatal("a round against a closed FE succeeded")
		}
	}
	s5, _ := gather(t, e)
	if f := s5.get(t, "doris_fe_changelog_ivm_monitor_sample_failures_total"); f != 2 {
		t.Errorf("sample_failures_total %v, want 2", f)
	}
	if f := s5.get(t, "dorisdiag_exporter_round_failures_total"); f != 2 {
		t.Errorf("dorisdiag_exporter_round_failures_total %v, want 2", f)
	}
	if s5.get(t, "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds") != s3.get(t, "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds") {
		t.Error("a failed round changed the last sample time: the last result must stay")
	}
	if age := s5.get(t, "doris_fe_changelog_stream_pending_age_seconds", "stream_name=s_orders_cdc"); age != 0 {
		t.Errorf("after failed rounds the pending age is %v, want the last result's 0", age)
	}
	for k, v := range s3 {
		if strings.HasSuffix(strings.SplitN(k, "{", 2)[0], "_total") && !strings.HasPrefix(k, "go_") && !strings.HasPrefix(k, "process_") && s5[k] < v {
			t.Errorf("counter %s went back: %v → %v", k, v, s5[k])
		}
	}
	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "last error") {
		t.Errorf("/readyz after two failed intervals: %d %q, want 503 naming the last error", code, body)
	}
	if code, _ := get(t, srv.URL+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d, want 200", code)
	}
}

// stageTasks keeps the failed task of round 2 in the window.
func stageTasks(t testing.TB, failed snapshot.Task, now int64) []snapshot.Task {
	f := failed
	f.TaskID, f.Status, f.ErrorMsg = 1764400999001, "FAILED", "errCode = 2, detailMessage = execution failed"
	c, st, fin, dur := now-24_000, now-23_000, now-19_000, int64(4_000)
	f.CreateTimeMs, f.StartTimeMs, f.FinishTimeMs, f.DurationMs = &c, &st, &fin, &dur
	return []snapshot.Task{f}
}

func partitionPrecision(t testing.TB, e *exporter.Exporter, stream int64, unit string) diag.Precision {
	t.Helper()
	r := e.Last()
	for _, s := range r.Check.Streams.Streams {
		if s.ID != stream {
			continue
		}
		for _, p := range s.Partitions {
			if p.Unit == unit {
				return p.PendingAge.Precision
			}
		}
	}
	t.Fatalf("no partition %d/%s", stream, unit)
	return ""
}

func sum(s series, name string) float64 {
	v := 0.0
	for k, x := range s {
		if strings.HasPrefix(k, name+"{") || k == name {
			v += x
		}
	}
	return v
}

func mustHandler(t testing.TB, e *exporter.Exporter) http.Handler {
	t.Helper()
	h, err := e.Handler()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
