package mv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/streams"

	"github.com/dorisdiag/dorisdiag/diag"

	"github.com/dorisdiag/dorisdiag/doris"
)

// The checks of one IVM MV (apache/doris#69907 §1 S1–S3), in the shape of go/analysis
// passes: each hazard is one function, listed in output order (sortByCause
// then orders `mv explain` from cause to symptom). A new check is one
// function, one entry below and its Code in codes_mv.go.

// mvCheck returns the findings of one hazard of one MV, none when absent.
type mvCheck func(a *mvAnalyzer, m *mvFacts) []diag.Finding

var mvChecks = []mvCheck{
	checkMVChangelogBroken,
	checkMVInternalStreamMissing,
	checkMVFreshnessState,
	checkMVJobPaused,
	checkMVTaskStuckRunning,
	checkMVTaskQueuedLong,
	checkMVConsecutiveFailures,
	checkMVRowsMayBeMissed,
	checkMVNextRefreshRecomputes,
	checkMVFallbacksRepeated,
	checkMVExcludedDependencyOutdated,
	checkMVDelayAtLeast,
	checkMVDelayHigh,
	checkMVServerClientMismatch,
}

func (a *mvAnalyzer) mvFindings(r *MV) []diag.Finding {
	m := newMVFacts(r)
	var fs []diag.Finding
	for _, check := range mvChecks {
		fs = append(fs, check(a, m)...)
	}
	return fs
}

// mvFacts is what the checks of one MV share.
type mvFacts struct {
	r        *MV
	h        *History
	obj      diag.Object
	worstDep *Dependency
	// The refreshes are still failing when the latest task that succeeded
	// or failed failed; canceled tasks in between change nothing (seed §3).
	stillFailing    bool
	changelogBroken bool // still failing with CHANGELOG_BROKEN (T0)
}

func newMVFacts(r *MV) *mvFacts {
	id := r.ID
	h := &r.History
	m := &mvFacts{r: r, h: h, obj: diag.Object{Kind: "mv", DB: r.DB, Name: r.Name, ID: &id}, worstDep: r.worstTrigger()}
	m.stillFailing = h.ConsecutiveFailures > 0 && h.LastFailure != nil
	m.changelogBroken = m.stillFailing && IsChangelogBroken(h.LastFailure.FailureReason)
	if r.Server != nil && IsChangelogBroken(r.Server.LastFailureReason) && m.stillFailing {
		m.changelogBroken = true
	}
	return m
}

// finding is a finding about the MV at the code's default severity.
func (m *mvFacts) finding(code diag.Code, summary, detail string, ev map[string]string, next string) diag.Finding {
	return diag.Finding{Code: code, Severity: code.Severity(), Object: m.obj, Summary: summary, Detail: detail, Evidence: ev, Next: next}
}

func (m *mvFacts) one(code diag.Code, summary, detail string, ev map[string]string, next string) []diag.Finding {
	return []diag.Finding{m.finding(code, summary, detail, ev, next)}
}

// measured sets the magnitude (Declaration.Magnitude) of the findings: the
// number their evidence shows too.
func (m *mvFacts) measured(v *float64, fs []diag.Finding) []diag.Finding {
	for i := range fs {
		if v != nil {
			fs[i].Magnitude = f64(*v)
		}
	}
	return fs
}

// ev is the evidence every MV finding carries plus the non-empty pairs kv.
func (m *mvFacts) ev(kv ...string) map[string]string {
	out := map[string]string{"freshness_state": m.r.FreshnessState, "state_source": m.r.StateSource}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// checkMVChangelogBroken (T0): refreshes fail because an internal stream expired.
func checkMVChangelogBroken(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	if !m.changelogBroken {
		return nil
	}
	r, h := m.r, m.h
	reason := h.LastFailure.FailureReason
	if r.Server != nil && IsChangelogBroken(r.Server.LastFailureReason) {
		reason = strings.ToUpper(r.Server.LastFailureReason)
	}
	dep := r.expiredTrigger()
	where := ""
	evd := m.ev("failure_reason", reason, "last_error", truncateText(h.LastFailure.ErrorMsg, 200), "task_id", strconv.FormatInt(h.LastFailure.TaskID, 10))
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
		fmt.Sprintf("The latest refresh (task %d) failed with %s: %s. The changelog TTL expired changes the internal stream still needed; on builds without the fallback to COMPLETE for an expired offset (apache/doris#69907 T0) every refresh fails until a manual COMPLETE refresh.",
			h.LastFailure.TaskID, reason, mvOrNone(truncateText(h.LastFailure.ErrorMsg, 200))),
		evd, doris.RefreshMV(r.DB, r.Name, "COMPLETE")))
}

func checkMVInternalStreamMissing(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	var fs []diag.Finding
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.DependencyState != DepMissing {
			continue
		}
		fs = append(fs, m.finding(CodeInternalStreamMissing, fmt.Sprintf("no internal stream follows base table %s.%s", d.BaseTableDB, d.BaseTableName),
			"The MV follows this base table ("+d.Source+" source) but table_streams has no internal stream for it. "+d.Note,
			m.ev("base_table", d.BaseTableDB+"."+d.BaseTableName, "stream", d.StreamName),
			doris.SuggestInternalStreams(r.DB, r.Name, a.mvNamesIn(r.DB), false)))
	}
	return fs
}

// checkMVFreshnessState: a dirty partition, an unknown or initializing MV,
// or a freshness state this dorisdiag does not know.
func checkMVFreshnessState(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	switch r.FreshnessState {
	case FreshRebuildRequired:
		dirty := r.dirtyText()
		return m.one(CodeRebuildRequired, "a partition of the MV is dirty and needs a rebuild"+ifText(dirty != "", " ("+dirty+")"),
			"information_schema.ivm_mv_status reports REBUILD_REQUIRED: the delta cannot maintain the dirty partition; its age counts in the delay ("+diag.ValueText(r.DataDelay)+").",
			m.ev("dirty_partitions", dirty, "data_delay", diag.ValueText(r.DataDelay)),
			doris.RefreshMV(r.DB, r.Name, "AUTO"))
	case FreshUnknown:
		return m.one(CodeStateUnknown, "freshness unknown: "+r.StateReason, "The data delay has no value ("+diag.ValueText(r.DataDelay)+"). "+r.StateReason+".",
			m.ev("data_delay", diag.ValueText(r.DataDelay)), diag.MVExplainCommand(r.DB, r.Name))
	case FreshInitializing:
		return m.one(CodeInitializing, "the MV has never refreshed successfully", r.StateReason+": there is no baseline, hence no delay.",
			m.ev("refresh_state", r.RefreshState), doris.RefreshMV(r.DB, r.Name, "COMPLETE"))
	}
	if knownState(r.FreshnessState) {
		return nil
	}
	return m.one(CodeStateUnknown, "the server reports an unknown freshness state "+strconv.Quote(r.FreshnessState),
		"ivm_mv_status.FRESHNESS_STATE holds a value this dorisdiag does not know; it is kept as data.", m.ev(), diag.MVExplainCommand(r.DB, r.Name))
}

func checkMVJobPaused(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	if !strings.EqualFold(r.JobStatus, "PAUSED") {
		return nil
	}
	return m.one(CodeJobPaused, "the refresh job "+mvOrNone(r.JobName)+" is paused", "jobs(\"type\"=\"mv\") Status PAUSED: no refresh runs; the MV is "+diag.ValueText(r.DataDelay)+" behind.",
		m.ev("job", r.JobName, "job_status", r.JobStatus, "data_delay", diag.ValueText(r.DataDelay)),
		doris.ResumeMVJob(r.DB, r.Name))
}

func checkMVTaskStuckRunning(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	t := m.h.Running
	if t == nil || t.AgeSeconds == nil || *t.AgeSeconds <= a.opt.MaxRunning.Seconds() {
		return nil
	}
	return m.measured(t.AgeSeconds, m.one(CodeTaskStuckRunning, fmt.Sprintf("task %d has been running for %s (over %s)", t.TaskID, diag.DurationText(*t.AgeSeconds), diag.DurationText(a.opt.MaxRunning.Seconds())),
		"tasks() Status RUNNING since "+mvTimeText(t.StartTimeMs)+"; query "+mvOrNone(t.LastQueryID)+".",
		m.ev("task_id", strconv.FormatInt(t.TaskID, 10), "running_seconds", fmtFloat(*t.AgeSeconds), "last_query_id", t.LastQueryID),
		doris.ShowQueryProfile(t.LastQueryID)+"  -- then, if stuck: "+doris.CancelMVTask(t.TaskID, m.r.DB, m.r.Name)))
}

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
	count := f64(float64(cf))
	if atLeast {
		n = "at least " + n
		count = nil // a lower bound, not the count
	}
	return m.measured(count, m.one(CodeConsecutiveFailures, fmt.Sprintf("the last %s refreshes failed (%s): %s", n, reason, truncateText(mvOrNone(msg), 120)),
		fmt.Sprintf("%s consecutive failures (from %s; --max-failures %d). Last failure reason %s%s.", n, src, a.opt.MaxFailures, reason,
			ifText(h.LastFailure != nil && h.LastFailure.FailureReasonInferred && src != "ivm_mv_status", " (inferred from the error text: tasks() has no failure-reason column)")),
		m.ev("consecutive_failures", n, "source", src, "failure_reason", reason, "last_error", truncateText(msg, 200)),
		doris.SuggestMVTasks(r.DB, r.Name, a.caps.IvmRefreshMethod)))
}

// checkMVRowsMayBeMissed (T10/T11): one finding per trigger dependency.
func checkMVRowsMayBeMissed(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	var fs []diag.Finding
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded || d.RowsMayBeMissed == "" {
			continue
		}
		next := "-- compare the MV with its query over base partition " + d.RowsMissedUnit + ":\n" + doris.CompareMV(r.DB, r.Name)
		if d.StreamID != nil {
			next += "\n" + doris.SuggestStreamOffsets(*d.StreamID, a.caps.ConsumptionT2)
		}
		fs = append(fs, m.finding(CodeRowsMayBeMissed, fmt.Sprintf("rows of %s.%s partition %s may be missing from the MV", d.BaseTableDB, d.BaseTableName, d.RowsMissedUnit),
			d.RowsMissedDetail+". Builds without "+rowsMissedFix[d.RowsMayBeMissed]+" read it from the changelog and skip the expired rows silently; a COMPLETE refresh restores them.",
			m.ev("base_table", d.BaseTableDB+"."+d.BaseTableName, "partition", d.RowsMissedUnit, "rule", d.RowsMayBeMissed, "key_model", d.KeyModel, "stream", d.StreamName),
			next))
	}
	return fs
}

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
		streamNext(d, a.caps.ConsumptionT2)+"\n"+doris.RefreshMV(m.r.DB, m.r.Name, "AUTO")+"  -- recompute now, at a time you choose"))
}

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

// checkMVExcludedDependencyOutdated: excluded dependencies changed since covered.
func checkMVExcludedDependencyOutdated(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	if !r.HasExcludedOutdated() {
		return nil
	}
	d := ""
	if r.MaxExcludedDelay != nil {
		d = diag.ValueText(*r.MaxExcludedDelay)
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
	basis := r.excludedOutdatedBasis()
	return m.one(CodeExcludedDependencyOutdated, summary,
		"By design its changes trigger no refresh and stay out of the data delay; the MV does not reflect them"+ifText(d != "", " (up to "+d+")")+". Evidence: "+basis+".",
		m.ev(evKey, evVal, "max_excluded_delay", d, "evidence", basis),
		doris.RefreshMV(r.DB, r.Name, "AUTO")+"  -- only if the MV should reflect them now")
}

// excludedOutdatedBasis names what shows an excluded dependency outdated.
func (r *MV) excludedOutdatedBasis() string {
	for _, dep := range r.Dependencies {
		if dep.Excluded && dep.Covered != nil && !*dep.Covered {
			if dep.Source == diag.SourceServer || dep.Note == "" {
				return "information_schema.ivm_dependencies COVERED = false"
			}
			return dep.Note
		}
	}
	return "information_schema.ivm_mv_status EXCLUDED_OUTDATED_DEPENDENCIES"
}

// checkMVDelayAtLeast (S1): an unknown delay whose proven lower bound is
// already over the target is over it too ("at least").
func checkMVDelayAtLeast(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r, w := m.r, m.worstDep
	v := r.DataDelay
	if v.Seconds != nil || v.Lower == nil || *v.Lower <= a.opt.MaxDelay.Seconds() {
		return nil
	}
	f := m.finding(CodeDelayHigh, fmt.Sprintf("at least %s behind (target %s)%s", diag.DurationText(*v.Lower), diag.DurationText(a.opt.MaxDelay.Seconds()), depText(w)),
		"The data delay has no upper bound ("+v.Note+"), but it is at least "+diag.DurationText(*v.Lower)+"; lagging reason "+r.LaggingReason+" ("+r.LaggingReasonSource+").",
		m.ev("data_delay_lower_seconds", fmtFloat(*v.Lower), "delay_precision", string(v.Precision), "lagging_reason", r.LaggingReason, "worst_dependency", depName(w), "worst_partition", depPart(w)),
		"")
	a.criticalAt3x(&f, *v.Lower)
	if w != nil && w.StreamID != nil {
		f.Next = doris.SuggestStreamOffsets(*w.StreamID, a.caps.ConsumptionT2)
	}
	return []diag.Finding{f}
}

// checkMVDelayHigh (S1): the delay over the target.
func checkMVDelayHigh(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r, w := m.r, m.worstDep
	v := r.DataDelay
	if v.Seconds == nil || *v.Seconds <= a.opt.MaxDelay.Seconds() {
		return nil
	}
	f := m.finding(CodeDelayHigh, fmt.Sprintf("%s behind (target %s)%s", diag.ValueText(v), diag.DurationText(a.opt.MaxDelay.Seconds()), depText(w)),
		"Data delay "+diag.ValueText(v)+"; lagging reason "+r.LaggingReason+" ("+r.LaggingReasonSource+")."+ifText(v.Note != "", " "+v.Note+"."),
		m.ev("data_delay_seconds", fmtFloat(*v.Seconds), "delay_precision", string(v.Precision), "lagging_reason", r.LaggingReason, "worst_dependency", depName(w), "worst_partition", depPart(w)),
		diag.MVExplainCommand(r.DB, r.Name))
	f.Magnitude = f64(*v.Seconds)
	a.criticalAt3x(&f, *v.Seconds)
	if w != nil && w.StreamID != nil {
		f.Next = doris.SuggestStreamOffsets(*w.StreamID, a.caps.ConsumptionT2)
	}
	return []diag.Finding{f}
}

// criticalAt3x raises a delay finding to critical at 3× the target.
func (a *mvAnalyzer) criticalAt3x(f *diag.Finding, delay float64) {
	if delay >= 3*a.opt.MaxDelay.Seconds() {
		f.Severity = diag.SeverityCritical
		f.Detail += fmt.Sprintf(" Critical: at least 3× the %s target.", diag.DurationText(a.opt.MaxDelay.Seconds()))
	}
}

// checkMVServerClientMismatch: the server's DATA_DELAY_SECONDS against the
// client's computation, beyond the precision.
func checkMVServerClientMismatch(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r, h := m.r, m.h
	if r.Server == nil || r.ClientDelay == nil || r.LaggingReason == ReasonPublishing || r.FreshnessState == FreshRebuildRequired {
		return nil
	}
	age := 0.0
	refreshedSince := false
	if r.Server.SampleTimeMs != nil {
		age = float64(a.nowMs-*r.Server.SampleTimeMs) / 1000
		// Only a success moves the coverage; a failed or canceled task does not.
		if t := h.LastSuccess; t != nil && t.FinishTimeMs != nil && *t.FinishTimeMs > *r.Server.SampleTimeMs {
			refreshedSince = true
		}
	}
	bad, why := delayMismatch(r.DataDelay, *r.ClientDelay, age, refreshedSince)
	if !bad {
		return nil
	}
	return m.one(streams.CodeServerClientMismatch, "ivm_mv_status DATA_DELAY_SECONDS disagrees with the client's computation: "+why,
		"Server "+diag.ValueText(r.DataDelay)+", client "+diag.ValueText(*r.ClientDelay)+" (tolerance: 2 sampling intervals plus the sample's age). One side reads the offsets differently; the client keeps the server's value.",
		m.ev("server_delay", diag.ValueText(r.DataDelay), "client_delay", diag.ValueText(*r.ClientDelay)),
		doris.SuggestMVStatus(r.DB, r.Name, false))
}
