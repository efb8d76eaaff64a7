package mv

import (
	"github.com/dorisdiag/dorisdiag/diag"
)

// The codes of the findings about IVM materialized views (seed §1 S1–S3; areaMV).
// `dorisdiag mv explain DB.MV` shows the evidence of each for one MV.
var (
	// CodeMVDelayHigh: An IVM MV is further behind its base tables than its freshness target
	CodeDelayHigh = diag.Declare(diag.Declaration{
		Code:      "MV_DELAY_HIGH",
		Severity:  diag.SeverityWarning,
		Impact:    diag.ImpactFreshness,
		Place:     1,
		Magnitude: diag.Measure{Name: "data_delay_seconds"},
		CausedBy: []diag.Cause{
			{Code: "MV_CHANGELOG_BROKEN", If: laggingReason(ReasonRefreshFailed)},
			{Code: "MV_CONSECUTIVE_FAILURES", If: laggingReason(ReasonRefreshFailed)},
			{Code: "MV_REBUILD_REQUIRED", If: laggingReason(ReasonRebuildRequired)},
			{Code: "MV_JOB_PAUSED", If: laggingReason(ReasonJobPaused)},
			{Code: "MV_TASK_QUEUED_LONG", If: laggingReason(ReasonQueued)},
			{Code: "MV_TASK_STUCK_RUNNING", If: laggingReason(ReasonRunning)},
		},
		Series: "doris_fe_ivm_mv_data_delay_seconds",
		Alert:  "DorisIvmMvDelayHigh",
		Title:  "An IVM MV is further behind its base tables than its freshness target",
		Spec:   "apache/doris#69907 §1 S1; §3 Definitions \"MV data delay\"; alert doris_fe_ivm_mv_data_delay_seconds > 300",
		Meaning: "The MV's data delay — the largest delay of its trigger dependencies, each the oldest change of a base partition its internal stream has not consumed, " +
			"plus the age of a dirty MV partition — is over --max-delay (default 5m). Critical at 3× the target. The value carries its precision: PRECISE (server change " +
			"points or a series of snapshots), UPPER_BOUND (from the offset alone: the change may be younger), UNKNOWN. Excluded trigger tables are never counted.",
		Matters: "Queries on the MV, and base-table queries transparent rewrite answers from it, return data that old.",
		Confirm: "SELECT DB_NAME, MV_NAME, FRESHNESS_STATE, DATA_DELAY_SECONDS, DELAY_PRECISION, LAGGING_REASON FROM information_schema.ivm_mv_status WHERE MV_NAME = '<mv>';\n" +
			"SELECT BASE_TABLE_DB, BASE_TABLE_NAME, DELAY_SECONDS, LAGGING_PARTITIONS, WORST_PARTITION, STREAM_ID FROM information_schema.ivm_dependencies WHERE MV_NAME = '<mv>' ORDER BY DELAY_SECONDS DESC;\n" +
			"dorisdiag mv explain <db>.<mv>",
		Fix: "Follow the lagging reason: a failing refresh (see MV_CONSECUTIVE_FAILURES), a paused job (MV_JOB_PAUSED), a stuck or queued task, or a schedule longer " +
			"than the target (shorten it or refresh on commit). REFRESH MATERIALIZED VIEW <db>.<mv> AUTO catches up once the cause is gone.",
		Related: []string{"MV_CONSECUTIVE_FAILURES", "MV_JOB_PAUSED", "MV_TASK_STUCK_RUNNING", "MV_TASK_QUEUED_LONG", "MV_REBUILD_REQUIRED"},
	})
	// CodeMVRebuildRequired: An MV partition in the maintained range is dirty and needs a rebuild
	CodeRebuildRequired = diag.Declare(diag.Declaration{
		Code:     "MV_REBUILD_REQUIRED",
		Severity: diag.SeverityCritical,
		Impact:   diag.ImpactBroken,
		Place:    3,
		Series:   "doris_fe_ivm_mvs{state=\"rebuild_required\"}",
		Alert:    "DorisIvmMvRebuildOrUnknown",
		Title:    "An MV partition in the maintained range is dirty and needs a rebuild",
		Spec:     "apache/doris#69907 §3 States (rebuild_required), LAGGING_REASON REBUILD_REQUIRED; ivm_mv_status.DIRTY_PARTITIONS",
		Meaning: "ivm_mv_status reports FRESHNESS_STATE REBUILD_REQUIRED: a partition of the MV can no longer be maintained by a delta and must be rebuilt. Only builds " +
			"with information_schema.ivm_mv_status (apache/doris#69907 \"IVM freshness\", T4) can tell; on older builds this state is undetectable and dorisdiag says so.",
		Matters: "The dirty partition's data stays stale until a refresh rebuilds it; its age counts in the data delay.",
		Confirm: "SELECT FRESHNESS_STATE, DIRTY_PARTITIONS, DATA_DELAY_SECONDS, DELAY_PRECISION FROM information_schema.ivm_mv_status WHERE MV_NAME = '<mv>';",
		Fix:     "Let the next refresh rebuild it (AUTO / INCREMENTAL FALLBACK do), or run REFRESH MATERIALIZED VIEW <db>.<mv> PARTITIONS(<partition>) now.",
		Related: []string{"MV_DELAY_HIGH"},
	})
	// CodeMVConsecutiveFailures: The MV's refresh failed several times in a row
	CodeConsecutiveFailures = diag.Declare(diag.Declaration{
		Code:      "MV_CONSECUTIVE_FAILURES",
		Severity:  diag.SeverityCritical,
		Impact:    diag.ImpactBroken,
		Place:     4,
		Magnitude: diag.Measure{Name: "consecutive_failures"},
		CausedBy:  []diag.Cause{{Code: "MV_CHANGELOG_BROKEN", If: func(f *diag.Finding) bool { return f.Evidence["failure_reason"] == "CHANGELOG_BROKEN" }}},
		Series:    "doris_fe_ivm_mv_consecutive_failures",
		Alert:     "DorisIvmMvConsecutiveFailures",
		Title:     "The MV's refresh failed several times in a row",
		Spec:      "apache/doris#69907 §1 S2; §3 \"Refresh result\"; alert doris_fe_ivm_mv_consecutive_failures >= 3",
		Meaning: "At least --max-failures (default 3) refresh tasks failed since the last success or no_change. Canceled tasks leave the count unchanged. From tasks() " +
			"the count is bounded by the task history (\"at least N\" when every task in it failed); ivm_mv_status.CONSECUTIVE_FAILURES is exact.",
		Matters: "Nothing reaches the MV while every refresh fails: its delay grows until someone acts.",
		Confirm: "SELECT TaskId, Status, RefreshMode, IvmRefreshMethod, IvmFallbackReason, DurationMs, ErrorMsg, LastQueryId FROM tasks(\"type\" = \"mv\") " +
			"WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 20;",
		Fix:     "Read the last error and its failure reason; fix the cause (resources, a schema change, an expired stream: MV_CHANGELOG_BROKEN), then REFRESH MATERIALIZED VIEW <db>.<mv> AUTO.",
		Related: []string{"MV_CHANGELOG_BROKEN", "MV_DELAY_HIGH"},
	})
	// CodeMVChangelogBroken: Refreshes fail because an internal stream's offset has expired (T0)
	CodeChangelogBroken = diag.Declare(diag.Declaration{
		Code:      "MV_CHANGELOG_BROKEN",
		Severity:  diag.SeverityCritical,
		Impact:    diag.ImpactBroken,
		Place:     1,
		Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		Series:    "doris_fe_ivm_refresh_failures_total{reason=\"changelog_broken\"}",
		Alert:     "DorisIvmRefreshFailures",
		Title:     "Refreshes fail because an internal stream's offset has expired",
		Spec:      "apache/doris#69907 §1 T0; §3 failure reason CHANGELOG_BROKEN (BINLOG_BROKEN on earlier builds)",
		Meaning: "The latest failed refresh failed with CHANGELOG_BROKEN / BINLOG_BROKEN: the changelog TTL expired changes the MV's internal stream still needed. On builds " +
			"without the fallback to COMPLETE for an expired offset (apache/doris#69907 T0) every later refresh fails too, even one allowed to fall back, until a manual COMPLETE refresh.",
		Matters: "The MV stops being maintained: it stays at its last good data.",
		Confirm: "SELECT TaskId, Status, ErrorMsg, IvmFallbackReason FROM tasks(\"type\" = \"mv\") WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 5;\n" +
			"dorisdiag mv explain <db>.<mv>  # the dependency whose internal stream cannot resume",
		Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE; then keep refreshes within the TTL, or raise changelog.ttl_seconds on the base table. Upgrade to a build that falls back to COMPLETE when an IVM stream offset has expired (apache/doris#69907 T0).",
		Related: []string{"MV_CONSECUTIVE_FAILURES", "MV_NEXT_REFRESH_RECOMPUTES", "STREAM_CANNOT_RESUME_REJECTED"},
	})
	// CodeMVFallbacksRepeated: Incremental refresh keeps falling back to a rebuild
	CodeFallbacksRepeated = diag.Declare(diag.Declaration{
		Code:      "MV_FALLBACKS_REPEATED",
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
	// CodeMVNextRefreshRecomputes: The next refresh can only recompute: an internal stream is out of the retention (T9)
	CodeNextRefreshRecomputes = diag.Declare(diag.Declaration{
		Code:      "MV_NEXT_REFRESH_RECOMPUTES",
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
			"retention with nothing lost; the refresh after its next write recomputes anyway.",
		Matters: "A full recompute where a small delta was expected: a slow, expensive refresh, possibly at a bad time.",
		Confirm: "SELECT UNIT, CONSUMED_TSO, CAN_RESUME, RETENTION_HEADROOM_SECONDS FROM information_schema.table_stream_consumption WHERE STREAM_ID = <internal stream id> ORDER BY RETENTION_HEADROOM_SECONDS;",
		Fix:     "Refresh the MV now (a recompute at a time you choose), raise changelog.ttl_seconds on the base table, or upgrade to a build that keeps idle IVM partitions alive (apache/doris#69907 T9).",
		Related: []string{"IVM_STREAM_RECOMPUTE_ONLY", "MV_FALLBACKS_REPEATED"},
	})
	// CodeMVRowsMayBeMissed: Rows of a base partition may be missing from the MV (T10/T11)
	CodeRowsMayBeMissed = diag.Declare(diag.Declaration{
		Code:     "MV_ROWS_MAY_BE_MISSED",
		Severity: diag.SeverityWarning,
		Impact:   diag.ImpactLoss,
		Place:    3,
		Title:    "Rows of a base partition may be missing from the MV",
		Spec:     "apache/doris#69907 §1 T10, T11",
		Meaning: "An internal stream follows a duplicate-key base table whose offset is out of the retention, or has a base partition with data and no offset whose " +
			"rows are older than the TTL. Builds without the two fixes of apache/doris#69907 (T10: reject an expired offset in every IVM read, including one of a " +
			"duplicate-key base table; T11: read a base partition with no offset from the base table in an IVM refresh) read such partitions from the changelog " +
			"and silently skip the expired rows: the refresh succeeds and later refreshes do not bring the rows back.",
		Matters: "The MV, and base-table queries rewritten onto it, may return wrong results without any error.",
		Confirm: "-- compare the MV with its query over the affected partition:\n(SELECT * FROM <db>.<mv>) EXCEPT (<the MV's query>);\n" +
			"SELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <internal stream id>;",
		Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE restores the rows; upgrade to a build with both fixes (apache/doris#69907 T10 and T11).",
		Related: []string{"STREAM_NO_OFFSET_ROWS_SKIPPED", "MV_NEXT_REFRESH_RECOMPUTES"},
	})
	// CodeMVJobPaused: The MV's refresh job is paused
	CodeJobPaused = diag.Declare(diag.Declaration{
		Code:     "MV_JOB_PAUSED",
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
	// CodeMVTaskStuckRunning: A refresh task has been running longer than --max-running
	CodeTaskStuckRunning = diag.Declare(diag.Declaration{
		Code:      "MV_TASK_STUCK_RUNNING",
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
	// CodeMVTaskQueuedLong: A refresh task has waited in the queue longer than --max-queued
	CodeTaskQueuedLong = diag.Declare(diag.Declaration{
		Code:      "MV_TASK_QUEUED_LONG",
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
	// CodeMVExcludedDependencyOutdated: A table in excluded_trigger_tables changed since the MV covered it
	CodeExcludedDependencyOutdated = diag.Declare(diag.Declaration{
		Code:     "MV_EXCLUDED_DEPENDENCY_OUTDATED",
		Severity: diag.SeverityInfo,
		Impact:   diag.ImpactFreshness,
		Place:    6,
		Title:    "A table in excluded_trigger_tables changed since the MV covered it",
		Spec:     "apache/doris#69907 §1 S1; §3 \"MV data delay\" (excluded dependencies reported on their own)",
		Meaning: "A base table listed in the MV's excluded_trigger_tables has changes the MV does not cover. By design they trigger no refresh and are left out of the data " +
			"delay. With ivm_dependencies the coverage is judged from the versions in the MV's refresh snapshots (PRECISE); without it, from the table's partitions " +
			"that became visible after the MV's last successful refresh started (UPPER_BOUND).",
		Matters: "Usually intended (a slowly changing dimension); worth knowing when the MV's data looks stale on that table's columns.",
		Confirm: "SELECT BASE_TABLE_NAME, COVERED_VERSION, CURRENT_VERSION FROM information_schema.ivm_dependencies WHERE MV_NAME = '<mv>' AND IS_EXCLUDED_TRIGGER = 1;",
		Fix:     "Nothing if intended; otherwise REFRESH MATERIALIZED VIEW <db>.<mv> AUTO, or remove the table from excluded_trigger_tables.",
		Related: []string{"MV_DELAY_HIGH"},
	})
	// CodeMVStateUnknown: The MV's freshness cannot be determined
	CodeStateUnknown = diag.Declare(diag.Declaration{
		Code:     "MV_STATE_UNKNOWN",
		Severity: diag.SeverityWarning,
		Impact:   diag.ImpactVisibility,
		Place:    5,
		Series:   "doris_fe_ivm_mvs{state=\"unknown\"}",
		Alert:    "DorisIvmMvRebuildOrUnknown",
		Title:    "The MV's freshness cannot be determined",
		Spec:     "apache/doris#69907 §3 States (unknown)",
		Meaning: "The freshness state is unknown: the server says UNKNOWN, an internal stream is missing, an offset cannot be read, or the tool could not tell which " +
			"base tables the MV follows. The delay has no value (UNKNOWN).",
		Matters: "An MV whose freshness nobody can see may be arbitrarily stale.",
		Confirm: "SELECT FRESHNESS_STATE, DELAY_PRECISION FROM information_schema.ivm_mv_status WHERE MV_NAME = '<mv>';\ndorisdiag mv explain <db>.<mv>",
		Fix:     "See the evidence: a missing stream (MV_INTERNAL_STREAM_MISSING), an unreadable offset (SOURCE_UNREACHABLE / SOURCE_MALFORMED_VALUE).",
		Related: []string{"MV_INTERNAL_STREAM_MISSING", "SOURCE_UNREACHABLE"},
	})
	// CodeMVInternalStreamMissing: A trigger dependency of an IVM MV has no internal stream
	CodeInternalStreamMissing = diag.Declare(diag.Declaration{
		Code:     "MV_INTERNAL_STREAM_MISSING",
		Severity: diag.SeverityCritical,
		Impact:   diag.ImpactBroken,
		Place:    2,
		Title:    "A trigger dependency of an IVM MV has no internal stream",
		Spec:     "apache/doris#69907 §3 ivm_dependencies DEPENDENCY_STATE MISSING; docs/snapshot.md internal stream naming",
		Meaning: "The MV follows a base table (ivm_dependencies or mv_infos().IvmBaseTableStreams says so) but no __doris_ivm_stream_<mv>_<mv id>_<table id> stream " +
			"for it exists in table_streams.",
		Matters: "Without its stream the MV cannot refresh that base table incrementally; its freshness is unknown.",
		Confirm: "SELECT STREAM_NAME, STREAM_ID, BASE_TABLE_NAME, ENABLED, IS_STALE FROM information_schema.table_streams WHERE DB_NAME = '<db>' AND STREAM_NAME LIKE '__doris_ivm_stream_<mv>_%';",
		Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE re-creates the baseline; if the stream stays missing, re-create the MV.",
		Related: []string{"MV_STATE_UNKNOWN"},
	})
	// CodeMVInitializing: The MV has never refreshed successfully
	CodeInitializing = diag.Declare(diag.Declaration{
		Code:     "MV_INITIALIZING",
		Severity: diag.SeverityInfo,
		Impact:   diag.ImpactFreshness,
		Place:    7,
		Series:   "doris_fe_ivm_mvs{state=\"initializing\"}",
		Title:    "The MV has never refreshed successfully",
		Spec:     "apache/doris#69907 §3 States (initializing)",
		Meaning:  "mv_infos().RefreshState is INIT (or ivm_mv_status says INITIALIZING): no baseline exists yet, so there is no data delay to report.",
		Matters:  "The MV holds no data until its first refresh; a deferred MV stays so until someone refreshes it.",
		Confirm:  "SELECT Name, State, RefreshState, RefreshInfo FROM mv_infos('database' = '<db>') WHERE Name = '<mv>';",
		Fix:      "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE; builds the baseline.",
		Related:  []string{"MV_STATE_UNKNOWN"},
	})
)

// laggingReason: the cause applies when the MV's lagging reason
// (apache/doris#69907, "Lagging reason") is r.
func laggingReason(r string) func(*diag.Finding) bool {
	return func(f *diag.Finding) bool { return f.Evidence["lagging_reason"] == r }
}
