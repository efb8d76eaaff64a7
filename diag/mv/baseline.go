package mv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// A broken IVM baseline (docs/notes-realbuilds-evidence.md "BINLOG_BROKEN is
// a broken IVM baseline"). On the ROW binlog builds, IvmFallbackReason
// BINLOG_BROKEN does not mean an expired TTL: a COMPLETE or PARTITIONS
// refresh of an IVM MV marks the baseline broken when it starts
// (IvmRefreshManager.markIvmBaselineBroken), and only that refresh's publish
// clears it (finishIvmFullRefresh); a refresh naming explicit partitions
// marks it too. While it is marked, the incremental precheck falls back
// ("Stream binlog is marked as broken") and the next refresh recomputes. The
// message is the fallback's detail, not the task's ErrorMsg: a task that
// fell back and succeeded has no ErrorMsg. An expired offset is the
// expired-offset error text (MV_CHANGELOG_BROKEN), or CHANGELOG_BROKEN on the
// Doris 5.0 changelog.

// CodeIVMBaselineBroken: The MV's IVM baseline is marked broken: the next refresh recomputes
var CodeIVMBaselineBroken = diag.Declare(diag.Declaration{
	Code:     "MV_IVM_BASELINE_BROKEN",
	Action:   "let a COMPLETE refresh finish and publish",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactFreshness,
	Place:    8,
	Title:    "The MV's IVM baseline is marked broken: refreshes recompute instead of applying a delta",
	Spec:     "docs/notes-realbuilds-evidence.md \"BINLOG_BROKEN is a broken IVM baseline\" (Doris IvmRefreshManager markIvmBaselineBroken / finishIvmFullRefresh)",
	Meaning: "The latest finished refresh task carries IvmFallbackReason BINLOG_BROKEN without an expired-offset error. Doris marks an IVM MV's baseline broken when a " +
		"COMPLETE or PARTITIONS refresh starts (or a refresh names explicit partitions) and clears the mark only when such a refresh publishes. While it is marked, " +
		"an incremental refresh falls back (\"Stream binlog is marked as broken\") and recomputes; if falling back is not allowed (REFRESH INCREMENTAL without FALLBACK) it fails. " +
		"It is not an expired TTL: that is the error \"offset has expired according to binlog.ttl_seconds\" (MV_CHANGELOG_BROKEN).",
	Matters: "Every refresh recomputes the MV (slow, loads the cluster) until a COMPLETE refresh publishes; a refresh that may not fall back fails until then.",
	Confirm: "SELECT TaskId, Status, RefreshMode, IvmFallbackReason, ErrorMsg, TaskContext FROM tasks(\"type\" = \"mv\") WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 10;  -- a COMPLETE/PARTITIONS task that failed, was canceled or still runs",
	Fix:     "Let a COMPLETE refresh finish and publish: REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE at a quiet time (and look at why the last one did not publish: its ErrorMsg, or a base-table change during it).",
	Related: []string{"MV_FALLBACKS_REPEATED", "MV_CONSECUTIVE_FAILURES", "MV_CHANGELOG_BROKEN"},
})

// baselineBrokenReason is the IvmFallbackReason of a broken baseline on the
// ROW binlog builds.
const baselineBrokenReason = refresh.FailureBinlogBroken

// isExpiryBroken says a failure reason with its error text is an expired
// offset (T0): CHANGELOG_BROKEN, or BINLOG_BROKEN with the expired-offset
// text. BINLOG_BROKEN alone is a broken baseline.
func isExpiryBroken(reason, msg string) bool {
	r := refresh.FailureReason(strings.ToUpper(strings.TrimSpace(reason)))
	return r == refresh.FailureChangelogBroken || r == baselineBrokenReason && refresh.IsExpiryText(msg)
}

// checkMVIVMBaselineBroken: the latest finished task of the MV carries
// IvmFallbackReason BINLOG_BROKEN and no expired-offset error.
func checkMVIVMBaselineBroken(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	if m.changelogBroken {
		return nil
	}
	var finished []snapshot.Task
	for _, t := range a.tasksByMV[m.r.ID] {
		if doris.ParseTaskStatus(t.Status).Finished() {
			finished = append(finished, t)
		}
	}
	if len(finished) == 0 {
		return nil
	}
	sort.SliceStable(finished, func(i, j int) bool { // newest first
		x, y := finished[i].CreateTimeMs, finished[j].CreateTimeMs
		if x != nil && y != nil && *x != *y {
			return *x > *y
		}
		return finished[i].TaskID > finished[j].TaskID
	})
	t := finished[0]
	if !strings.EqualFold(strings.TrimSpace(t.IvmFallbackReason), string(baselineBrokenReason)) || refresh.IsExpiryText(t.ErrorMsg) {
		return nil
	}
	status := doris.ParseTaskStatus(t.Status)
	what := "it fell back and recomputed"
	if status == doris.TaskFailed {
		what = "it failed (falling back was not allowed, or the recompute failed)"
	} else if status != doris.TaskSuccess {
		what = "it was canceled"
	}
	errText := ""
	if msg := strings.TrimSpace(t.ErrorMsg); msg != "" {
		errText = " ErrorMsg: " + errorGist(msg, 200) + "."
	}
	return m.one(CodeIVMBaselineBroken, fmt.Sprintf("the IVM baseline is marked broken (BINLOG_BROKEN): task %d %s; refreshes recompute until a COMPLETE refresh publishes", t.TaskID, strings.ToLower(string(status))),
		fmt.Sprintf("Task %d ended %s with IvmFallbackReason BINLOG_BROKEN: %s. Doris marks the baseline broken when a COMPLETE or PARTITIONS refresh starts, or a refresh names explicit partitions, "+
			"and clears it only when such a refresh publishes; until then the incremental precheck falls back (\"Stream binlog is marked as broken\"). This is not an expired TTL.%s",
			t.TaskID, status, what, errText),
		m.ev("task_id", strconv.FormatInt(t.TaskID, 10), "task_status", string(status), "fallback_reason", string(baselineBrokenReason), "last_error", errorGist(t.ErrorMsg, 200)),
		doris.Note(doris.RefreshMV(m.r.DB, m.r.Name, "COMPLETE"), "at a quiet time; it clears the mark when it publishes"))
}
