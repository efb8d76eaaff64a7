package refresh

import (
	"sort"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The refresh history of one MV from the bounded tasks() window
// (apache/doris#69907 §3 "Refresh result, method and fallback").

// HistoryOptions bound and judge the task history of one MV.
type HistoryOptions struct {
	Limit          int           // tasks kept in History.Tasks (newest first); 0 = 20
	FallbackWindow time.Duration // FallbacksInWindow counts this far back; 0 = 1h
}

// DurationTrend compares the run time of the older and the newer half of the
// successful refreshes in the bounded history (S3: refreshes getting slower);
// a failed refresh's run time is not a refresh's.
type DurationTrend struct {
	Direction  string  `json:"direction"` // rising | falling | flat | unknown (fewer than 4 durations)
	Ratio      float64 `json:"ratio,omitempty"`
	OlderAvgMs int64   `json:"older_avg_ms,omitempty"`
	NewerAvgMs int64   `json:"newer_avg_ms,omitempty"`
	Samples    int     `json:"samples"`
}

// History is the refresh history of one MV from the bounded tasks() window.
type History struct {
	Tasks     []TaskClass `json:"tasks"` // newest first, at most Limit
	TasksSeen int         `json:"tasks_seen"`
	// ConsecutiveFailures counts up on failed, back to 0 on success and
	// no_change, unchanged on canceled (seed §3). When every finished task in
	// the window failed, the true count may be larger: AtLeast says so.
	ConsecutiveFailures        int        `json:"consecutive_failures"`
	ConsecutiveFailuresAtLeast bool       `json:"consecutive_failures_at_least"`
	LastSuccess                *TaskClass `json:"last_success,omitempty"`
	LastFailure                *TaskClass `json:"last_failure,omitempty"`
	LastFinished               *TaskClass `json:"last_finished,omitempty"`
	// LastMethod is the method of the latest task that succeeded or failed.
	LastMethod         RefreshMethod  `json:"last_method,omitempty"`
	LastMethodInferred bool           `json:"last_method_inferred,omitempty"`
	Running            *TaskClass     `json:"running,omitempty"` // the longest running
	OldestPending      *TaskClass     `json:"oldest_pending,omitempty"`
	FallbacksInWindow  int            `json:"fallbacks_in_window"`
	FallbackReasons    map[string]int `json:"fallback_reasons,omitempty"` // in the window
	FallbackWindowSecs int64          `json:"fallback_window_seconds"`
	// RecomputeShare is, over the finished tasks in the history that
	// committed data, the share that rebuilt (partition_rebuild or complete)
	// instead of applying a delta (S3). nil when none committed data.
	RecomputeShare *float64      `json:"recompute_share,omitempty"`
	RecomputeTasks int           `json:"recompute_tasks"`
	DataTasks      int           `json:"data_tasks"`
	DurationTrend  DurationTrend `json:"duration_trend"`
	// UnknownStatuses counts rows with a status the seed does not define.
	UnknownStatuses int `json:"unknown_statuses,omitempty"`
	// FailedInWindowAll counts the failed tasks that finished within the
	// fallback window, over every task seen (Tasks keeps only Limit): the
	// overview's count, not part of the MV's JSON.
	FailedInWindowAll int `json:"-"`
}

// AnalyzeHistory classifies an MV's tasks and summarises them. tasks may be
// in any order; they are ordered by CreateTime, then TaskID.
func AnalyzeHistory(tasks []snapshot.Task, refresh snapshot.RefreshInfo, now time.Time, opt HistoryOptions) History {
	if opt.Limit <= 0 {
		opt.Limit = 20
	}
	if opt.FallbackWindow <= 0 {
		opt.FallbackWindow = time.Hour
	}
	cls := make([]TaskClass, len(tasks))
	for i, t := range tasks {
		cls[i] = ClassifyTask(t, refresh, now)
	}
	sort.SliceStable(cls, func(i, j int) bool { // oldest first
		a, b := cls[i].CreateTimeMs, cls[j].CreateTimeMs
		if a != nil && b != nil && *a != *b {
			return *a < *b
		}
		return cls[i].TaskID < cls[j].TaskID
	})
	// Seed §3: building the first baseline is not a fallback. Doris records
	// it as IvmFallbackReason INCOMPLETE_REFRESH_SNAPSHOT (MTMVTask: an IVM
	// MV without a refresh snapshot, fallback allowed, runs COMPLETE), the
	// same reason as a later rebuild of an invalidated snapshot, which is a
	// fallback. What tells them apart is whether the MV ever had a baseline:
	// a success before it. With none in the bounded history it is taken as
	// the baseline, and NotFallback says so.
	succeeded := false
	for i := range cls {
		c := &cls[i]
		if c.Fallback && strings.EqualFold(c.FallbackReason, "INCOMPLETE_REFRESH_SNAPSHOT") && !succeeded {
			c.Fallback = false
			c.NotFallback = "first baseline build: no refresh snapshot and no earlier success in the task history (apache/doris#69907 §3: not a fallback)"
			if len(cls) >= opt.Limit {
				c.NotFallback += "; the history is bounded, so an older success may have dropped out of it"
			}
		}
		if c.Result == ResultSuccess || c.Result == ResultNoChange {
			succeeded = true
		}
	}
	h := History{TasksSeen: len(cls), FallbackWindowSecs: int64(opt.FallbackWindow / time.Second)}
	windowStart := now.Add(-opt.FallbackWindow).UnixMilli()
	sawReset := false
	var durations []int64
	for i := range cls {
		c := &cls[i]
		switch c.Result {
		case ResultFailed:
			h.ConsecutiveFailures++
			h.LastFailure = c
			if c.FinishTimeMs != nil && *c.FinishTimeMs >= windowStart {
				h.FailedInWindowAll++
			}
		case ResultSuccess, ResultNoChange:
			h.ConsecutiveFailures = 0
			sawReset = true
			h.LastSuccess = c
		case ResultCanceled:
			// unchanged (seed §3)
		case ResultRunning:
			// The longest running one (seed: oldest_running_age), by its
			// start: a task created earlier may have started later.
			if h.Running == nil || ageOf(c) > ageOf(h.Running) {
				h.Running = c
			}
		case ResultPending:
			if h.OldestPending == nil {
				h.OldestPending = c
			}
		default:
			h.UnknownStatuses++
		}
		if c.Result == ResultFailed || c.Result == ResultSuccess || c.Result == ResultNoChange {
			h.LastMethod, h.LastMethodInferred = c.Method, c.MethodInferred
			// Only refreshes that did their work: a failure's run time
			// says how soon it failed, and "falling" for an MV whose every
			// refresh fails read as good news (issue 25).
			if c.DurationMs != nil && *c.DurationMs >= 0 && c.Result != ResultFailed {
				durations = append(durations, *c.DurationMs)
			}
		}
		if c.Finished {
			h.LastFinished = c
		}
		if c.Fallback {
			at := firstNonNil(c.FinishTimeMs, c.StartTimeMs, c.CreateTimeMs)
			if at != nil && *at >= windowStart {
				h.FallbacksInWindow++
				if h.FallbackReasons == nil {
					h.FallbackReasons = map[string]int{}
				}
				h.FallbackReasons[c.FallbackReason]++
			}
		}
		if c.Finished && c.Method != "" && c.Method != MethodNone && c.Result != ResultFailed && c.Result != ResultCanceled {
			h.DataTasks++
			if c.Method == MethodComplete || c.Method == MethodPartitionRebuild {
				h.RecomputeTasks++
			}
		}
	}
	h.ConsecutiveFailuresAtLeast = h.ConsecutiveFailures > 0 && !sawReset
	if h.DataTasks > 0 {
		s := float64(h.RecomputeTasks) / float64(h.DataTasks)
		h.RecomputeShare = &s
	}
	h.DurationTrend = durationTrend(durations)
	// Newest first, bounded.
	for i := len(cls) - 1; i >= 0 && len(h.Tasks) < opt.Limit; i-- {
		h.Tasks = append(h.Tasks, cls[i])
	}
	return h
}

// ageOf is a running or pending task's age; -1 when unknown.
func ageOf(c *TaskClass) float64 {
	if c.AgeSeconds == nil {
		return -1
	}
	return *c.AgeSeconds
}

func durationTrend(d []int64) DurationTrend {
	tr := DurationTrend{Direction: "unknown", Samples: len(d)}
	if len(d) < 4 {
		return tr
	}
	half := len(d) / 2
	avg := func(xs []int64) int64 {
		var s int64
		for _, x := range xs {
			s += x
		}
		return s / int64(len(xs))
	}
	tr.OlderAvgMs, tr.NewerAvgMs = avg(d[:half]), avg(d[len(d)-half:])
	if tr.OlderAvgMs <= 0 {
		if tr.NewerAvgMs > 0 {
			tr.Direction = "rising"
		} else {
			tr.Direction = "flat"
		}
		return tr
	}
	tr.Ratio = float64(tr.NewerAvgMs) / float64(tr.OlderAvgMs)
	switch {
	case tr.Ratio >= 1.5:
		tr.Direction = "rising"
	case tr.Ratio <= 1/1.5:
		tr.Direction = "falling"
	default:
		tr.Direction = "flat"
	}
	return tr
}
