package diag

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/doris"
	"sort"
	"strconv"
	"strings"
)

// causeOrder ranks MV codes from root cause to symptom, so that `mv explain`
// names the cause first and the delay it produces after (a failing refresh
// explains a delay, not the other way round).
var causeOrder = []Code{
	CodeMVChangelogBroken, CodeMVInternalStreamMissing, CodeMVRebuildRequired, CodeMVJobPaused, CodeMVTaskStuckRunning,
	CodeMVTaskQueuedLong, CodeMVConsecutiveFailures, CodeMVRowsMayBeMissed, CodeMVNextRefreshRecomputes,
	CodeMVFallbacksRepeated, CodeMVExcludedDependencyOutdated, CodeMVStateUnknown, CodeMVInitializing,
	CodeServerClientMismatch, CodeMVDelayHigh,
}

func causeRank(code Code) int {
	for i, c := range causeOrder {
		if c == code {
			return i
		}
	}
	return len(causeOrder)
}

func sortByCause(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if a, b := causeRank(fs[i].Code), causeRank(fs[j].Code); a != b {
			return a < b
		}
		return fs[i].Summary < fs[j].Summary
	})
}

func (r *MVResult) qualified() string { return doris.QuoteIdent(r.DB) + "." + doris.QuoteIdent(r.Name) }

func (r *MVResult) label() string { return r.DB + "." + r.Name }

func tasksSQL(r *MVResult, hasMethod bool) string {
	cols := "TaskId, Status, RefreshMode, IvmFallbackReason, IvmRebuiltPartitions, DurationMs, ErrorMsg, LastQueryId"
	if hasMethod {
		cols = "TaskId, Status, RefreshMode, IvmRefreshMethod, IvmFallbackReason, DurationMs, ErrorMsg, LastQueryId"
	}
	return "SELECT " + cols + " FROM tasks(\"type\" = \"mv\") WHERE MvDatabaseName = " + doris.QuoteLiteral(r.DB) +
		" AND MvName = " + doris.QuoteLiteral(r.Name) + " ORDER BY CreateTime DESC LIMIT 20;"
}

func consumptionSQL(id int64, t2 bool) string {
	if t2 {
		return "SELECT UNIT, CONSUMED_TSO, SOURCE_END_TSO, PENDING_AGE_SECONDS, PENDING_AGE_PRECISION, CAN_RESUME, RETENTION_HEADROOM_SECONDS, LAST_GAP_TIME " +
			"FROM information_schema.table_stream_consumption WHERE STREAM_ID = " + strconv.FormatInt(id, 10) + " ORDER BY PENDING_AGE_SECONDS DESC LIMIT 20;"
	}
	return "SELECT UNIT, CONSUMPTION_STATUS, `LAG`, LAST_CONSUMPTION_TIME FROM information_schema.table_stream_consumption WHERE STREAM_ID = " +
		strconv.FormatInt(id, 10) + ";"
}

func (a *mvAnalyzer) mvFindings(r *MVResult) []Finding {
	var fs []Finding
	id := r.ID
	obj := Object{Kind: "mv", DB: r.DB, Name: r.Name, ID: &id}
	add := func(code Code, summary, detail string, ev map[string]string, next string) *Finding {
		fs = append(fs, Finding{Code: code, Severity: code.Severity(), Object: obj, Summary: summary, Detail: detail, Evidence: ev, Next: next})
		return &fs[len(fs)-1]
	}
	h := &r.History
	ev := func(kv ...string) map[string]string {
		m := map[string]string{"freshness_state": r.FreshnessState, "state_source": r.StateSource}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	worstDep := r.worstTrigger()
	// The refreshes are still failing when the latest task that succeeded or
	// failed failed; canceled tasks in between change nothing (seed §3).
	stillFailing := h.ConsecutiveFailures > 0 && h.LastFailure != nil
	changelogBroken := stillFailing && IsChangelogBroken(h.LastFailure.FailureReason)
	if r.Server != nil && IsChangelogBroken(r.Server.LastFailureReason) && stillFailing {
		changelogBroken = true
	}

	// T0: refreshes fail because an internal stream expired.
	if changelogBroken {
		reason := h.LastFailure.FailureReason
		if r.Server != nil && IsChangelogBroken(r.Server.LastFailureReason) {
			reason = strings.ToUpper(r.Server.LastFailureReason)
		}
		dep := r.expiredTrigger()
		where := ""
		evd := ev("failure_reason", reason, "last_error", truncateText(h.LastFailure.ErrorMsg, 200), "task_id", strconv.FormatInt(h.LastFailure.TaskID, 10))
		if dep != nil {
			where = fmt.Sprintf(" on base table %s.%s", dep.BaseTableDB, dep.BaseTableName)
			evd["base_table"] = dep.BaseTableDB + "." + dep.BaseTableName
			evd["stream"] = dep.StreamName
			if dep.HeadroomSeconds != nil {
				evd["headroom_seconds"] = fmtFloat(*dep.HeadroomSeconds)
			}
		}
		add(CodeMVChangelogBroken, fmt.Sprintf("refreshes fail with %s: the internal stream%s expired (T0)", reason, where),
			fmt.Sprintf("The latest refresh (task %d) failed with %s: %s. The changelog TTL expired changes the internal stream still needed; before fix T0 every refresh fails until a manual COMPLETE refresh.",
				h.LastFailure.TaskID, reason, mvOrNone(truncateText(h.LastFailure.ErrorMsg, 200))),
			evd, "REFRESH MATERIALIZED VIEW "+r.qualified()+" COMPLETE;")
	}

	// Missing internal stream.
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.DependencyState == DepMissing {
			add(CodeMVInternalStreamMissing, fmt.Sprintf("no internal stream follows base table %s.%s", d.BaseTableDB, d.BaseTableName),
				"The MV follows this base table ("+d.Source+" source) but table_streams has no internal stream for it. "+d.Note,
				ev("base_table", d.BaseTableDB+"."+d.BaseTableName, "stream", d.StreamName),
				"SELECT STREAM_NAME, STREAM_ID, BASE_TABLE_NAME, ENABLED, IS_STALE FROM information_schema.table_streams WHERE DB_NAME = "+doris.QuoteLiteral(r.DB)+
					" AND STREAM_NAME LIKE "+doris.QuoteLiteral(IvmStreamPrefix+r.Name+"_%")+";")
		}
	}

	switch r.FreshnessState {
	case FreshRebuildRequired:
		dirty := r.dirtyText()
		add(CodeMVRebuildRequired, "a partition of the MV is dirty and needs a rebuild"+ifText(dirty != "", " ("+dirty+")"),
			"information_schema.ivm_mv_status reports REBUILD_REQUIRED: the delta cannot maintain the dirty partition; its age counts in the delay ("+valueText(r.DataDelay)+").",
			ev("dirty_partitions", dirty, "data_delay", valueText(r.DataDelay)),
			"REFRESH MATERIALIZED VIEW "+r.qualified()+" AUTO;")
	case FreshUnknown:
		add(CodeMVStateUnknown, "freshness unknown: "+r.StateReason, "The data delay has no value ("+valueText(r.DataDelay)+"). "+r.StateReason+".",
			ev("data_delay", valueText(r.DataDelay)), "dorisdiag mv explain "+r.label())
	case FreshInitializing:
		add(CodeMVInitializing, "the MV has never refreshed successfully", r.StateReason+": there is no baseline, hence no delay.",
			ev("refresh_state", r.RefreshState), "REFRESH MATERIALIZED VIEW "+r.qualified()+" COMPLETE;")
	default:
		if !knownState(r.FreshnessState) {
			add(CodeMVStateUnknown, "the server reports an unknown freshness state "+strconv.Quote(r.FreshnessState),
				"ivm_mv_status.FRESHNESS_STATE holds a value this dorisdiag does not know; it is kept as data.", ev(), "dorisdiag mv explain "+r.label())
		}
	}

	// Paused job.
	if strings.EqualFold(r.JobStatus, "PAUSED") {
		add(CodeMVJobPaused, "the refresh job "+mvOrNone(r.JobName)+" is paused", "jobs(\"type\"=\"mv\") Status PAUSED: no refresh runs; the MV is "+valueText(r.DataDelay)+" behind.",
			ev("job", r.JobName, "job_status", r.JobStatus, "data_delay", valueText(r.DataDelay)),
			"RESUME MATERIALIZED VIEW JOB ON "+r.qualified()+";")
	}
	// Stuck and queued tasks.
	if t := h.Running; t != nil && t.AgeSeconds != nil && *t.AgeSeconds > a.opt.MaxRunning.Seconds() {
		add(CodeMVTaskStuckRunning, fmt.Sprintf("task %d has been running for %s (over %s)", t.TaskID, durText(*t.AgeSeconds), durText(a.opt.MaxRunning.Seconds())),
			"tasks() Status RUNNING since "+mvTimeText(t.StartTimeMs)+"; query "+mvOrNone(t.LastQueryID)+".",
			ev("task_id", strconv.FormatInt(t.TaskID, 10), "running_seconds", fmtFloat(*t.AgeSeconds), "last_query_id", t.LastQueryID),
			"SHOW QUERY PROFILE '/"+t.LastQueryID+"';  -- then, if stuck: CANCEL MATERIALIZED VIEW TASK "+strconv.FormatInt(t.TaskID, 10)+" ON "+r.qualified()+";")
	}
	if t := h.OldestPending; t != nil && t.AgeSeconds != nil && *t.AgeSeconds > a.opt.MaxQueued.Seconds() {
		add(CodeMVTaskQueuedLong, fmt.Sprintf("task %d has been queued for %s (over %s)", t.TaskID, durText(*t.AgeSeconds), durText(a.opt.MaxQueued.Seconds())),
			"tasks() Status PENDING since "+mvTimeText(t.CreateTimeMs)+": the refresh the data needs has not started.",
			ev("task_id", strconv.FormatInt(t.TaskID, 10), "queued_seconds", fmtFloat(*t.AgeSeconds)),
			"SELECT MvName, TaskId, Status, CreateTime FROM tasks(\"type\" = \"mv\") WHERE Status IN ('PENDING', 'RUNNING') ORDER BY CreateTime;")
	}

	// Consecutive failures: the server's persisted summary when present
	// (not bounded by the task history), else the window.
	cf, atLeast, src := h.ConsecutiveFailures, h.ConsecutiveFailuresAtLeast, "tasks() window"
	if r.Server != nil && r.Server.ConsecutiveFailures != nil {
		cf, atLeast, src = int(*r.Server.ConsecutiveFailures), false, "ivm_mv_status"
	}
	if cf >= a.opt.MaxFailures {
		reason, msg := "", ""
		if h.LastFailure != nil {
			reason, msg = h.LastFailure.FailureReason, h.LastFailure.ErrorMsg
		}
		if r.Server != nil && r.Server.LastFailureReason != "" {
			reason = strings.ToUpper(r.Server.LastFailureReason)
			if r.Server.LastErrorMessage != "" {
				msg = r.Server.LastErrorMessage
			}
		}
		n := strconv.Itoa(cf)
		if atLeast {
			n = "at least " + n
		}
		add(CodeMVConsecutiveFailures, fmt.Sprintf("the last %s refreshes failed (%s): %s", n, reason, truncateText(mvOrNone(msg), 120)),
			fmt.Sprintf("%s consecutive failures (from %s; --max-failures %d). Last failure reason %s%s.", n, src, a.opt.MaxFailures, reason,
				ifText(h.LastFailure != nil && h.LastFailure.FailureReasonInferred && src != "ivm_mv_status", " (inferred from the error text: tasks() has no failure-reason column)")),
			ev("consecutive_failures", n, "source", src, "failure_reason", reason, "last_error", truncateText(msg, 200)),
			tasksSQL(r, a.caps.IvmRefreshMethod))
	}

	// T10/T11.
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded || d.RowsMayBeMissed == "" {
			continue
		}
		next := "-- compare the MV with its query over base partition " + d.RowsMissedUnit + ":\n(SELECT * FROM " + r.qualified() + ") EXCEPT (<the MV's query>);"
		if d.StreamID != nil {
			next += "\n" + consumptionSQL(*d.StreamID, a.caps.ConsumptionT2)
		}
		add(CodeMVRowsMayBeMissed, fmt.Sprintf("rows of %s.%s partition %s may be missing from the MV (%s)", d.BaseTableDB, d.BaseTableName, d.RowsMissedUnit, d.RowsMayBeMissed),
			d.RowsMissedDetail+". Builds without fix "+d.RowsMayBeMissed+" read it from the changelog and skip the expired rows silently; a COMPLETE refresh restores them.",
			ev("base_table", d.BaseTableDB+"."+d.BaseTableName, "partition", d.RowsMissedUnit, "rule", d.RowsMayBeMissed, "key_model", d.KeyModel, "stream", d.StreamName),
			next)
	}

	// T9: the next refresh can only recompute.
	if !changelogBroken {
		if d := r.lowestHeadroomTrigger(); d != nil && d.HeadroomSeconds != nil && *d.HeadroomSeconds < 0 {
			part := d.HeadroomPartition
			add(CodeMVNextRefreshRecomputes, fmt.Sprintf("the next refresh can only recompute: the internal stream on %s.%s is %s past the retention", d.BaseTableDB, d.BaseTableName, durText(-*d.HeadroomSeconds)),
				fmt.Sprintf("Retention headroom %s on partition %s of %s (T9): the next refresh after a write to it cannot apply a delta and rebuilds the MV.",
					durText(*d.HeadroomSeconds), mvOrNone(part), d.StreamName),
				ev("base_table", d.BaseTableDB+"."+d.BaseTableName, "stream", d.StreamName, "partition", part, "headroom_seconds", fmtFloat(*d.HeadroomSeconds)),
				streamNext(d, a.caps.ConsumptionT2)+"\nREFRESH MATERIALIZED VIEW "+r.qualified()+" AUTO;  -- recompute now, at a time you choose")
		}
	}

	// S3: repeated fallbacks.
	if h.FallbacksInWindow >= a.opt.MinFallbacks {
		reasons := reasonsText(h.FallbackReasons)
		share := ""
		if h.RecomputeShare != nil {
			share = fmt.Sprintf("; %d of the last %d data refreshes recomputed", h.RecomputeTasks, h.DataTasks)
		}
		trend := ""
		if h.DurationTrend.Direction == "rising" {
			trend = fmt.Sprintf("; refreshes got %.1f× slower", h.DurationTrend.Ratio)
		}
		add(CodeMVFallbacksRepeated, fmt.Sprintf("%d fallbacks in the last %s (%s)", h.FallbacksInWindow, durText(a.opt.FallbackWindow.Seconds()), reasons),
			"Tasks planned an incremental refresh, fell back to a rebuild for an IVM reason and committed data"+share+trend+
				ifText(!a.caps.IvmRefreshMethod, " (method inferred from RefreshMode: this build has no IvmRefreshMethod)")+".",
			ev("fallbacks_in_window", strconv.Itoa(h.FallbacksInWindow), "reasons", reasons, "recompute_share", shareText(h.RecomputeShare), "duration_trend", h.DurationTrend.Direction),
			tasksSQL(r, a.caps.IvmRefreshMethod))
	}

	// Excluded dependencies changed since covered.
	if r.HasExcludedOutdated() {
		d := ""
		if r.MaxExcludedDelay != nil {
			d = valueText(*r.MaxExcludedDelay)
		}
		summary, evKey, evVal := "excluded trigger table "+strings.Join(r.ExcludedOutdated, ", ")+" changed since the MV covered it",
			"excluded_outdated", strings.Join(r.ExcludedOutdated, ",")
		if len(r.ExcludedOutdated) == 0 {
			// The server gave a count, not names.
			n := *r.ExcludedOutdatedCount
			summary = fmt.Sprintf("%d excluded trigger tables changed since the MV covered them", n)
			if n == 1 {
				summary = "1 excluded trigger table changed since the MV covered it"
			}
			evKey, evVal = "excluded_outdated_count", strconv.FormatInt(n, 10)
		}
		basis := "information_schema.ivm_mv_status EXCLUDED_OUTDATED_DEPENDENCIES"
		for _, dep := range r.Dependencies {
			if dep.Excluded && dep.Covered != nil && !*dep.Covered {
				basis = dep.Note
				if dep.Source == SourceServer || dep.Note == "" {
					basis = "information_schema.ivm_dependencies COVERED = false"
				}
				break
			}
		}
		add(CodeMVExcludedDependencyOutdated, summary,
			"By design its changes trigger no refresh and stay out of the data delay; the MV does not reflect them"+ifText(d != "", " (up to "+d+")")+". Evidence: "+basis+".",
			ev(evKey, evVal, "max_excluded_delay", d, "evidence", basis),
			"REFRESH MATERIALIZED VIEW "+r.qualified()+" AUTO;  -- only if the MV should reflect them now")
	}

	// S1: delay over the target. An unknown delay whose proven lower bound
	// is already over the target is over it too ("at least").
	if v := r.DataDelay; v.Seconds == nil && v.Lower != nil && *v.Lower > a.opt.MaxDelay.Seconds() {
		f := add(CodeMVDelayHigh, fmt.Sprintf("at least %s behind (target %s)%s", durText(*v.Lower), durText(a.opt.MaxDelay.Seconds()), depText(worstDep)),
			"The data delay has no upper bound ("+v.Note+"), but it is at least "+durText(*v.Lower)+"; lagging reason "+r.LaggingReason+" ("+r.LaggingReasonSource+").",
			ev("data_delay_lower_seconds", fmtFloat(*v.Lower), "delay_precision", string(v.Precision), "lagging_reason", r.LaggingReason, "worst_dependency", depName(worstDep), "worst_partition", depPart(worstDep)),
			"")
		if *v.Lower >= 3*a.opt.MaxDelay.Seconds() {
			f.Severity = SeverityCritical
			f.Detail += fmt.Sprintf(" Critical: at least 3× the %s target.", durText(a.opt.MaxDelay.Seconds()))
		}
		if worstDep != nil && worstDep.StreamID != nil {
			f.Next = consumptionSQL(*worstDep.StreamID, a.caps.ConsumptionT2)
		}
	}
	if v := r.DataDelay; v.Seconds != nil && *v.Seconds > a.opt.MaxDelay.Seconds() {
		f := add(CodeMVDelayHigh, fmt.Sprintf("%s behind (target %s)%s", valueText(v), durText(a.opt.MaxDelay.Seconds()), depText(worstDep)),
			"Data delay "+valueText(v)+"; lagging reason "+r.LaggingReason+" ("+r.LaggingReasonSource+")."+ifText(v.Note != "", " "+v.Note+"."),
			ev("data_delay_seconds", fmtFloat(*v.Seconds), "delay_precision", string(v.Precision), "lagging_reason", r.LaggingReason, "worst_dependency", depName(worstDep), "worst_partition", depPart(worstDep)),
			"")
		if *v.Seconds >= 3*a.opt.MaxDelay.Seconds() {
			f.Severity = SeverityCritical
			f.Detail += fmt.Sprintf(" Critical: at least 3× the %s target.", durText(a.opt.MaxDelay.Seconds()))
		}
		if worstDep != nil && worstDep.StreamID != nil {
			f.Next = consumptionSQL(*worstDep.StreamID, a.caps.ConsumptionT2)
		} else {
			f.Next = "dorisdiag mv explain " + r.label()
		}
	}

	// Server vs client.
	if r.Server != nil && r.ClientDelay != nil && r.LaggingReason != ReasonPublishing && r.FreshnessState != FreshRebuildRequired {
		age := 0.0
		refreshedSince := false
		if r.Server.SampleTimeMs != nil {
			age = float64(a.nowMs-*r.Server.SampleTimeMs) / 1000
			// Only a success moves the coverage; a failed or canceled task does not.
			if t := h.LastSuccess; t != nil && t.FinishTimeMs != nil && *t.FinishTimeMs > *r.Server.SampleTimeMs {
				refreshedSince = true
			}
		}
		if bad, why := delayMismatch(r.DataDelay, *r.ClientDelay, age, refreshedSince); bad {
			add(CodeServerClientMismatch, "ivm_mv_status DATA_DELAY_SECONDS disagrees with the client's computation: "+why,
				"Server "+valueText(r.DataDelay)+", client "+valueText(*r.ClientDelay)+" (tolerance: 2 sampling intervals plus the sample's age). One side reads the offsets differently; the client keeps the server's value.",
				ev("server_delay", valueText(r.DataDelay), "client_delay", valueText(*r.ClientDelay)),
				"SELECT DATA_DELAY_SECONDS, DELAY_PRECISION, SAMPLE_TIME FROM information_schema.ivm_mv_status WHERE DB_NAME = "+doris.QuoteLiteral(r.DB)+" AND MV_NAME = "+doris.QuoteLiteral(r.Name)+";")
		}
	}
	return fs
}

// worstTrigger is the trigger dependency with the largest delay.
func (r *MVResult) worstTrigger() *DependencyResult {
	var w *DependencyResult
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded {
			continue
		}
		if w == nil || d.Delay.Get(-1) > w.Delay.Get(-1) {
			w = d
		}
	}
	return w
}

// expiredTrigger is a trigger dependency whose internal stream cannot resume.
func (r *MVResult) expiredTrigger() *DependencyResult {
	d := r.lowestHeadroomTrigger()
	if d != nil && ((d.CanResume != nil && !*d.CanResume) || d.DependencyState == DepCannotResume) {
		return d
	}
	return nil
}

func (r *MVResult) lowestHeadroomTrigger() *DependencyResult {
	var w *DependencyResult
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded || d.HeadroomSeconds == nil {
			continue
		}
		if w == nil || *d.HeadroomSeconds < *w.HeadroomSeconds {
			w = d
		}
	}
	return w
}

func streamNext(d *DependencyResult, t2 bool) string {
	if d.StreamID == nil {
		return "dorisdiag streams"
	}
	return consumptionSQL(*d.StreamID, t2)
}

func knownState(s string) bool {
	for _, k := range FreshnessStates {
		if s == k {
			return true
		}
	}
	return false
}

func depText(d *DependencyResult) string {
	if d == nil || d.Delay.Get(0) <= 0 {
		return ""
	}
	s := " on " + d.BaseTableDB + "." + d.BaseTableName
	if d.WorstPartition != "" {
		s += " partition " + d.WorstPartition
	}
	return s
}

func depName(d *DependencyResult) string {
	if d == nil {
		return ""
	}
	return d.BaseTableDB + "." + d.BaseTableName
}

func depPart(d *DependencyResult) string {
	if d == nil {
		return ""
	}
	return d.WorstPartition
}

func reasonsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func shareText(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%.0f%%", *p*100)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func ifText(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func mvTimeText(ms *int64) string {
	if ms == nil {
		return "an unknown time"
	}
	return timeText(*ms)
}
