package mv

import (
	"fmt"
	"strconv"

	"github.com/dorisdiag/dorisdiag/doris"

	"github.com/dorisdiag/dorisdiag/diag"
)

// The check of the bounded incremental read errors 5100 and 5101; their
// classification (refresh/incr_window.go) is part of the task history.

// CodeIncrWindowNotReady: A refresh failed on a bounded incremental read that must be retried (5100/5101)
var CodeIncrWindowNotReady = diag.Declare(diag.Declaration{
	Code:     "MV_INCR_WINDOW_NOT_READY",
	Action:   "let the next refresh retry, act if repeated",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactFreshness,
	Place:    10,
	Title:    "A refresh failed on a bounded incremental read that must be retried (errors 5100, 5101)",
	Spec:     "docs/notes-realbuilds-evidence.md \"Bounded incremental read errors 5100 and 5101\" (Doris IncrWindowNotReadyException; apache/doris#67820)",
	Meaning: "The latest failed refresh failed with ERR_INCR_WINDOW_NOT_READY (5100: the window's end is after the current TSO's time, END_AFTER_CURRENT_TSO, or the TSO service of a new Master is recovering, TSO_RECOVERING) " +
		"or ERR_INCR_VISIBLE_WAIT_TIMEOUT (5101: the transactions committed in the window did not become visible within change_visible_timeout_ms). Both are retryable: " +
		"the same window is read again after a delay (retryAfterMs); nothing is lost as long as the window is not shortened or taken as empty.",
	Matters: "Usually transient (a Master failover, a publish backlog). When it repeats, the MV falls behind: look at publish latency (5101), the FE clocks (END_AFTER_CURRENT_TSO) or a Master stuck recovering its TSO.",
	Confirm: "SELECT TaskId, Status, ErrorMsg FROM tasks(\"type\" = \"mv\") WHERE MvDatabaseName = '<db>' AND MvName = '<mv>' ORDER BY CreateTime DESC LIMIT 10;",
	Fix:     "Nothing when it is transient: the next refresh retries. If it repeats: for 5101 find why publish is slow (BE load, compaction) or raise change_visible_timeout_ms; for END_AFTER_CURRENT_TSO fix the FE clocks; for TSO_RECOVERING check the Master FE's log.",
	Related: []string{"MV_CONSECUTIVE_FAILURES", "MV_DELAY_HIGH"},
})

// checkMVIncrWindowNotReady: the refreshes are still failing and the latest
// failure is 5100 or 5101.
func checkMVIncrWindowNotReady(a *mvAnalyzer, m *mvFacts) []diag.Finding {
	lf := m.h.LastFailure
	if !m.stillFailing || lf == nil || !lf.Retryable {
		return nil
	}
	return m.one(CodeIncrWindowNotReady, fmt.Sprintf("refresh task %d failed with %s: retryable, the same window is read again", lf.TaskID, lf.FailureReason),
		"Cause: "+lf.RetryCause+". A retryable error: the next refresh reads the same window again; it loses nothing unless the window is shortened or taken as empty.",
		m.ev("task_id", strconv.FormatInt(lf.TaskID, 10), "failure_reason", string(lf.FailureReason), "retryable", "true", "last_error", errorGist(lf.ErrorMsg, 200)),
		doris.Comment("nothing while it is transient; if it repeats:")+"\n"+doris.SuggestMVTasks(m.r.DB, m.r.Name, a.caps.IvmRefreshMethod))
}
