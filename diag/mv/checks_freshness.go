package mv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/doris"
)

// The checks of an MV's freshness (apache/doris#69907 §1 S1): its state, its
// delay against the target, its dependencies, rows it may miss, and the
// server's values against the client's.

// CodeInternalStreamMissing: A trigger dependency of an IVM MV has no internal stream
var CodeInternalStreamMissing = diag.Declare(diag.Declaration{
	Code:     "MV_INTERNAL_STREAM_MISSING",
	Action:   "refresh the MV COMPLETE, or re-create it",
	Severity: diag.SeverityCritical,
	Impact:   diag.ImpactBroken,
	Place:    2,
	Title:    "A trigger dependency of an IVM MV has no internal stream",
	Spec:     "apache/doris#69907 §3 ivm_dependencies DEPENDENCY_STATE MISSING; docs/snapshot.md internal stream naming",
	Meaning: "The MV follows a base table (ivm_dependencies or mv_infos().IvmBaseTableStreams says so) but no __doris_ivm_stream_<mv>_<mv id>_<table id> stream " +
		"for it exists in table_streams.",
	Matters: "Without its stream the MV cannot refresh that base table incrementally; its freshness is unknown.",
	Confirm: "SELECT STREAM_NAME, STREAM_ID, BASE_TABLE_NAME, ENABLED, IS_STALE FROM information_schema.table_streams WHERE DB_NAME = '<db>' AND STREAM_NAME LIKE '\\_\\_doris\\_ivm\\_stream\\_<mv>\\_%';",
	Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE re-creates the baseline; if the stream stays missing, re-create the MV.",
	Related: []string{"MV_STATE_UNKNOWN"},
})

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

// CodeRebuildRequired: An MV partition in the maintained range is dirty and needs a rebuild
var CodeRebuildRequired = diag.Declare(diag.Declaration{
	Code:     "MV_REBUILD_REQUIRED",
	Action:   "refresh the MV: AUTO rebuilds the partition",
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

// CodeStateUnknown: The MV's freshness cannot be determined
var CodeStateUnknown = diag.Declare(diag.Declaration{
	Code:     "MV_STATE_UNKNOWN",
	Action:   "see the evidence for what is unreadable",
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

// CodeInitializing: The MV has never refreshed successfully
var CodeInitializing = diag.Declare(diag.Declaration{
	Code:     "MV_INITIALIZING",
	Action:   "refresh the MV COMPLETE to build it",
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

// checkMVRebuildRequired: a dirty partition in the maintained range (only
// ivm_mv_status can tell).
func checkMVRebuildRequired(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	if r.FreshnessState != FreshRebuildRequired {
		return nil
	}
	dirty := r.dirtyText()
	return m.one(CodeRebuildRequired, "a partition of the MV is dirty and needs a rebuild"+ifText(dirty != "", " ("+dirty+")"),
		"information_schema.ivm_mv_status reports REBUILD_REQUIRED: the delta cannot maintain the dirty partition; its age counts in the delay ("+diag.ValueText(r.DataDelay)+").",
		m.ev("dirty_partitions", dirty, "data_delay", diag.ValueText(r.DataDelay)),
		doris.RefreshMV(r.DB, r.Name, "AUTO"))
}

// checkMVStateUnknown: an MV whose freshness is unknown, or whose server
// reports a state this dorisdiag does not know.
func checkMVStateUnknown(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	switch {
	case r.FreshnessState == FreshUnknown:
		return m.one(CodeStateUnknown, "freshness unknown: "+r.StateReason, "The data delay has no value ("+diag.ValueText(r.DataDelay)+"). "+r.StateReason+".",
			m.ev("data_delay", diag.ValueText(r.DataDelay)), diag.MVExplainCommand(r.DB, r.Name))
	case knownState(r.FreshnessState):
		return nil
	}
	return m.one(CodeStateUnknown, "the server reports an unknown freshness state "+strconv.Quote(string(r.FreshnessState)),
		"ivm_mv_status.FRESHNESS_STATE holds a value this dorisdiag does not know; it is kept as data.", m.ev(), diag.MVExplainCommand(r.DB, r.Name))
}

// checkMVInitializing: an MV that never refreshed successfully.
func checkMVInitializing(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	if r.FreshnessState != FreshInitializing {
		return nil
	}
	return m.one(CodeInitializing, "the MV has never refreshed successfully", r.StateReason+": there is no baseline, hence no delay.",
		m.ev("refresh_state", r.RefreshState), doris.RefreshMV(r.DB, r.Name, "COMPLETE"))
}

func knownState(s FreshnessState) bool {
	for _, k := range FreshnessStates {
		if s == k {
			return true
		}
	}
	return false
}

// CodeRowsMayBeMissed: Rows of a base partition may be missing from the MV (T10/T11)
var CodeRowsMayBeMissed = diag.Declare(diag.Declaration{
	Code:     "MV_ROWS_MAY_BE_MISSED",
	Action:   "compare the MV with its query, then refresh",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactLoss,
	Place:    3,
	Title:    "Rows of a base partition may be missing from the MV",
	Spec:     "apache/doris#69907 §1 T10, T11",
	Meaning: "An internal stream follows a duplicate-key base table whose offset is out of the retention, or has a base partition with data and no offset whose " +
		"rows are older than the TTL. Builds without the two fixes of apache/doris#69907 (T10: reject an expired offset in every IVM read, including one of a " +
		"duplicate-key base table; T11: read a base partition with no offset from the base table in an IVM refresh) read such partitions from the changelog " +
		"and silently skip the expired rows: the refresh succeeds and later refreshes do not bring the rows back. " + ttl.BuildsDiffer,
	Matters: "The MV, and base-table queries rewritten onto it, may return wrong results without any error.",
	Confirm: "-- compare the MV with its query over the affected partition:\n(SELECT * FROM <db>.<mv>) EXCEPT (<the query of the MV>);\n" +
		"SELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <internal stream id>;",
	Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE restores the rows; upgrade to a build with both fixes (apache/doris#69907 T10 and T11).",
	Related: []string{"STREAM_NO_OFFSET_ROWS_SKIPPED", "MV_NEXT_REFRESH_RECOMPUTES"},
})

// checkMVRowsMayBeMissed (T10/T11): one finding per trigger dependency.
func checkMVRowsMayBeMissed(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	var fs []diag.Finding
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded || d.RowsMayBeMissed == "" {
			continue
		}
		next := doris.CompareMVOver(r.DB, r.Name, d.RowsMissedUnit)
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

// CodeExcludedDependencyOutdated: A table in excluded_trigger_tables changed since the MV covered it
var CodeExcludedDependencyOutdated = diag.Declare(diag.Declaration{
	Code:     "MV_EXCLUDED_DEPENDENCY_OUTDATED",
	Action:   "refresh the MV if the change matters",
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
		doris.Note(doris.RefreshMV(r.DB, r.Name, "AUTO"), "only if the MV should reflect them now"))
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

// CodeDelayHigh: An IVM MV is further behind its base tables than its freshness target
var CodeDelayHigh = diag.Declare(diag.Declaration{
	Code:      "MV_DELAY_HIGH",
	Action:    "follow the lagging reason",
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

// laggingReason: the cause applies when the MV's lagging reason
// (apache/doris#69907, "Lagging reason") is r.
func laggingReason(r LaggingReason) func(*diag.Finding) bool {
	return func(f *diag.Finding) bool { return f.Evidence["lagging_reason"] == string(r) }
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
		"The data delay has no upper bound ("+v.Note+"), but it is at least "+diag.DurationText(*v.Lower)+"; lagging reason "+string(r.LaggingReason)+" ("+r.LaggingReasonSource+").",
		m.ev("data_delay_lower_seconds", fmtFloat(*v.Lower), "delay_precision", string(v.Precision), "lagging_reason", string(r.LaggingReason), "worst_dependency", depName(w), "worst_partition", depPart(w)),
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
		"Data delay "+diag.ValueText(v)+"; lagging reason "+string(r.LaggingReason)+" ("+r.LaggingReasonSource+")."+ifText(v.Note != "", " "+v.Note+"."),
		m.ev("data_delay_seconds", fmtFloat(*v.Seconds), "delay_precision", string(v.Precision), "lagging_reason", string(r.LaggingReason), "worst_dependency", depName(w), "worst_partition", depPart(w)),
		diag.MVExplainCommand(r.DB, r.Name))
	f.Magnitude = f64(*v.Seconds)
	a.criticalAt3x(&f, *v.Seconds)
	if w != nil && w.StreamID != nil {
		f.Next = doris.SuggestStreamOffsets(*w.StreamID, a.caps.ConsumptionT2)
	}
	return []diag.Finding{f}
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
