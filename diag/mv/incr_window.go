package mv

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/doris"
	"regexp"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
)

// Bounded incremental read errors 5100 and 5101
// (docs/notes-realbuilds-evidence.md; Doris IncrWindowNotReadyException,
// apache/doris#67820): a window that is not readable yet, to be retried on
// the same window. 5100 ERR_INCR_WINDOW_NOT_READY: the requested end is after
// the current TSO's physical time (END_AFTER_CURRENT_TSO) or the TSO service
// is still recovering on a new Master (TSO_RECOVERING); 5101
// ERR_INCR_VISIBLE_WAIT_TIMEOUT: the transactions committed in the window did
// not become visible within change_visible_timeout_ms (VISIBLE_WAIT_TIMEOUT).
// "Clients should retry the same split/window/offset after a cancellable
// delay ... shortening a refused window or treating it as an empty success
// can lose data." The error text is matched anywhere (a task's ErrorMsg may
// carry the FE's "errCode = 2, detailMessage = " prefix).

// The failure reasons of 5100 and 5101.
const (
	FailureIncrWindowNotReady     = "INCR_WINDOW_NOT_READY"     // 5100
	FailureIncrVisibleWaitTimeout = "INCR_VISIBLE_WAIT_TIMEOUT" // 5101
)

// incrWindowFailure classifies an error text as 5100 or 5101: the failure
// reason and the cause, or ok false.
func incrWindowFailure(msg string) (reason, cause string, ok bool) {
	up := strings.ToUpper(msg)
	reasonOf := ""
	if m := incrReason.FindStringSubmatch(msg); m != nil {
		reasonOf = strings.ToUpper(m[1])
	}
	retry := ""
	if m := incrRetryAfter.FindStringSubmatch(msg); m != nil {
		if ms, err := strconv.ParseInt(m[1], 10, 64); err == nil && ms > 0 {
			retry = fmt.Sprintf("; the server asks to retry after %d ms", ms)
		}
	}
	switch {
	case strings.Contains(up, "ERR_INCR_VISIBLE_WAIT_TIMEOUT"):
		return FailureIncrVisibleWaitTimeout, "error 5101: the transactions committed in the read window did not become visible within change_visible_timeout_ms (publish is slow)" + retry, true
	case strings.Contains(up, "ERR_INCR_WINDOW_NOT_READY"):
		switch reasonOf {
		case "TSO_RECOVERING":
			return FailureIncrWindowNotReady, "error 5100 (TSO_RECOVERING): the TSO service of a new Master FE is still recovering" + retry, true
		case "END_AFTER_CURRENT_TSO":
			return FailureIncrWindowNotReady, "error 5100 (END_AFTER_CURRENT_TSO): the window ends after the current TSO's time (clock skew, or a window asked for ahead of time)" + retry, true
		}
		return FailureIncrWindowNotReady, "error 5100: the read window is not readable yet (its end is after the current TSO, or the TSO service is recovering)" + retry, true
	}
	return "", "", false
}

var (
	incrReason     = regexp.MustCompile(`reason=([A-Za-z_]+)`)
	incrRetryAfter = regexp.MustCompile(`retryAfterMs=(\d+)`)
)

// CodeIncrWindowNotReady: A refresh failed on a bounded incremental read that must be retried (5100/5101)
var CodeIncrWindowNotReady = diag.Declare(diag.Declaration{
	Code:     "MV_INCR_WINDOW_NOT_READY",
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
		m.ev("task_id", strconv.FormatInt(lf.TaskID, 10), "failure_reason", lf.FailureReason, "retryable", "true", "last_error", truncateText(lf.ErrorMsg, 200)),
		doris.Comment("nothing while it is transient; if it repeats:")+"\n"+doris.SuggestMVTasks(m.r.DB, m.r.Name, a.caps.IvmRefreshMethod))
}
