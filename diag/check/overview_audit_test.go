package check

import (
	"strconv"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The overview counts failures over every task of the window, not only the
// HistoryLimit newest kept for display, and takes consecutive failures from
// the server's persisted summary when the build has it (seed: "the bounded
// task history does not limit them").
func TestOverviewTasksNotBoundedByDisplayLimit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		failed     int
		serverCF   *int64
		wantFailed int
		wantCF     int
	}{
		{"few failures", 3, nil, 3, 3},
		{"more failures than the display limit", 25, nil, 25, 25},
		{"server summary wins", 2, new(int64(7)), 2, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			b.MV(1, "mv", diagtest.IncrCommit, "orders", 7, 0)
			for i := 0; i < tc.failed; i++ {
				b.Task(1, "mv", int64(100+i), "FAILED", time.Duration(50-i)*time.Minute)
			}
			if tc.serverCF != nil {
				b.S.MVStatus = append(b.S.MVStatus, snapshot.MVStatus{DB: "demo", MVName: "mv", MVID: 1, FreshnessState: "FRESH",
					DataDelaySeconds: new(float64(0)), DelayPrecision: "PRECISE", LaggingReason: "NONE", ConsecutiveFailures: tc.serverCF, SampleTimeMs: diagtest.MsAgo(5 * time.Second)})
			}
			o := Run([]*snapshot.Snapshot{diagtest.Norm(b.S)}, Options{}).Overview
			if o.Tasks.FailedInWindow != tc.wantFailed {
				t.Errorf("failed in window %d, want %d", o.Tasks.FailedInWindow, tc.wantFailed)
			}
			if o.MVs.MaxConsecutiveFailures != tc.wantCF {
				t.Errorf("max consecutive failures %d, want %d", o.MVs.MaxConsecutiveFailures, tc.wantCF)
			}
		})
	}
}

// MONITOR_STALE (BRIEF, seed "MONITOR_SAMPLE_TIME: NULL before the first
// one") fires when the sample time is older than 2 × 15 s or NULL while the
// columns exist; the check overview's monitor.stale must say the same.
func TestOverviewMonitorStaleAgreesWithFinding(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cols    bool
		samples []*int64
		present bool
		stale   bool
	}{
		{"no columns", false, []*int64{nil}, false, false},
		{"fresh", true, []*int64{diagtest.MsAgo(10 * time.Second)}, true, false},
		{"old", true, []*int64{diagtest.MsAgo(time.Minute)}, true, true},
		{"NULL while the columns exist", true, []*int64{nil}, true, true},
		{"one NULL among fresh", true, []*int64{diagtest.MsAgo(10 * time.Second), nil}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			for i, ms := range tc.samples {
				st := b.Stream(int64(100+i), "s"+strconv.Itoa(i), "DETAIL", "orders")
				st.MonitorSampleTimeMs = ms
			}
			if tc.cols {
				b.S.Capabilities.Sources = map[string]snapshot.SourceCapability{"information_schema.table_streams": {Present: true, Columns: []string{"STREAM_NAME", "MONITOR_STATE", "MONITOR_SAMPLE_TIME"}}}
			}
			c := Run([]*snapshot.Snapshot{diagtest.Norm(b.S)}, Options{})
			finding := false
			for _, f := range c.Findings {
				finding = finding || f.Code == streams.CodeMonitorStale
			}
			if c.Overview.Monitor.Present != tc.present || c.Overview.Monitor.Stale != tc.stale || finding != tc.stale {
				t.Errorf("present %v stale %v finding %v, want %v %v %v", c.Overview.Monitor.Present, c.Overview.Monitor.Stale, finding, tc.present, tc.stale, tc.stale)
			}
		})
	}
}
