package mv

import (
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Seed §3: consecutive failures "stay on canceled", and a canceled task
// leaves the refresh summary as it is. A canceled task after failures must
// therefore not hide REFRESH_FAILED or a broken changelog (T0).
func TestCanceledAfterFailureKeepsFailureState(t *testing.T) {
	expired := "Row changelog offset has expired according to changelog.ttl_seconds"
	for _, tc := range []struct {
		name     string
		statuses []string // oldest first, 10 minutes apart
		reason   LaggingReason
		broken   bool
	}{
		{"failed then canceled", []string{"SUCCESS", "FAILED", "CANCELED"}, ReasonRefreshFailed, true},
		{"failed, canceled, canceled", []string{"SUCCESS", "FAILED", "CANCELED", "CANCELED"}, ReasonRefreshFailed, true},
		{"failed then success then canceled", []string{"FAILED", "SUCCESS", "CANCELED"}, ReasonWaitingTrigger, false},
		{"failed last", []string{"SUCCESS", "CANCELED", "FAILED"}, ReasonRefreshFailed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			b.MV(1, "mv", diagtest.IncrCommit, "orders", 7, 12*time.Minute)
			n := len(tc.statuses)
			for i, st := range tc.statuses {
				tk := b.Task(1, "mv", int64(10+i), st, time.Duration(n-i)*10*time.Minute)
				if st == "FAILED" {
					tk.ErrorMsg = expired
				}
			}
			r := analyzeMVs(t, b.S)
			m := r.ByName("demo", "mv")
			if m.LaggingReason != tc.reason {
				t.Errorf("lagging reason %s, want %s", m.LaggingReason, tc.reason)
			}
			if _, ok := mvCodesOf(r, "mv")["MV_CHANGELOG_BROKEN"]; ok != tc.broken {
				t.Errorf("MV_CHANGELOG_BROKEN %v, want %v", ok, tc.broken)
			}
		})
	}
}

// The overview's "longest running task" (seed: oldest_running_age, "how long
// the longest running refresh task has run") must be the longest one, not
// the newest: a manual task may run beside the automatic one.
func TestHistoryRunningIsTheLongest(t *testing.T) {
	fb := diagtest.RefreshOf("REFRESH INCREMENTAL FALLBACK ON COMMIT")
	run := func(id int64, created, started time.Duration) snapshotTask {
		return snapshotTask{TaskID: id, Status: "RUNNING", CreateTimeMs: diagtest.MsAgo(created), StartTimeMs: diagtest.MsAgo(started)}
	}
	for _, tc := range []struct {
		name  string
		tasks []snapshotTask
		want  int64
	}{
		{"one", []snapshotTask{run(1, 2*time.Hour, 2*time.Hour)}, 1},
		{"older first", []snapshotTask{run(1, 2*time.Hour, 2*time.Hour), run(2, time.Hour, time.Hour)}, 1},
		{"newer given first", []snapshotTask{run(2, time.Hour, time.Hour), run(1, 2*time.Hour, 2*time.Hour)}, 1},
		{"created earlier, started later", []snapshotTask{run(1, 3*time.Hour, 10*time.Minute), run(2, time.Hour, time.Hour)}, 2},
	} {
		h := refresh.AnalyzeHistory(diagtest.NormTasks(tc.tasks), fb, diagtest.Now, refresh.HistoryOptions{})
		if h.Running == nil || h.Running.TaskID != tc.want {
			t.Errorf("%s: running %+v, want task %d", tc.name, h.Running, tc.want)
		}
	}
}

type snapshotTask = snapshot.Task

// Seed §3: "A failure reason is the IVM reason when falling back is not
// allowed, and otherwise the stage that threw ... An expired offset is
// CHANGELOG_BROKEN (T0)."
func TestFailureReasonFollowsFallbackAllowed(t *testing.T) {
	incr := diagtest.RefreshOf("BUILD DEFERRED REFRESH INCREMENTAL ON COMMIT")
	fb := diagtest.RefreshOf("BUILD DEFERRED REFRESH INCREMENTAL FALLBACK ON COMMIT")
	auto := diagtest.RefreshOf("BUILD DEFERRED REFRESH AUTO ON COMMIT")
	for _, tc := range []struct {
		name    string
		refresh RefreshInfo
		msg     string
		ivm     string // IvmFallbackReason
		want    refresh.FailureReason
	}{
		{"no fallback: IVM reason from the text", incr, "incremental refresh impossible: AGG_UNSUPPORTED", "", "AGG_UNSUPPORTED"},
		{"no fallback: IVM reason from IvmFallbackReason", incr, "boom", "OUTER_JOIN_RETRACTION_UNSUPPORTED", "OUTER_JOIN_RETRACTION_UNSUPPORTED"},
		{"fallback allowed: the stage, not the IVM reason in the text", fb, "AGG_UNSUPPORTED, fell back; insert execution failed: memory", "", refresh.FailureExecutionFailed},
		{"fallback allowed: IvmFallbackReason is not the failure reason", fb, "boom", "AGG_UNSUPPORTED", refresh.FailureOther},
		{"AUTO allows fallback", auto, "plan PLAN_PATTERN_UNSUPPORTED", "", refresh.FailureOther},
		{"fallback allowed: expired offset is still CHANGELOG_BROKEN (T0)", fb, "Row changelog offset has expired according to changelog.ttl_seconds", "", "CHANGELOG_BROKEN"},
		{"fallback allowed: CHANGELOG_BROKEN token (T0)", fb, "refresh failed: CHANGELOG_BROKEN", "", "CHANGELOG_BROKEN"},
		{"fallback allowed: BINLOG_BROKEN token kept as seen", fb, "refresh failed: BINLOG_BROKEN", "", "BINLOG_BROKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := refresh.ClassifyTask(snapshotTask{Status: "FAILED", ErrorMsg: tc.msg, IvmFallbackReason: tc.ivm}, tc.refresh, diagtest.Now)
			if c.FailureReason != tc.want {
				t.Errorf("failure reason %s, want %s", c.FailureReason, tc.want)
			}
		})
	}
}

// ivm_mv_status is from the latest round (up to one interval old plus the
// sample's age): a refresh that finished after SAMPLE_TIME may have covered
// everything, so a server delay above the client's bound is expected then,
// not a disagreement. Without such a refresh it still is one.
func TestMVCrossCheckRefreshAfterSample(t *testing.T) {
	for _, tc := range []struct {
		name       string
		finishedAt time.Duration // the latest success finished this long ago
		mismatch   bool
	}{
		{"refresh finished after the sample", 5 * time.Second, false},
		{"refresh finished before the sample", 30 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			b.MV(1, "mv", diagtest.IncrCommit, "orders", 7, 0)
			tk := b.Task(1, "mv", 10, "SUCCESS", tc.finishedAt+2*time.Second)
			tk.FinishTimeMs = diagtest.MsAgo(tc.finishedAt)
			b.S.MVStatus = []snapshot.MVStatus{{DB: "demo", MVName: "mv", MVID: 1, FreshnessState: "LAGGING", DataDelaySeconds: f64(3600),
				DelayPrecision: "PRECISE", LaggingReason: "RUNNING", SampleTimeMs: diagtest.MsAgo(12 * time.Second)}}
			r := analyzeMVs(t, b.S)
			if _, ok := mvCodesOf(r, "mv")["SERVER_CLIENT_MISMATCH"]; ok != tc.mismatch {
				t.Errorf("SERVER_CLIENT_MISMATCH %v, want %v", ok, tc.mismatch)
			}
		})
	}
}
