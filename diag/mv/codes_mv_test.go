package mv

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
)

// TestMVCodesDocumented keeps the MV area (areaMV) in step with the codes BRIEF.md assigns
// to the MV area: every one present, every field filled.
func TestMVCodesDocumented(t *testing.T) {
	want := []string{"MV_DELAY_HIGH", "MV_REBUILD_REQUIRED", "MV_CONSECUTIVE_FAILURES", "MV_CHANGELOG_BROKEN",
		"MV_FALLBACKS_REPEATED", "MV_NEXT_REFRESH_RECOMPUTES", "MV_ROWS_MAY_BE_MISSED", "MV_JOB_PAUSED",
		"MV_TASK_STUCK_RUNNING", "MV_TASK_QUEUED_LONG", "MV_EXCLUDED_DEPENDENCY_OUTDATED", "MV_STATE_UNKNOWN",
		"MV_INTERNAL_STREAM_MISSING", "MV_INITIALIZING"}
	have := map[string]diag.Declaration{}
	for _, c := range mvCodes {
		c := c.Declaration()
		if _, dup := have[c.Code]; dup {
			t.Errorf("%s documented twice", c.Code)
		}
		have[c.Code] = c
		if c.Severity == 0 || c.Title == "" || c.Spec == "" || c.Meaning == "" || c.Matters == "" || c.Confirm == "" || c.Fix == "" || len(c.Related) == 0 {
			t.Errorf("%s: a field is empty: %+v", c.Code, c)
		}
	}
	for _, w := range want {
		if _, ok := have[w]; !ok {
			t.Errorf("%s is not registered in areaMV", w)
		}
	}
}

var mvCodes = []diag.Code{CodeDelayHigh, CodeRebuildRequired, CodeConsecutiveFailures, CodeChangelogBroken, CodeFallbacksRepeated,
	CodeNextRefreshRecomputes, CodeRowsMayBeMissed, CodeJobPaused, CodeTaskStuckRunning, CodeTaskQueuedLong,
	CodeExcludedDependencyOutdated, CodeStateUnknown, CodeInternalStreamMissing, CodeInitializing}
