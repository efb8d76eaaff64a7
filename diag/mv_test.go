package diag

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// ivmName is the internal stream name of doris.md §3.
func ivmName(mv string, mvID, tableID int64) string {
	return doris.IvmStreamName(mv, mvID, tableID)
}

// mvb adds an IVM MV over base table `table` (id tableID) whose internal
// stream is `behind` behind on partition p1 (0 = caught up).
func (b *tb) mv(id int64, name, refresh string, table string, tableID int64, behind time.Duration) *snapshot.MVInfo {
	b.s.MVs = append(b.s.MVs, snapshot.MVInfo{ID: id, DB: "demo", Name: name, JobName: "inner_mtmv_" + strconv.FormatInt(id, 10),
		State: "NORMAL", RefreshState: "SUCCESS", RefreshInfo: refresh})
	b.s.Jobs = append(b.s.Jobs, snapshot.Job{ID: id + 1000, Name: "inner_mtmv_" + strconv.FormatInt(id, 10), MVID: id, MVName: name, MVDatabaseName: "demo", Status: "RUNNING"})
	if table != "" {
		sid := id*10 + tableID
		sn := ivmName(name, id, tableID)
		b.stream(sid, sn, "DETAIL", table)
		if behind > 0 {
			b.cons(sid, sn, "p1", tp(tsoAgo(behind)), lagOf(behind-time.Second))
		} else {
			b.cons(sid, sn, "p1", tp(tsoAgo(time.Minute)), "0")
		}
	}
	return &b.s.MVs[len(b.s.MVs)-1]
}

func (b *tb) task(mvID int64, name string, id int64, status string, ago time.Duration) *snapshot.Task {
	d := int64(2000)
	t := snapshot.Task{TaskID: id, MVID: mvID, MVName: name, MVDatabaseName: "demo", Status: status, CreateTimeMs: mvAgo(ago), StartTimeMs: mvAgo(ago)}
	if status != "RUNNING" && status != "PENDING" {
		t.FinishTimeMs, t.DurationMs = mvAgo(ago-2*time.Second), &d
	}
	b.s.Tasks = append(b.s.Tasks, t)
	return &b.s.Tasks[len(b.s.Tasks)-1]
}

func mvCodesOf(r *MVsResult, name string) map[string]Finding {
	m := map[string]Finding{}
	for _, f := range r.Findings {
		if f.Object.Kind == "mv" && f.Object.Name == name {
			m[f.Code.String()] = f
		}
	}
	return m
}

func analyzeMVs(t *testing.T, s *snapshot.Snapshot) *MVsResult {
	t.Helper()
	return AnalyzeMVs([]*snapshot.Snapshot{norm(s)}, nil, MVOptions{})
}

const incrCommit = "BUILD IMMEDIATE REFRESH INCREMENTAL FALLBACK ON COMMIT"

func TestMVFreshnessStates(t *testing.T) {
	b := newTB().table("demo", "orders", "UNIQUE_KEYS", &day).table("demo", "customers", "UNIQUE_KEYS", &day)
	b.mv(1, "mv_fresh", incrCommit, "orders", 7, 0)
	b.task(1, "mv_fresh", 11, "SUCCESS", 10*time.Minute)
	b.mv(2, "mv_lag", incrCommit, "orders", 7, 12*time.Minute)
	b.task(2, "mv_lag", 21, "SUCCESS", 20*time.Minute)
	// unknown: IvmBaseTableStreams names customers, no stream follows it.
	m := b.mv(3, "mv_missing", incrCommit, "orders", 7, 0)
	m.IvmBaseTableStreams = `{"demo.orders":"` + ivmName("mv_missing", 3, 7) + `","demo.customers":"` + ivmName("mv_missing", 3, 8) + `"}`
	// unknown: an offset that cannot be read.
	b.mv(4, "mv_unreadable", incrCommit, "", 0, 0)
	b.stream(49, ivmName("mv_unreadable", 4, 7), "DETAIL", "orders")
	b.cons(49, ivmName("mv_unreadable", 4, 7), "p1", nil, "N/A").ConsumptionStatus = "garbage"
	// initializing.
	mi := b.mv(5, "mv_init", "BUILD DEFERRED REFRESH INCREMENTAL ON MANUAL", "orders", 7, 0)
	mi.RefreshState = "INIT"
	// rebuild_required, from the server.
	b.mv(6, "mv_dirty", incrCommit, "orders", 7, 0)
	b.s.MVStatus = append(b.s.MVStatus, snapshot.MVStatus{DB: "demo", MVName: "mv_dirty", MVID: 6, FreshnessState: "REBUILD_REQUIRED",
		DataDelaySeconds: f64(900), DelayPrecision: "PRECISE", LaggingReason: "REBUILD_REQUIRED", DirtyPartitions: "p20261130", SampleTimeMs: mvAgo(10 * time.Second)})
	// not an IVM MV: left out and counted.
	b.s.MVs = append(b.s.MVs, snapshot.MVInfo{ID: 9, DB: "demo", Name: "mv_async", RefreshInfo: "BUILD IMMEDIATE REFRESH COMPLETE ON MANUAL"})

	r := analyzeMVs(t, b.s)
	want := map[string]string{"mv_fresh": FreshFresh, "mv_lag": FreshLagging, "mv_missing": FreshUnknown, "mv_unreadable": FreshUnknown,
		"mv_init": FreshInitializing, "mv_dirty": FreshRebuildRequired}
	for n, st := range want {
		m := r.ByName("demo", n)
		if m == nil {
			t.Fatalf("%s missing", n)
		}
		if m.FreshnessState != st {
			t.Errorf("%s: state %s (%s), want %s", n, m.FreshnessState, m.StateReason, st)
		}
	}
	if r.NotIVM != 1 || r.ByName("demo", "mv_async") != nil {
		t.Errorf("not IVM: %d", r.NotIVM)
	}
	lag := r.ByName("demo", "mv_lag")
	if lag.DataDelay.Seconds == nil || *lag.DataDelay.Seconds != 720 || lag.DataDelay.Precision != PrecisionUpperBound {
		t.Errorf("mv_lag delay %s, want ≤ 12m UPPER_BOUND", valueText(lag.DataDelay))
	}
	if lag.Dependencies[0].WorstPartition != "p1" || lag.Dependencies[0].Covered == nil || *lag.Dependencies[0].Covered {
		t.Errorf("mv_lag dependency %+v", lag.Dependencies[0])
	}
	if _, ok := mvCodesOf(r, "mv_lag")["MV_DELAY_HIGH"]; !ok {
		t.Error("mv_lag: no MV_DELAY_HIGH")
	}
	if f := r.ByName("demo", "mv_fresh"); f.DataDelay.Get(-1) != 0 || f.LaggingReason != ReasonNone || len(mvCodesOf(r, "mv_fresh")) != 0 {
		t.Errorf("mv_fresh: delay %s reason %s findings %v", valueText(f.DataDelay), f.LaggingReason, mvCodesOf(r, "mv_fresh"))
	}
	if _, ok := mvCodesOf(r, "mv_missing")["MV_INTERNAL_STREAM_MISSING"]; !ok {
		t.Error("mv_missing: no MV_INTERNAL_STREAM_MISSING")
	}
	if _, ok := mvCodesOf(r, "mv_unreadable")["MV_STATE_UNKNOWN"]; !ok {
		t.Error("mv_unreadable: no MV_STATE_UNKNOWN")
	}
	if _, ok := mvCodesOf(r, "mv_init")["MV_INITIALIZING"]; !ok {
		t.Error("mv_init: no MV_INITIALIZING")
	}
	d := r.ByName("demo", "mv_dirty")
	if _, ok := mvCodesOf(r, "mv_dirty")["MV_REBUILD_REQUIRED"]; !ok || d.StateSource != SourceServer || d.ClientState != FreshFresh {
		t.Errorf("mv_dirty: %v source %s client %s", mvCodesOf(r, "mv_dirty"), d.StateSource, d.ClientState)
	}
	if !strings.Contains(r.ByName("demo", "mv_lag").Undetectable[0], "ivm_mv_status") {
		t.Errorf("legacy build: undetectable not said: %v", r.ByName("demo", "mv_lag").Undetectable)
	}
}

func TestMVLaggingReasons(t *testing.T) {
	b := newTB().table("demo", "orders", "UNIQUE_KEYS", &day)
	b.mv(1, "mv_running", incrCommit, "orders", 7, 10*time.Minute)
	b.task(1, "mv_running", 11, "RUNNING", 2*time.Hour)
	b.mv(2, "mv_queued", incrCommit, "orders", 7, 10*time.Minute)
	b.task(2, "mv_queued", 21, "PENDING", 20*time.Minute)
	b.mv(3, "mv_failed", incrCommit, "orders", 7, 10*time.Minute)
	b.task(3, "mv_failed", 31, "FAILED", 5*time.Minute)
	b.mv(4, "mv_paused", incrCommit, "orders", 7, 10*time.Minute)
	b.s.Jobs[len(b.s.Jobs)-1].Status = "PAUSED"
	b.mv(5, "mv_sched", "BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 1 HOUR", "orders", 7, 10*time.Minute)
	b.mv(6, "mv_trigger", incrCommit, "orders", 7, 10*time.Minute)
	b.mv(7, "mv_fresh", incrCommit, "orders", 7, 0)
	b.mv(8, "mv_publishing", incrCommit, "orders", 7, 0)
	b.s.MVStatus = append(b.s.MVStatus, snapshot.MVStatus{DB: "demo", MVName: "mv_publishing", MVID: 8, FreshnessState: "LAGGING",
		DataDelaySeconds: f64(20), DelayPrecision: "PRECISE", LaggingReason: "PUBLISHING"})
	r := analyzeMVs(t, b.s)
	for n, want := range map[string]string{"mv_running": ReasonRunning, "mv_queued": ReasonQueued, "mv_failed": ReasonRefreshFailed,
		"mv_paused": ReasonJobPaused, "mv_sched": ReasonWaitingSchedule, "mv_trigger": ReasonWaitingTrigger, "mv_fresh": ReasonNone,
		"mv_publishing": ReasonPublishing} {
		if got := r.ByName("demo", n).LaggingReason; got != want {
			t.Errorf("%s: lagging reason %s, want %s", n, got, want)
		}
	}
	for n, code := range map[string]string{"mv_running": "MV_TASK_STUCK_RUNNING", "mv_queued": "MV_TASK_QUEUED_LONG", "mv_paused": "MV_JOB_PAUSED"} {
		if _, ok := mvCodesOf(r, n)[code]; !ok {
			t.Errorf("%s: no %s in %v", n, code, mvCodesOf(r, n))
		}
	}
	if _, ok := mvCodesOf(r, "mv_publishing")["SERVER_CLIENT_MISMATCH"]; ok {
		t.Error("PUBLISHING: the client cannot see it, no mismatch expected")
	}
}

func TestMVCauses(t *testing.T) {
	b := newTB().table("demo", "orders", "UNIQUE_KEYS", &day).table("demo", "customers", "UNIQUE_KEYS", &day).
		table("demo", "payments", "UNIQUE_KEYS", &day).table("demo", "events", "DUP_KEYS", i64(3600)).table("demo", "products", "UNIQUE_KEYS", &day)
	// Four failures in a row, 12 minutes behind.
	b.mv(1, "mv_orders_daily", incrCommit, "orders", 7, 12*time.Minute)
	b.task(1, "mv_orders_daily", 10, "SUCCESS", 30*time.Minute)
	for i := 1; i <= 4; i++ {
		b.task(1, "mv_orders_daily", int64(10+i), "FAILED", time.Duration(25-5*i)*time.Minute).ErrorMsg = "errCode = 2, detailMessage = execution failed: Memory limit exceeded"
	}
	// Idle internal stream out of the retention: the next refresh recomputes.
	b.mv(2, "mv_customer_ltv", incrCommit, "", 0, 0)
	b.stream(28, ivmName("mv_customer_ltv", 2, 8), "DETAIL", "customers")
	b.cons(28, ivmName("mv_customer_ltv", 2, 8), "p1", tp(tsoAgo(30*time.Hour)), "0")
	// Expired internal stream, refreshes fail with CHANGELOG_BROKEN.
	b.mv(3, "mv_payments_rollup", incrCommit, "payments", 9, 26*time.Hour)
	for i := 1; i <= 3; i++ {
		b.task(3, "mv_payments_rollup", int64(30+i), "FAILED", time.Duration(40-10*i)*time.Minute).ErrorMsg = "Row changelog offset has expired according to changelog.ttl_seconds"
	}
	// Five fallbacks in the hour.
	b.mv(4, "mv_revenue", incrCommit, "orders", 7, 0)
	for i := 1; i <= 5; i++ {
		tk := b.task(4, "mv_revenue", int64(40+i), "SUCCESS", time.Duration(55-10*i)*time.Minute)
		tk.RefreshMode, tk.IvmFallbackReason = "COMPLETE", "AGG_UNSUPPORTED"
	}
	// Excluded trigger table changed after the last refresh.
	pm := b.mv(5, "mv_product_sales", incrCommit, "orders", 7, 0)
	pm.MvProperties = "{excluded_trigger_tables=products}"
	b.task(5, "mv_product_sales", 51, "SUCCESS", time.Hour)
	b.s.Partitions = append(b.s.Partitions, snapshot.Partition{DB: "demo", Table: "products", Name: "products", VisibleTimeMs: mvAgo(20 * time.Minute)})
	// T11: a no-offset partition of a duplicate-key table with old rows.
	b.mv(6, "mv_events_hourly", incrCommit, "events", 5, 0)
	b.cons(65, ivmName("mv_events_hourly", 6, 5), "p_old", nil, "N/A")
	b.s.Partitions = append(b.s.Partitions, snapshot.Partition{DB: "demo", Table: "events", Name: "p_old", VisibleTimeMs: mvAgo(3 * time.Hour), CreateTimeMs: mvAgo(5 * time.Hour)})

	r := analyzeMVs(t, b.s)
	for n, code := range map[string]string{"mv_orders_daily": "MV_CONSECUTIVE_FAILURES", "mv_customer_ltv": "MV_NEXT_REFRESH_RECOMPUTES",
		"mv_payments_rollup": "MV_CHANGELOG_BROKEN", "mv_revenue": "MV_FALLBACKS_REPEATED", "mv_product_sales": "MV_EXCLUDED_DEPENDENCY_OUTDATED",
		"mv_events_hourly": "MV_ROWS_MAY_BE_MISSED"} {
		fs := r.FindingsFor("demo", n)
		if len(fs) == 0 || fs[0].Code.String() != code {
			got := []string{}
			for _, f := range fs {
				got = append(got, f.Code.String())
			}
			t.Errorf("%s: first cause %v, want %s first", n, got, code)
			continue
		}
		m := r.ByName("demo", n)
		if !strings.Contains(m.Headline, fs[0].Summary) {
			t.Errorf("%s: headline %q does not name the cause %q", n, m.Headline, fs[0].Summary)
		}
		if len(m.Next) == 0 {
			t.Errorf("%s: no next SQL", n)
		}
	}
	od := r.ByName("demo", "mv_orders_daily")
	if !strings.HasPrefix(od.Headline, "≤ 12m00s (UPPER_BOUND) behind because base table demo.orders partition p1") {
		t.Errorf("headline %q", od.Headline)
	}
	if _, ok := mvCodesOf(r, "mv_orders_daily")["MV_DELAY_HIGH"]; !ok {
		t.Error("mv_orders_daily: no MV_DELAY_HIGH")
	}
	if _, ok := mvCodesOf(r, "mv_payments_rollup")["MV_NEXT_REFRESH_RECOMPUTES"]; ok {
		t.Error("mv_payments_rollup: CHANGELOG_BROKEN already explains it; no NEXT_REFRESH_RECOMPUTES")
	}
	ps := r.ByName("demo", "mv_product_sales")
	if ps.DataDelay.Get(-1) != 0 || len(ps.Dependencies) != 2 || !ps.Dependencies[1].Excluded {
		t.Errorf("excluded table counted in the delay: %s %+v", valueText(ps.DataDelay), ps.Dependencies)
	}
	if r.ByName("demo", "mv_customer_ltv").FreshnessState != FreshFresh {
		t.Errorf("idle caught-up internal stream: %s", r.ByName("demo", "mv_customer_ltv").FreshnessState)
	}
}

func TestMVServerCrossCheck(t *testing.T) {
	b := newTB().table("demo", "orders", "UNIQUE_KEYS", &day)
	b.mv(1, "mv_a", incrCommit, "orders", 7, 12*time.Minute)
	b.mv(2, "mv_b", incrCommit, "orders", 7, 12*time.Minute)
	b.s.MVStatus = []snapshot.MVStatus{
		{DB: "demo", MVName: "mv_a", MVID: 1, FreshnessState: "LAGGING", DataDelaySeconds: f64(700), DelayPrecision: "PRECISE", LaggingReason: "WAITING_TRIGGER", SampleTimeMs: mvAgo(5 * time.Second)},
		{DB: "demo", MVName: "mv_b", MVID: 2, FreshnessState: "LAGGING", DataDelaySeconds: f64(3 * 3600), DelayPrecision: "PRECISE", LaggingReason: "WAITING_TRIGGER", SampleTimeMs: mvAgo(5 * time.Second)},
	}
	r := analyzeMVs(t, b.s)
	if _, ok := mvCodesOf(r, "mv_a")["SERVER_CLIENT_MISMATCH"]; ok {
		t.Error("mv_a: 700 s is within the client's ≤ 720 s bound")
	}
	if _, ok := mvCodesOf(r, "mv_b")["SERVER_CLIENT_MISMATCH"]; !ok {
		t.Error("mv_b: 3 h is above the client's ≤ 12 min bound")
	}
	if a := r.ByName("demo", "mv_a"); a.DataDelay.Source != SourceServer || a.DataDelay.Precision != PrecisionPrecise {
		t.Errorf("server value not used: %+v", a.DataDelay)
	}
}

func TestMVEmptyAndNullInput(t *testing.T) {
	if r := AnalyzeMVs(nil, nil, MVOptions{}); len(r.MVs) != 0 {
		t.Error("empty series")
	}
	b := newTB()
	b.s.MVs = []snapshot.MVInfo{{ID: 1, DB: "demo", Name: "m", RefreshInfo: `\N`, MvProperties: `\N`, IvmBaseTableStreams: `\N`, RefreshState: `\N`}}
	b.s.Tasks = []snapshot.Task{{TaskID: 1, MVID: 1, Status: `\N`, RefreshMode: `\N`, IvmFallbackReason: `\N`, ErrorMsg: `\N`, IvmRefreshMethod: sp(`\N`)}}
	b.s.MVStatus = []snapshot.MVStatus{{DB: "demo", MVName: "m", MVID: 1, FreshnessState: "SOMETHING_NEW", DelayPrecision: `\N`, LaggingReason: `\N`}}
	r := analyzeMVs(t, b.s)
	m := r.ByName("demo", "m")
	if m == nil || m.FreshnessState != "something_new" || m.DataDelay.Precision != PrecisionUnknown {
		t.Fatalf("unknown server state kept as data: %+v", m)
	}
	if _, ok := mvCodesOf(r, "m")["MV_STATE_UNKNOWN"]; !ok {
		t.Error("an unknown server state is MV_STATE_UNKNOWN")
	}
	if m.History.UnknownStatuses != 1 {
		t.Errorf("unknown task status counted: %d", m.History.UnknownStatuses)
	}
	_ = tso.TSO(0)
}
