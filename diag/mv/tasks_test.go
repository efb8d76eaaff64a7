package mv

import (
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

func ip64(v int64) *int64 { return &v }
func sp(s string) *string { return &s }

func TestClassifyTask(t *testing.T) {
	incr := diagtest.RefreshOf("BUILD DEFERRED REFRESH INCREMENTAL ON COMMIT")
	fb := diagtest.RefreshOf("BUILD DEFERRED REFRESH INCREMENTAL FALLBACK ON COMMIT")
	for _, tc := range []struct {
		name        string
		task        snapshot.Task
		refresh     RefreshInfo
		result      refresh.RefreshResult
		method      refresh.RefreshMethod
		inferred    bool
		fallback    bool
		reason      string // fallback reason or failure reason
		notFallback string
	}{
		{name: "server method incremental", task: snapshot.Task{Status: "SUCCESS", IvmRefreshMethod: sp("INCREMENTAL")}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodIncremental},
		{name: "server method NONE is no_change", task: snapshot.Task{Status: "SUCCESS", IvmRefreshMethod: sp("NONE")}, refresh: fb, result: refresh.ResultNoChange, method: refresh.MethodNone},
		{name: "server method \\N falls back to inference", task: snapshot.Task{Status: "SUCCESS", IvmRefreshMethod: sp(`\N`), RefreshMode: `\N`}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodIncremental, inferred: true},
		{name: "unknown server method kept", task: snapshot.Task{Status: "SUCCESS", IvmRefreshMethod: sp("HYBRID")}, refresh: fb, result: refresh.ResultSuccess, method: "hybrid"},
		{name: "inferred incremental from \\N RefreshMode", task: snapshot.Task{Status: "SUCCESS", RefreshMode: ""}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodIncremental, inferred: true},
		{name: "inferred NOT_REFRESH is no_change", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "NOT_REFRESH"}, refresh: fb, result: refresh.ResultNoChange, method: refresh.MethodNone, inferred: true},
		{name: "dirty partitions rebuilt before the delta is mixed, not a fallback", task: snapshot.Task{Status: "SUCCESS", RefreshMode: `\N`, IvmRebuiltPartitions: ip64(2)}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodMixed, inferred: true},
		{name: "PARTIAL with rebuilt partitions and no reason is mixed", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "PARTIAL", IvmRebuiltPartitions: ip64(1), TaskContext: `{"triggerMode":"COMMIT","partitions":[]}`}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodMixed, inferred: true},
		{name: "PARTIAL on an explicit PARTITIONS request is a partition rebuild", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "PARTIAL", IvmRebuiltPartitions: ip64(1), TaskContext: `{"partitions":["p1"]}`}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodPartitionRebuild, inferred: true},
		{name: "mixed with a reason is still not a fallback", task: snapshot.Task{Status: "SUCCESS", IvmRefreshMethod: sp("MIXED"), IvmFallbackReason: "PREVIOUS_RUN_INCOMPLETE"}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodMixed, notFallback: "the delta was applied (mixed)"},
		{name: "fallback to complete", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "COMPLETE", IvmFallbackReason: "AGG_UNSUPPORTED"}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodComplete, inferred: true, fallback: true, reason: "AGG_UNSUPPORTED"},
		{name: "fallback to partitions", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "PARTIAL", IvmFallbackReason: "incomplete_refresh_snapshot", IvmRebuiltPartitions: ip64(3)}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodPartitionRebuild, inferred: true, fallback: true, reason: "INCOMPLETE_REFRESH_SNAPSHOT"},
		{name: "a fallback that committed nothing is not a fallback", task: snapshot.Task{Status: "SUCCESS", IvmRefreshMethod: sp("NONE"), IvmFallbackReason: "CHANGELOG_BROKEN"}, refresh: fb, result: refresh.ResultNoChange, method: refresh.MethodNone, notFallback: "committed nothing"},
		{name: "a failed fallback is not a fallback", task: snapshot.Task{Status: "FAILED", IvmFallbackReason: "AGG_UNSUPPORTED", ErrorMsg: "boom"}, refresh: fb, result: refresh.ResultFailed, method: refresh.MethodNone, inferred: true, reason: string(refresh.FailureOther), notFallback: "failed: committed nothing"},
		{name: "canceled is not a fallback", task: snapshot.Task{Status: "CANCELED", RefreshMode: "COMPLETE", IvmFallbackReason: "AGG_UNSUPPORTED"}, refresh: fb, result: refresh.ResultCanceled, method: refresh.MethodNone, inferred: true, notFallback: "canceled"},
		{name: "explicit complete request is not a fallback", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "COMPLETE", IvmFallbackReason: "AGG_UNSUPPORTED", TaskContext: `{"triggerMode":"MANUAL","isComplete":true}`}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodComplete, inferred: true, notFallback: "explicit COMPLETE request"},
		{name: "explicit partitions request is not a fallback", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "PARTIAL", IvmFallbackReason: "AGG_UNSUPPORTED", TaskContext: `{"partitions":["p1"]}`}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodPartitionRebuild, inferred: true, notFallback: "explicit PARTITIONS request"},
		{name: "baseline complete without a reason is not a fallback", task: snapshot.Task{Status: "SUCCESS", RefreshMode: "COMPLETE"}, refresh: fb, result: refresh.ResultSuccess, method: refresh.MethodComplete, inferred: true},
		{name: "expired offset is CHANGELOG_BROKEN", task: snapshot.Task{Status: "FAILED", ErrorMsg: "Row changelog offset has expired according to changelog.ttl_seconds"}, refresh: fb, result: refresh.ResultFailed, method: refresh.MethodNone, inferred: true, reason: "CHANGELOG_BROKEN"},
		{name: "expired offset, old naming, is BINLOG_BROKEN", task: snapshot.Task{Status: "FAILED", ErrorMsg: "Row binlog offset has expired according to binlog.ttl_seconds"}, refresh: fb, result: refresh.ResultFailed, method: refresh.MethodNone, inferred: true, reason: "BINLOG_BROKEN"},
		{name: "no fallback allowed: the IVM reason", task: snapshot.Task{Status: "FAILED", IvmFallbackReason: "OUTER_JOIN_RETRACTION_UNSUPPORTED", ErrorMsg: "incremental refresh not possible"}, refresh: incr, result: refresh.ResultFailed, method: refresh.MethodNone, inferred: true, reason: "OUTER_JOIN_RETRACTION_UNSUPPORTED", notFallback: "failed: committed nothing"},
		{name: "execution failure", task: snapshot.Task{Status: "FAILED", ErrorMsg: "errCode = 2, detailMessage = EXECUTION_FAILED: Memory limit exceeded"}, refresh: fb, result: refresh.ResultFailed, method: refresh.MethodNone, inferred: true, reason: string(refresh.FailureExecutionFailed)},
		{name: "failure without a message is OTHER", task: snapshot.Task{Status: "FAILED", ErrorMsg: `\N`}, refresh: fb, result: refresh.ResultFailed, method: refresh.MethodNone, inferred: true, reason: string(refresh.FailureOther)},
		{name: "unknown status kept as data", task: snapshot.Task{Status: "WAITING_FOR_GODOT"}, refresh: fb, result: "waiting_for_godot"},
		{name: "empty status", task: snapshot.Task{Status: `\N`}, refresh: fb, result: "unknown"},
		{name: "running", task: snapshot.Task{Status: "RUNNING", StartTimeMs: diagtest.MsAgo(2 * time.Hour)}, refresh: fb, result: refresh.ResultRunning},
		{name: "pending", task: snapshot.Task{Status: "PENDING", CreateTimeMs: diagtest.MsAgo(20 * time.Minute)}, refresh: fb, result: refresh.ResultPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := refresh.ClassifyTask(diagtest.NormTask(tc.task), tc.refresh, diagtest.Now)
			if c.Result != tc.result || c.Method != tc.method || c.MethodInferred != tc.inferred || c.Fallback != tc.fallback {
				t.Fatalf("got result=%s method=%s inferred=%v fallback=%v, want %s %s %v %v", c.Result, c.Method, c.MethodInferred, c.Fallback, tc.result, tc.method, tc.inferred, tc.fallback)
			}
			reason := c.FallbackReason
			if c.Result == refresh.ResultFailed {
				reason = string(c.FailureReason)
			}
			if reason != tc.reason {
				t.Errorf("reason %q, want %q", reason, tc.reason)
			}
			if c.NotFallback != tc.notFallback {
				t.Errorf("not_fallback %q, want %q", c.NotFallback, tc.notFallback)
			}
		})
	}
	if c := refresh.ClassifyTask(snapshot.Task{Status: "RUNNING", StartTimeMs: diagtest.MsAgo(2 * time.Hour)}, fb, diagtest.Now); c.AgeSeconds == nil || *c.AgeSeconds != 7200 {
		t.Errorf("running age %v, want 7200", c.AgeSeconds)
	}
	if c := refresh.ClassifyTask(snapshot.Task{Status: "PENDING", CreateTimeMs: diagtest.MsAgo(20 * time.Minute)}, fb, diagtest.Now); c.AgeSeconds == nil || *c.AgeSeconds != 1200 {
		t.Errorf("pending age %v, want 1200", c.AgeSeconds)
	}
}

func mvTask(id int64, status string, ago time.Duration) snapshot.Task {
	d := int64(1000)
	return snapshot.Task{TaskID: id, Status: status, CreateTimeMs: diagtest.MsAgo(ago), FinishTimeMs: diagtest.MsAgo(ago - time.Second), DurationMs: &d}
}

func TestConsecutiveFailures(t *testing.T) {
	fb := diagtest.RefreshOf("REFRESH INCREMENTAL FALLBACK ON COMMIT")
	for _, tc := range []struct {
		name    string
		tasks   []snapshot.Task
		want    int
		atLeast bool
	}{
		{"none", nil, 0, false},
		{"up on failed", []snapshot.Task{mvTask(1, "SUCCESS", 50*time.Minute), mvTask(2, "FAILED", 40*time.Minute), mvTask(3, "FAILED", 30*time.Minute)}, 2, false},
		{"reset on success", []snapshot.Task{mvTask(1, "FAILED", 50*time.Minute), mvTask(2, "SUCCESS", 40*time.Minute)}, 0, false},
		{"reset on no_change", []snapshot.Task{mvTask(1, "FAILED", 50*time.Minute), {TaskID: 2, Status: "SUCCESS", RefreshMode: "NOT_REFRESH", CreateTimeMs: diagtest.MsAgo(40 * time.Minute)}}, 0, false},
		{"canceled leaves it unchanged", []snapshot.Task{mvTask(1, "SUCCESS", 50*time.Minute), mvTask(2, "FAILED", 40*time.Minute), mvTask(3, "CANCELED", 30*time.Minute), mvTask(4, "FAILED", 20*time.Minute)}, 2, false},
		{"all failed: at least", []snapshot.Task{mvTask(1, "FAILED", 50*time.Minute), mvTask(2, "FAILED", 40*time.Minute), mvTask(3, "FAILED", 30*time.Minute), mvTask(4, "FAILED", 20*time.Minute)}, 4, true},
		{"unordered input", []snapshot.Task{mvTask(4, "FAILED", 20*time.Minute), mvTask(1, "SUCCESS", 50*time.Minute), mvTask(3, "FAILED", 30*time.Minute)}, 2, false},
	} {
		h := refresh.AnalyzeHistory(diagtest.NormTasks(tc.tasks), fb, diagtest.Now, refresh.HistoryOptions{})
		if h.ConsecutiveFailures != tc.want || h.ConsecutiveFailuresAtLeast != tc.atLeast {
			t.Errorf("%s: %d (at least %v), want %d (%v)", tc.name, h.ConsecutiveFailures, h.ConsecutiveFailuresAtLeast, tc.want, tc.atLeast)
		}
	}
}

func TestHistoryFallbacksShareTrend(t *testing.T) {
	fb := diagtest.RefreshOf("REFRESH INCREMENTAL FALLBACK ON COMMIT")
	var tasks []snapshot.Task
	for i := 0; i < 8; i++ {
		tk := mvTask(int64(i+1), "SUCCESS", time.Duration(100-i*10)*time.Minute)
		d := int64(1000)
		if i >= 4 {
			d = 5000
			tk.RefreshMode, tk.IvmFallbackReason = "COMPLETE", "AGG_UNSUPPORTED"
		}
		tk.DurationMs = &d
		tasks = append(tasks, tk)
	}
	h := refresh.AnalyzeHistory(diagtest.NormTasks(tasks), fb, diagtest.Now, refresh.HistoryOptions{Limit: 5})
	// Tasks 5..8 fell back and finished 59m59s to 29m59s ago: all within the hour.
	if h.FallbacksInWindow != 4 || h.FallbackReasons["AGG_UNSUPPORTED"] != 4 {
		t.Errorf("fallbacks in window %d %v, want 4", h.FallbacksInWindow, h.FallbackReasons)
	}
	if h.RecomputeShare == nil || *h.RecomputeShare != 0.5 || h.DataTasks != 8 {
		t.Errorf("recompute share %v over %d, want 0.5 over 8", h.RecomputeShare, h.DataTasks)
	}
	if h.DurationTrend.Direction != "rising" || h.DurationTrend.Ratio != 5 {
		t.Errorf("trend %+v, want rising ×5", h.DurationTrend)
	}
	if len(h.Tasks) != 5 || h.Tasks[0].TaskID != 8 {
		t.Errorf("bounded history: %d tasks, newest %d", len(h.Tasks), h.Tasks[0].TaskID)
	}
	if h.LastMethod != refresh.MethodComplete || !h.LastMethodInferred {
		t.Errorf("last method %s inferred=%v", h.LastMethod, h.LastMethodInferred)
	}
}

// TestFirstBaselineIsNotAFallback: Doris records the first build of an IVM
// MV (no refresh snapshot yet, fallback allowed) with IvmFallbackReason
// INCOMPLETE_REFRESH_SNAPSHOT (MTMVTask.executeIvmAttempt); the seed says
// building the first baseline is not a fallback, while rebuilding a snapshot
// invalidated later is.
func TestFirstBaselineIsNotAFallback(t *testing.T) {
	fb := diagtest.RefreshOf("BUILD IMMEDIATE REFRESH INCREMENTAL FALLBACK ON COMMIT")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *int64 { v := now.Add(-ago).UnixMilli(); return &v }
	complete := func(id int64, ago time.Duration) snapshot.Task {
		return snapshot.Task{TaskID: id, Status: "SUCCESS", RefreshMode: "COMPLETE", IvmFallbackReason: "INCOMPLETE_REFRESH_SNAPSHOT",
			CreateTimeMs: at(ago), FinishTimeMs: at(ago - time.Minute), TaskContext: `{"triggerMode":"SYSTEM"}`}
	}
	incr := snapshot.Task{TaskID: 2, Status: "SUCCESS", RefreshMode: `\N`, CreateTimeMs: at(40 * time.Minute), FinishTimeMs: at(39 * time.Minute)}
	h := refresh.AnalyzeHistory(diagtest.NormTasks([]snapshot.Task{complete(1, 50*time.Minute), incr, complete(3, 20*time.Minute)}), fb, now, refresh.HistoryOptions{})
	byID := map[int64]refresh.TaskClass{}
	for _, c := range h.Tasks {
		byID[c.TaskID] = c
	}
	if c := byID[1]; c.Fallback || !strings.Contains(c.NotFallback, "first baseline") {
		t.Errorf("task 1 (first build): fallback=%v not=%q, want the baseline, not a fallback", c.Fallback, c.NotFallback)
	}
	if c := byID[3]; !c.Fallback || c.FallbackReason != "INCOMPLETE_REFRESH_SNAPSHOT" {
		t.Errorf("task 3 (snapshot invalidated after a success): fallback=%v reason=%q, want a fallback", c.Fallback, c.FallbackReason)
	}
	if h.FallbacksInWindow != 1 {
		t.Errorf("fallbacks in window = %d, want 1", h.FallbacksInWindow)
	}
}

// TestTrendIgnoresFailures (issue 25): every refresh failed, each sooner
// than the last; mv explain said "duration trend falling".
func TestTrendIgnoresFailures(t *testing.T) {
	fb := diagtest.RefreshOf("REFRESH INCREMENTAL FALLBACK ON COMMIT")
	var tasks []snapshot.Task
	for i := 0; i < 8; i++ {
		tk := mvTask(int64(i+1), "FAILED", time.Duration(100-i*10)*time.Minute)
		d := int64(8000 - i*1000)
		tk.DurationMs = &d
		tasks = append(tasks, tk)
	}
	h := refresh.AnalyzeHistory(diagtest.NormTasks(tasks), fb, diagtest.Now, refresh.HistoryOptions{})
	if h.DurationTrend.Direction != "unknown" || h.DurationTrend.Samples != 0 {
		t.Errorf("trend %+v over failures only, want unknown", h.DurationTrend)
	}
}
