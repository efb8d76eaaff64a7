package mv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/doris"
)

// The checks of an MV's refreshes (apache/doris#69907 §1 S2, S3): failing,
// paused, stuck or queued, falling back to a rebuild, or about to.

// CodeChangelogBroken: Refreshes fail because an internal stream's offset has expired (T0)
var CodeChangelogBroken = diag.Declare(diag.Declaration{
	Code:      "MV_CHANGELOG_BROKEN",
	Action:    "refresh the MV COMPLETE",
	Severity:  diag.SeverityCritical,
	Impact:    diag.ImpactBroken,
	Place:     1,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Series:    "doris_fe_ivm_refresh_failures_total{reason=\"changelog_broken\"}",
	Alert:     "DorisIvmRefreshFailures",
	Title:     "Refreshes fail because an internal stream's offset has expired",
	Spec:      "apache/doris#69907 §1 T0; §3 failure reason CHANGELOG_BROKEN (BINLOG_BROKEN on earlier builds)",
	Meaning: "The latest failed refresh failed on an expired offset: CHANGELOG_BROKEN, or the error \"offset has expired according to binlog.ttl_seconds\" (reason BINLOG_BROKEN): " +
		"the changelog TTL expired changes the MV's internal stream still needed. IvmFallbackReason BINLOG_BROKEN without that error is a broken IVM baseline, not an expired TTL (MV_IVM_BASELINE_BROKEN). On builds " +
		"without the fallback to COMPLETE for an expired offset (apache/doris#69907 T0) every later refresh fails too, even one allowed to fall back, until a manual COMPLETE refresh.",
	Matters: "The MV stops being maintained: it stays at its last good data.",
	Confirm: "SELECT TaskId, Status, ErrorMsg, IvmFallbackReason FROM tasks(\"type\" = \"mv\") WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 5;\n" +
		"dorisdiag mv explain <db>.<mv>  # the dependency whose internal stream cannot resume",
	Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE; then keep refreshes within the TTL, or raise changelog.ttl_seconds on the base table. Upgrade to a build that falls back to COMPLETE when an IVM stream offset has expired (apache/doris#69907 T0).",
	Related: []string{"MV_CONSECUTIVE_FAILURES", "MV_NEXT_REFRESH_RECOMPUTES", "STREAM_CANNOT_RESUME_REJECTED", "MV_IVM_BASELINE_BROKEN"},
})

// checkMVChangelogBroken (T0): refreshes fail because an internal stream expired.
func checkMVChangelogBroken(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	if !m.changelogBroken {
		return nil
	}
	r, h := m.r, m.h
	reason := h.LastFailure.FailureReason
	if r.Server != nil && refresh.IsChangelogBroken(r.Server.LastFailureReason) {
		reason = refresh.FailureReason(strings.ToUpper(r.Server.LastFailureReason))
	}
	dep := r.expiredTrigger()
	where := ""
	evd := m.ev("failure_reason", string(reason), "last_error", errorGist(h.LastFailure.ErrorMsg, 200), "task_id", strconv.FormatInt(h.LastFailure.TaskID, 10))
	if dep != nil {
		where = fmt.Sprintf(" on base table %s.%s", dep.BaseTableDB, dep.BaseTableName)
		evd["base_table"] = dep.BaseTableDB + "." + dep.BaseTableName
		evd["stream"] = dep.StreamName
		if dep.HeadroomSeconds != nil {
			evd["headroom_seconds"] = fmtFloat(*dep.HeadroomSeconds)
		}
	}
	var headroom *float64
	if dep != nil {
		headroom = dep.HeadroomSeconds
	}
	return m.measured(headroom, m.one(CodeChangelogBroken, fmt.Sprintf("refreshes fail with %s: the internal stream%s expired", reason, where),
		fmt.Sprintf("The latest refresh (task %d) failed with %s%s. The changelog TTL expired changes the internal stream still needed; on builds without the fallback to COMPLETE for an expired offset (apache/doris#69907 T0) every refresh fails until a manual COMPLETE refresh.",
			h.LastFailure.TaskID, reason, ifText(h.LastFailure.ErrorMsg != "", ": "+errorGist(h.LastFailure.ErrorMsg, 200))),
		evd, doris.RefreshMV(r.DB, r.Name, "COMPLETE")))
}

// CodeJobPaused: The MV's refresh job is paused
var CodeJobPaused = diag.Declare(diag.Declaration{
	Code:     "MV_JOB_PAUSED",
	Action:   "resume the MV's refresh job",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactBroken,
	Place:    7,
	Title:    "The MV's refresh job is paused",
	Spec:     "apache/doris#69907 §3 LAGGING_REASON JOB_PAUSED; §2 \"S2 alerts can be silenced while a job is paused on purpose\"",
	Meaning:  "jobs(\"type\"=\"mv\") reports Status PAUSED for the MV's job: no refresh is scheduled or triggered.",
	Matters:  "The MV falls further behind with every base-table change until the job is resumed.",
	Confirm:  "SELECT Id, Name, MvName, Status, ExecuteType, RecurringStrategy FROM jobs(\"type\" = \"mv\") WHERE MvDatabaseName = '<db>' AND MvName = '<mv>';",
	Fix:      "RESUME MATERIALIZED VIEW JOB ON <db>.<mv>; (if the pause was not on purpose).",
	Related:  []string{"MV_DELAY_HIGH"},
})

func checkMVJobPaused(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	if !strings.EqualFold(r.JobStatus, "PAUSED") {
		return nil
	}
	return m.one(CodeJobPaused, "the refresh job "+mvOrNone(r.JobName)+" is paused", "jobs(\"type\"=\"mv\") Status PAUSED: no refresh runs; the MV is "+diag.ValueText(r.DataDelay)+" behind.",
		m.ev("job", r.JobName, "job_status", r.JobStatus, "data_delay", diag.ValueText(r.DataDelay)),
		doris.ResumeMVJob(r.DB, r.Name))
}

// CodeTaskStuckRunning: A refresh task has been running longer than --max-running
var CodeTaskStuckRunning = diag.Declare(diag.Declaration{
	Code:      "MV_TASK_STUCK_RUNNING",
	Action:    "check the task's query profile, or cancel it",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactBroken,
	Place:     8,
	Magnitude: diag.Measure{Name: "running_seconds"},
	Series:    "doris_fe_ivm_task_oldest_running_age_seconds",
	Alert:     "DorisIvmTaskRunningLong",
	Title:     "A refresh task has been running longer than --max-running",
	Spec:      "apache/doris#69907 §1 S2; alert doris_fe_ivm_task_oldest_running_age_seconds > 3600",
	Meaning:   "A task of the MV has Status RUNNING and started more than --max-running (default 1h) ago.",
	Matters:   "At most one task runs per MV: while it runs, further triggers wait or are skipped, and the delay grows.",
	Confirm: "SELECT TaskId, Status, StartTime, Progress, LastQueryId FROM tasks(\"type\" = \"mv\") WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' AND Status = 'RUNNING';\n" +
		"SHOW QUERY PROFILE '/<LastQueryId>';",
	Fix:     "Check the query profile; if it is stuck, CANCEL MATERIALIZED VIEW TASK <TaskId> ON <db>.<mv>; and refresh again.",
	Related: []string{"MV_TASK_QUEUED_LONG", "MV_DELAY_HIGH"},
})

func checkMVTaskStuckRunning(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	t := m.h.Running
	if t == nil || t.AgeSeconds == nil || *t.AgeSeconds <= a.opt.MaxRunning.Seconds() {
		return nil
	}
	return m.measured(t.AgeSeconds, m.one(CodeTaskStuckRunning, fmt.Sprintf("task %d has been running for %s (over %s)", t.TaskID, diag.DurationText(*t.AgeSeconds), diag.DurationText(a.opt.MaxRunning.Seconds())),
		"tasks() Status RUNNING since "+mvTimeText(t.StartTimeMs)+"; query "+mvOrNone(t.LastQueryID)+".",
		m.ev("task_id", strconv.FormatInt(t.TaskID, 10), "running_seconds", fmtFloat(*t.AgeSeconds), "last_query_id", t.LastQueryID),
		doris.Note(doris.ShowQueryProfile(t.LastQueryID), "then, if stuck: "+doris.CancelMVTask(t.TaskID, m.r.DB, m.r.Name))))
}

// CodeTaskQueuedLong: A refresh task has waited in the queue longer than --max-queued
var CodeTaskQueuedLong = diag.Declare(diag.Declaration{
	Code:      "MV_TASK_QUEUED_LONG",
	Action:    "find what occupies the MV task slots",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactBroken,
	Place:     9,
	Magnitude: diag.Measure{Name: "queued_seconds"},
	Series:    "doris_fe_ivm_task_oldest_pending_age_seconds",
	Alert:     "DorisIvmTaskQueuedLong",
	Title:     "A refresh task has waited in the queue longer than --max-queued",
	Spec:      "apache/doris#69907 §1 S2; alert doris_fe_ivm_task_oldest_pending_age_seconds > 600",
	Meaning:   "A task of the MV has Status PENDING and was created more than --max-queued (default 10m) ago.",
	Matters:   "The task queue is saturated or the MV's previous task still runs: the refresh the data needs has not started.",
	Confirm:   "SELECT MvName, TaskId, Status, CreateTime FROM tasks(\"type\" = \"mv\") WHERE Status IN ('PENDING', 'RUNNING') ORDER BY CreateTime;",
	Fix:       "Find what occupies the task slots (long running tasks, many MVs scheduled at once); raise job_mtmv_task_consumer_thread_num or spread the schedules.",
	Related:   []string{"MV_TASK_STUCK_RUNNING", "MV_DELAY_HIGH"},
})

func checkMVTaskQueuedLong(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	t := m.h.OldestPending
	if t == nil || t.AgeSeconds == nil || *t.AgeSeconds <= a.opt.MaxQueued.Seconds() {
		return nil
	}
	return m.measured(t.AgeSeconds, m.one(CodeTaskQueuedLong, fmt.Sprintf("task %d has been queued for %s (over %s)", t.TaskID, diag.DurationText(*t.AgeSeconds), diag.DurationText(a.opt.MaxQueued.Seconds())),
		"tasks() Status PENDING since "+mvTimeText(t.CreateTimeMs)+": the refresh the data needs has not started.",
		m.ev("task_id", strconv.FormatInt(t.TaskID, 10), "queued_seconds", fmtFloat(*t.AgeSeconds)),
		doris.SuggestTaskQueue()))
}

// CodeConsecutiveFailures: The MV's refresh failed several times in a row
var CodeConsecutiveFailures = diag.Declare(diag.Declaration{
	Code:      "MV_CONSECUTIVE_FAILURES",
	Action:    "read the last task errors, fix the cause",
	Severity:  diag.SeverityCritical,
	Impact:    diag.ImpactBroken,
	Place:     4,
	Magnitude: diag.Measure{Name: "consecutive_failures"},
	// Either naming of the expired-offset reason (refresh.IsChangelogBroken),
	// as MV_CHANGELOG_BROKEN itself fires on both; BINLOG_BROKEN without the
	// expired-offset text raises no MV_CHANGELOG_BROKEN to link to.
	CausedBy: []diag.Cause{{Code: "MV_CHANGELOG_BROKEN", If: func(f *diag.Finding) bool { return refresh.IsChangelogBroken(f.Evidence["failure_reason"]) }},
		{Code: "MV_INCR_WINDOW_NOT_READY", If: func(f *diag.Finding) bool { return refresh.FailureReason(f.Evidence["failure_reason"]).IncrWindow() }}},
	Series: "doris_fe_ivm_mv_consecutive_failures",
	Alert:  "DorisIvmMvConsecutiveFailures",
	Title:  "The MV's refresh failed several times in a row",
	Spec:   "apache/doris#69907 §1 S2; §3 \"Refresh result\"; alert doris_fe_ivm_mv_consecutive_failures >= 3",
	Meaning: "At least --max-failures (default 3) refresh tasks failed since the last success or no_change. Canceled tasks leave the count unchanged. From tasks() " +
		"the count is bounded by the task history (\"at least N\" when every task in it failed); ivm_mv_status.CONSECUTIVE_FAILURES is exact.",
	Matters: "Nothing reaches the MV while every refresh fails: its delay grows until someone acts.",
	Confirm: "SELECT TaskId, Status, RefreshMode, IvmRefreshMethod, IvmFallbackReason, DurationMs, ErrorMsg, LastQueryId FROM tasks(\"type\" = \"mv\") " +
		"WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 20;",
	Fix:     "Read the last error and its failure reason; fix the cause (resources, a schema change, an expired stream: MV_CHANGELOG_BROKEN), then REFRESH MATERIALIZED VIEW <db>.<mv> AUTO.",
	Related: []string{"MV_CHANGELOG_BROKEN", "MV_DELAY_HIGH"},
})

// checkMVConsecutiveFailures: the server's persisted summary when present
// (not bounded by the task history), else the window.
func checkMVConsecutiveFailures(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r, h := m.r, m.h
	cf, atLeast, src := h.ConsecutiveFailures, h.ConsecutiveFailuresAtLeast, "tasks() window"
	if r.Server != nil && r.Server.ConsecutiveFailures != nil {
		cf, atLeast, src = int(*r.Server.ConsecutiveFailures), false, "ivm_mv_status"
	}
	if cf < a.opt.MaxFailures {
		return nil
	}
	var reason refresh.FailureReason
	msg := ""
	if h.LastFailure != nil {
		reason, msg = h.LastFailure.FailureReason, h.LastFailure.ErrorMsg
	}
	if r.Server != nil && r.Server.LastFailureReason != "" {
		reason = refresh.FailureReason(strings.ToUpper(r.Server.LastFailureReason))
		if r.Server.LastErrorMessage != "" {
			msg = r.Server.LastErrorMessage
		}
	}
	n := strconv.Itoa(cf)
	count := f64(float64(cf))
	if atLeast {
		n = "at least " + n
		count = nil // a lower bound, not the count
	}
	return m.measured(count, m.one(CodeConsecutiveFailures, fmt.Sprintf("the last %s refreshes failed (%s)%s", n, reason, ifText(strings.TrimSpace(msg) != "", ": "+errorGist(msg, 200))),
		fmt.Sprintf("%s consecutive failures (from %s; --max-failures %d). Last failure reason %s%s.", n, src, a.opt.MaxFailures, reason,
			ifText(h.LastFailure != nil && h.LastFailure.FailureReasonInferred && src != "ivm_mv_status", " (inferred from the error text: tasks() has no failure-reason column)")),
		m.ev("consecutive_failures", n, "source", src, "failure_reason", string(reason), "last_error", errorGist(msg, 200)),
		doris.SuggestMVTasks(r.DB, r.Name, a.caps.IvmRefreshMethod)))
}

// CodeNextRefreshRecomputes: The next refresh can only recompute: an internal stream is out of the retention (T9)
var CodeNextRefreshRecomputes = diag.Declare(diag.Declaration{
	Code:      "MV_NEXT_REFRESH_RECOMPUTES",
	Action:    "refresh the MV now, or raise the TTL",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactBroken,
	Place:     10,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Series:    "doris_fe_changelog_stream_min_retention_headroom_seconds{kind=\"ivm\"}",
	Alert:     "DorisStreamHeadroomLow",
	Title:     "The next refresh can only recompute: an internal stream is out of the retention",
	Spec:      "apache/doris#69907 §1 T9; §3 Definitions (headroom); alert doris_fe_changelog_stream_min_retention_headroom_seconds{kind=\"ivm\"} < 0",
	Meaning: "An internal stream of a trigger dependency has a partition whose retention headroom is below 0: the changes after its offset are (or may be) past the " +
		"TTL, so the next refresh that needs that partition cannot apply a delta and rebuilds the MV. Without the keep-alive TSO for idle IVM partitions (apache/doris#69907 T9) an idle partition drifts out of the " +
		"retention with nothing lost; the refresh after its next write recomputes anyway. " + ttl.BuildsDiffer,
	Matters: "A full recompute where a small delta was expected: a slow, expensive refresh, possibly at a bad time.",
	Confirm: "SELECT UNIT, CONSUMED_TSO, CAN_RESUME, RETENTION_HEADROOM_SECONDS FROM information_schema.table_stream_consumption WHERE STREAM_ID = <internal stream id> ORDER BY RETENTION_HEADROOM_SECONDS;",
	Fix:     "Refresh the MV now (a recompute at a time you choose), raise changelog.ttl_seconds on the base table, or upgrade to a build that keeps idle IVM partitions alive (apache/doris#69907 T9).",
	Related: []string{"IVM_STREAM_RECOMPUTE_ONLY", "MV_FALLBACKS_REPEATED"},
})

// checkMVNextRefreshRecomputes (T9): the next refresh can only recompute.
// Not when refreshes already fail with CHANGELOG_BROKEN: that says more.
func checkMVNextRefreshRecomputes(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	if m.changelogBroken {
		return nil
	}
	d := m.r.lowestHeadroomTrigger()
	if d == nil || d.HeadroomSeconds == nil || *d.HeadroomSeconds >= 0 {
		return nil
	}
	part := d.HeadroomPartition
	return m.measured(d.HeadroomSeconds, m.one(CodeNextRefreshRecomputes, fmt.Sprintf("the next refresh can only recompute: the internal stream on %s.%s is %s past the retention", d.BaseTableDB, d.BaseTableName, diag.DurationText(-*d.HeadroomSeconds)),
		fmt.Sprintf("Retention headroom %s on partition %s of %s: the next refresh after a write to it cannot apply a delta and rebuilds the MV.",
			diag.DurationText(*d.HeadroomSeconds), mvOrNone(part), d.StreamName),
		m.ev("base_table", d.BaseTableDB+"."+d.BaseTableName, "stream", d.StreamName, "partition", part, "headroom_seconds", fmtFloat(*d.HeadroomSeconds)),
		streamNext(d, a.caps.ConsumptionT2)+"\n"+doris.Note(doris.RefreshMV(m.r.DB, m.r.Name, "AUTO"), "recompute now, at a time you choose")))
}

// CodeFallbacksRepeated: Incremental refresh keeps falling back to a rebuild
var CodeFallbacksRepeated = diag.Declare(diag.Declaration{
	Code:      "MV_FALLBACKS_REPEATED",
	Action:    "act on the fallback reason",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactFreshness,
	Place:     3,
	Magnitude: diag.Measure{Name: "fallbacks_in_window"},
	Series:    "doris_fe_ivm_mv_fallbacks_total",
	Alert:     "DorisIvmMvFallbacksRepeated",
	Title:     "Incremental refresh keeps falling back to a rebuild",
	Spec:      "apache/doris#69907 §1 S3; §3 fallback; alert increase(doris_fe_ivm_mv_fallbacks_total[1h]) >= 3",
	Meaning: "At least --min-fallbacks (default 3) tasks in the last --fallback-window (default 1h) planned an incremental refresh, fell back to a partition or " +
		"complete rebuild for an IVM reason, and committed data. Not counted: the first baseline, explicit COMPLETE/PARTITIONS requests, dirty partitions rebuilt " +
		"before the delta (mixed), fallbacks that committed nothing, canceled tasks.",
	Matters: "Every task succeeds, yet each recomputes the MV: refreshes get slower and the cluster busier. The reason says what prevents the delta.",
	Confirm: "SELECT TaskId, Status, RefreshMode, IvmRefreshMethod, IvmFallbackReason, IvmRebuiltPartitions, DurationMs FROM tasks(\"type\" = \"mv\") " +
		"WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 20;",
	Fix: "Act on the fallback reason: CHANGELOG_BROKEN (refresh within the TTL), AGG_UNSUPPORTED / PLAN_PATTERN_UNSUPPORTED (rewrite the query), " +
		"MIN_MAX_BOUNDARY_HIT (expected for MIN/MAX under deletes), PREVIOUS_RUN_INCOMPLETE (a failed run before).",
	Related: []string{"MV_NEXT_REFRESH_RECOMPUTES", "MV_CHANGELOG_BROKEN"},
})

// checkMVFallbacksRepeated (S3).
func checkMVFallbacksRepeated(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	h := m.h
	if h.FallbacksInWindow < a.opt.MinFallbacks {
		return nil
	}
	reasons := reasonsText(h.FallbackReasons)
	share := ""
	if h.RecomputeShare != nil {
		share = fmt.Sprintf("; %d of the last %d data refreshes recomputed", h.RecomputeTasks, h.DataTasks)
	}
	trend := ""
	if h.DurationTrend.Direction == "rising" {
		trend = fmt.Sprintf("; refreshes got %.1f× slower", h.DurationTrend.Ratio)
	}
	return m.measured(f64(float64(h.FallbacksInWindow)), m.one(CodeFallbacksRepeated, fmt.Sprintf("%d fallbacks in the last %s (%s)", h.FallbacksInWindow, diag.DurationText(a.opt.FallbackWindow.Seconds()), reasons),
		"Tasks planned an incremental refresh, fell back to a rebuild for an IVM reason and committed data"+share+trend+
			ifText(!a.caps.IvmRefreshMethod, " (method inferred from RefreshMode: this build has no IvmRefreshMethod)")+".",
		m.ev("fallbacks_in_window", strconv.Itoa(h.FallbacksInWindow), "reasons", reasons, "recompute_share", shareText(h.RecomputeShare), "duration_trend", h.DurationTrend.Direction),
		doris.SuggestMVTasks(m.r.DB, m.r.Name, a.caps.IvmRefreshMethod)))
}
