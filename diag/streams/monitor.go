package streams

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The FE monitor itself: its sampled values out of date.

// CodeMonitorStale: The FE monitor's sampled values are stale or missing
var CodeMonitorStale = diag.Declare(diag.Declaration{
	Code: "MONITOR_STALE", Severity: diag.SeverityWarning,
	Action: "check the FE monitor and the Master's log",
	Impact: diag.ImpactVisibility, Place: 7,
	Title:   "The FE monitor's sampled values are stale or missing",
	Spec:    "apache/doris#69907 §2 (\"the monitoring itself is stale\"), FE configs changelog_ivm_monitor_interval_seconds",
	Meaning: "The build has the monitoring columns of apache/doris#69907, but MONITOR_SAMPLE_TIME (table_streams) or SAMPLE_TIME (ivm_mv_status) is older than two sampling intervals (2 × 15 s) or NULL.",
	Matters: "The server's states, pending ages and headrooms are out of date, and so are the alerts built on them. dorisdiag's client computation does not depend on them.",
	Confirm: "SELECT MAX(MONITOR_SAMPLE_TIME) FROM information_schema.table_streams;\ncurl -s http://FE:8030/metrics | grep doris_fe_changelog_ivm_monitor_",
	Fix:     "Check enable_changelog_ivm_monitor and the Master FE log (monitor round failures, doris_fe_changelog_ivm_monitor_sample_failures_total).",
	Related: []string{"SERVER_CLIENT_MISMATCH", "METRICS_MONITOR_STALE"},
})

// monitorTally counts, stream by stream, the server samples that are stale
// (older than two sampling intervals) or missing.
type monitorTally struct {
	stale, null int
	oldest      float64
}

func (t *monitorTally) add(s *Stream) {
	if s.Server == nil || s.Server.MonitorSampleTimeMs == nil {
		t.null++
	} else if age := *s.Server.SampleAgeSeconds; age > 2*MonitorInterval.Seconds() {
		t.stale++
		t.oldest = math.Max(t.oldest, age)
	}
}

// clusterFindings: the monitor itself (MONITOR_STALE).
func (a *streamAnalyzer) clusterFindings(t monitorTally) []diag.Finding {
	if !a.streamMonitorColumns || a.whatIf() {
		return nil
	}
	limit, stale, null, oldest := 2*MonitorInterval.Seconds(), t.stale, t.null, t.oldest
	if stale == 0 && null == 0 {
		return nil
	}
	return []diag.Finding{{Code: CodeMonitorStale, Severity: CodeMonitorStale.Severity(), Object: diag.Object{Kind: "cluster"},
		Summary:  fmt.Sprintf("the FE monitor's stream values are stale: %d stream(s) sampled more than %s ago, %d with no sample", stale, tso.FormatDuration(int64(limit*1000)), null),
		Detail:   fmt.Sprintf("table_streams has the monitoring columns of apache/doris#69907 but MONITOR_SAMPLE_TIME is older than two sampling intervals (oldest %s) or NULL: the server's MONITOR_STATE, CAN_RESUME and headroom may be out of date. dorisdiag's own computation does not depend on it.", fmtSecs(f64(oldest))),
		Evidence: map[string]string{"stale_streams": strconv.Itoa(stale), "null_sample_streams": strconv.Itoa(null), "oldest_sample_age_seconds": strconv.FormatFloat(oldest, 'f', 0, 64)},
		Next:     doris.Note(doris.SuggestMonitorSampleTime(), "and check enable_changelog_ivm_monitor on the Master FE")}}
}
