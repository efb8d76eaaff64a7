package refresh

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
	if m := incrReason().FindStringSubmatch(msg); m != nil {
		reasonOf = strings.ToUpper(m[1])
	}
	retry := ""
	if m := incrRetryAfter().FindStringSubmatch(msg); m != nil {
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
	// compiled at the first use, not at every start of dorisdiag
	incrReason     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`reason=([A-Za-z_]+)`) })
	incrRetryAfter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`retryAfterMs=(\d+)`) })
)
