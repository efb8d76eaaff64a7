package mv

import (
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

func mvCodesOf(r *Result, name string) map[string]diag.Finding {
	m := map[string]diag.Finding{}
	for _, f := range r.Findings {
		if f.Object.Kind == "mv" && f.Object.Name == name {
			m[f.Code.String()] = f
		}
	}
	return m
}

func analyzeMVs(t *testing.T, s *snapshot.Snapshot) *Result {
	t.Helper()
	return Analyze([]*snapshot.Snapshot{diagtest.Norm(s)}, nil, Options{})
}

func TestMVFreshnessStates(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day).Table("demo", "customers", "UNIQUE_KEYS", &diagtest.Day)
	b.MV(1, "mv_fresh", diagtest.IncrCommit, "orders", 7, 0)
	b.Task(1, "mv_fresh", 11, "SUCCESS", 10*time.Minute)
	b.MV(2, "mv_lag", diagtest.IncrCommit, "orders", 7, 12*time.Minute)
	b.Task(2, "mv_lag", 21, "SUCCESS", 20*time.Minute)
	// unknown: IvmBaseTableStreams names customers, no stream follows it.
	m := b.MV(3, "mv_missing", diagtest.IncrCommit, "orders", 7, 0)
	m.IvmBaseTableStreams = `{"demo.orders":"` + doris.IvmStreamName("mv_missing", 3, 7) + `","demo.customers":"` + doris.IvmStreamName("mv_missing", 3, 8) + `"}`
	// unknown: an offset that cannot be read.
	b.MV(4, "mv_unreadable", diagtest.IncrCommit, "", 0, 0)
	b.Stream(49, doris.IvmStreamName("mv_unreadable", 4, 7), "DETAIL", "orders")
	b.Cons(49, doris.IvmStreamName("mv_unreadable", 4, 7), "p1", nil, "N/A").ConsumptionStatus = "garbage"
	// initializing.
	mi := b.MV(5, "mv_init", "BUILD DEFERRED REFRESH INCREMENTAL ON MANUAL", "orders", 7, 0)
	mi.RefreshState = "INIT"
	// rebuild_required, from the server.
	b.MV(6, "mv_dirty", diagtest.IncrCommit, "orders", 7, 0)
	b.S.MVStatus = append(b.S.MVStatus, snapshot.MVStatus{DB: "demo", MVName: "mv_dirty", MVID: 6, FreshnessState: "REBUILD_REQUIRED",
		DataDelaySeconds: f64(900), DelayPrecision: "PRECISE", LaggingReason: "REBUILD_REQUIRED", DirtyPartitions: "p20261130", SampleTimeMs: diagtest.MsAgo(10 * time.Second)})
	// not an IVM MV: left out and counted.
	b.S.MVs = append(b.S.MVs, snapshot.MVInfo{ID: 9, DB: "demo", Name: "mv_async", RefreshInfo: "BUILD IMMEDIATE REFRESH COMPLETE ON MANUAL"})

	r := analyzeMVs(t, b.S)
	want := map[string]FreshnessState{"mv_fresh": FreshFresh, "mv_lag": FreshLagging, "mv_missing": FreshUnknown, "mv_unreadable": FreshUnknown,
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
	if lag.DataDelay.Seconds == nil || *lag.DataDelay.Seconds != 720 || lag.DataDelay.Precision != diag.PrecisionUpperBound {
		t.Errorf("mv_lag delay %s, want ≤ 12m UPPER_BOUND", diag.ValueText(lag.DataDelay))
	}
	if lag.Dependencies[0].WorstPartition != "p1" || lag.Dependencies[0].Covered == nil || *lag.Dependencies[0].Covered {
		t.Errorf("mv_lag dependency %+v", lag.Dependencies[0])
	}
	if _, ok := mvCodesOf(r, "mv_lag")["MV_DELAY_HIGH"]; !ok {
		t.Error("mv_lag: no MV_DELAY_HIGH")
	}
	if f := r.ByName("demo", "mv_fresh"); f.DataDelay.Get(-1) != 0 || f.LaggingReason != ReasonNone || len(mvCodesOf(r, "mv_fresh")) != 0 {
		t.Errorf("mv_fresh: delay %s reason %s findings %v", diag.ValueText(f.DataDelay), f.LaggingReason, mvCodesOf(r, "mv_fresh"))
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
	if _, ok := mvCodesOf(r, "mv_dirty")["MV_REBUILD_REQUIRED"]; !ok || d.StateSource != diag.SourceServer || d.ClientState != FreshFresh {
		t.Errorf("mv_dirty: %v source %s client %s", mvCodesOf(r, "mv_dirty"), d.StateSource, d.ClientState)
	}
	if !strings.Contains(r.ByName("demo", "mv_lag").Undetectable[0], "ivm_mv_status") {
		t.Errorf("legacy build: undetectable not said: %v", r.ByName("demo", "mv_lag").Undetectable)
	}
}

func TestMVLaggingReasons(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	b.MV(1, "mv_running", diagtest.IncrCommit, "orders", 7, 10*time.Minute)
	b.Task(1, "mv_running", 11, "RUNNING", 2*time.Hour)
	b.MV(2, "mv_queued", diagtest.IncrCommit, "orders", 7, 10*time.Minute)
	b.Task(2, "mv_queued", 21, "PENDING", 20*time.Minute)
	b.MV(3, "mv_failed", diagtest.IncrCommit, "orders", 7, 10*time.Minute)
	b.Task(3, "mv_failed", 31, "FAILED", 5*time.Minute)
	b.MV(4, "mv_paused", diagtest.IncrCommit, "orders", 7, 10*time.Minute)
	b.S.Jobs[len(b.S.Jobs)-1].Status = "PAUSED"
	b.MV(5, "mv_sched", "BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 1 HOUR", "orders", 7, 10*time.Minute)
	b.MV(6, "mv_trigger", diagtest.IncrCommit, "orders", 7, 10*time.Minute)
	b.MV(7, "mv_fresh", diagtest.IncrCommit, "orders", 7, 0)
	b.MV(8, "mv_publishing", diagtest.IncrCommit, "orders", 7, 0)
	b.S.MVStatus = append(b.S.MVStatus, snapshot.MVStatus{DB: "demo", MVName: "mv_publishing", MVID: 8, FreshnessState: "LAGGING",
		DataDelaySeconds: f64(20), DelayPrecision: "PRECISE", LaggingReason: "PUBLISHING"})
	r := analyzeMVs(t, b.S)
	for n, want := range map[string]LaggingReason{"mv_running": ReasonRunning, "mv_queued": ReasonQueued, "mv_failed": ReasonRefreshFailed,
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
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day).Table("demo", "customers", "UNIQUE_KEYS", &diagtest.Day).
		Table("demo", "payments", "UNIQUE_KEYS", &diagtest.Day).Table("demo", "events", "DUP_KEYS", i64(3600)).Table("demo", "products", "UNIQUE_KEYS", &diagtest.Day)
	// Four failures in a row, 12 minutes behind.
	b.MV(1, "mv_orders_daily", diagtest.IncrCommit, "orders", 7, 12*time.Minute)
	b.Task(1, "mv_orders_daily", 10, "SUCCESS", 30*time.Minute)
	for i := 1; i <= 4; i++ {
		b.Task(1, "mv_orders_daily", int64(10+i), "FAILED", time.Duration(25-5*i)*time.Minute).ErrorMsg = "errCode = 2, detailMessage = execution failed: Memory limit exceeded"
	}
	// Idle internal stream out of the retention: the next refresh recomputes.
	b.MV(2, "mv_customer_ltv", diagtest.IncrCommit, "", 0, 0)
	b.Stream(28, doris.IvmStreamName("mv_customer_ltv", 2, 8), "DETAIL", "customers")
	b.Cons(28, doris.IvmStreamName("mv_customer_ltv", 2, 8), "p1", diagtest.TP(diagtest.TSOAgo(30*time.Hour)), "0")
	// Expired internal stream, refreshes fail with CHANGELOG_BROKEN.
	b.MV(3, "mv_payments_rollup", diagtest.IncrCommit, "payments", 9, 26*time.Hour)
	for i := 1; i <= 3; i++ {
		b.Task(3, "mv_payments_rollup", int64(30+i), "FAILED", time.Duration(40-10*i)*time.Minute).ErrorMsg = "Row changelog offset has expired according to changelog.ttl_seconds"
	}
	// Five fallbacks in the hour.
	b.MV(4, "mv_revenue", diagtest.IncrCommit, "orders", 7, 0)
	for i := 1; i <= 5; i++ {
		tk := b.Task(4, "mv_revenue", int64(40+i), "SUCCESS", time.Duration(55-10*i)*time.Minute)
		tk.RefreshMode, tk.IvmFallbackReason = "COMPLETE", "AGG_UNSUPPORTED"
	}
	// Excluded trigger table changed after the last refresh.
	pm := b.MV(5, "mv_product_sales", diagtest.IncrCommit, "orders", 7, 0)
	pm.MvProperties = "{excluded_trigger_tables=products}"
	b.Task(5, "mv_product_sales", 51, "SUCCESS", time.Hour)
	b.S.Partitions = append(b.S.Partitions, snapshot.Partition{DB: "demo", Table: "products", Name: "products", VisibleTimeMs: diagtest.MsAgo(20 * time.Minute)})
	// T11: a no-offset partition of a duplicate-key table with old rows.
	b.MV(6, "mv_events_hourly", diagtest.IncrCommit, "events", 5, 0)
	b.Cons(65, doris.IvmStreamName("mv_events_hourly", 6, 5), "p_old", nil, "N/A")
	b.S.Partitions = append(b.S.Partitions, snapshot.Partition{DB: "demo", Table: "events", Name: "p_old", VisibleTimeMs: diagtest.MsAgo(3 * time.Hour), CreateTimeMs: diagtest.MsAgo(5 * time.Hour)})

	r := analyzeMVs(t, b.S)
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
		t.Errorf("excluded table counted in the delay: %s %+v", diag.ValueText(ps.DataDelay), ps.Dependencies)
	}
	if r.ByName("demo", "mv_customer_ltv").FreshnessState != FreshFresh {
		t.Errorf("idle caught-up internal stream: %s", r.ByName("demo", "mv_customer_ltv").FreshnessState)
	}
}

func TestMVServerCrossCheck(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	b.MV(1, "mv_a", diagtest.IncrCommit, "orders", 7, 12*time.Minute)
	b.MV(2, "mv_b", diagtest.IncrCommit, "orders", 7, 12*time.Minute)
	b.S.MVStatus = []snapshot.MVStatus{
		{DB: "demo", MVName: "mv_a", MVID: 1, FreshnessState: "LAGGING", DataDelaySeconds: f64(700), DelayPrecision: "PRECISE", LaggingReason: "WAITING_TRIGGER", SampleTimeMs: diagtest.MsAgo(5 * time.Second)},
		{DB: "demo", MVName: "mv_b", MVID: 2, FreshnessState: "LAGGING", DataDelaySeconds: f64(3 * 3600), DelayPrecision: "PRECISE", LaggingReason: "WAITING_TRIGGER", SampleTimeMs: diagtest.MsAgo(5 * time.Second)},
	}
	r := analyzeMVs(t, b.S)
	if _, ok := mvCodesOf(r, "mv_a")["SERVER_CLIENT_MISMATCH"]; ok {
		t.Error("mv_a: 700 s is within the client's ≤ 720 s bound")
	}
	if _, ok := mvCodesOf(r, "mv_b")["SERVER_CLIENT_MISMATCH"]; !ok {
		t.Error("mv_b: 3 h is above the client's ≤ 12 min bound")
	}
	if a := r.ByName("demo", "mv_a"); a.DataDelay.Source != diag.SourceServer || a.DataDelay.Precision != diag.PrecisionPrecise {
		t.Errorf("server value not used: %+v", a.DataDelay)
	}
}

func TestMVEmptyAndNullInput(t *testing.T) {
	if r := Analyze(nil, nil, Options{}); len(r.MVs) != 0 {
		t.Error("empty series")
	}
	b := diagtest.New()
	b.S.MVs = []snapshot.MVInfo{{ID: 1, DB: "demo", Name: "m", RefreshInfo: `\N`, MvProperties: `\N`, IvmBaseTableStreams: `\N`, RefreshState: `\N`}}
	b.S.Tasks = []snapshot.Task{{TaskID: 1, MVID: 1, Status: `\N`, RefreshMode: `\N`, IvmFallbackReason: `\N`, ErrorMsg: `\N`, IvmRefreshMethod: sp(`\N`)}}
	b.S.MVStatus = []snapshot.MVStatus{{DB: "demo", MVName: "m", MVID: 1, FreshnessState: "SOMETHING_NEW", DelayPrecision: `\N`, LaggingReason: `\N`}}
	r := analyzeMVs(t, b.S)
	m := r.ByName("demo", "m")
	if m == nil || m.FreshnessState != "something_new" || m.DataDelay.Precision != diag.PrecisionUnknown {
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

func i64(v int64) *int64 { return &v }
