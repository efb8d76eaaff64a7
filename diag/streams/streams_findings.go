package streams

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// serverStream keeps the seed T2 columns of table_streams and, for an IVM
// stream, takes the server's state: the server sees the keep-alive TSO (T9)
// that SQL does not show, so its verdict on an idle internal stream is the
// better one.
func (a *streamAnalyzer) serverStream(sr *Stream, st *snapshot.Stream) {
	if st.MonitorState == nil && st.PendingPartitions == nil && st.MaxPendingAgeSeconds == nil && st.CanResume == nil &&
		st.MinRetentionHeadroomSeconds == nil && st.MonitorSampleTimeMs == nil && st.GapEvents == nil {
		return
	}
	sv := &ServerStream{MonitorState: st.MonitorState, PendingPartitions: st.PendingPartitions,
		MaxPendingAgeSeconds: st.MaxPendingAgeSeconds, PendingAgePrecision: st.PendingAgePrecision, CanResume: st.CanResume,
		MinRetentionHeadroomSeconds: st.MinRetentionHeadroomSeconds, GapEvents: st.GapEvents, LastGapTimeMs: st.LastGapTimeMs,
		MonitorSampleTimeMs: st.MonitorSampleTimeMs}
	if st.MonitorSampleTimeMs != nil {
		sv.SampleAgeSeconds = f64(secs(a.nowMs - *st.MonitorSampleTimeMs))
	}
	sr.Server = sv
	if sr.Kind == KindIVM && !a.whatIf() && st.MonitorState != nil && sr.State == StateCannotResume {
		if s := strings.ToLower(*st.MonitorState); StateNumber(s) >= 0 && s != StateCannotResume {
			sr.State, sr.StateSource = s, diag.SourceServer
			sr.StateReason = "MONITOR_STATE from the server, which sees the keep-alive TSO of idle IVM partitions that SQL does not show; the client computes cannot_resume from the offset alone"
		}
	}
}

// tolerance of a server value from a round sampled sampleAge seconds ago.
func (a *streamAnalyzer) tolerance(sampleAge *float64) float64 {
	t := MonitorInterval.Seconds() + 1
	if sampleAge != nil && *sampleAge > 0 {
		t += *sampleAge
	}
	return t
}

// changedSince counts the partitions of a stream whose source end or
// consumption moved at or after sinceMs (Unix ms): their pending status may
// differ between the server's latest round and now.
func (a *streamAnalyzer) changedSince(sr *Stream, sinceMs int64) int {
	n := 0
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		consumed := p.LastConsumptionTimeMs != nil && *p.LastConsumptionTimeMs >= sinceMs
		written := p.SourceEndTSO != nil && p.SourceEndTSO.Physical() >= sinceMs
		if consumed || written {
			n++
		}
	}
	return n
}

// fieldNames takes "field: server x, client y" lines to their field names.
func fieldNames(diffs []string) []string {
	out := make([]string, len(diffs))
	for i, d := range diffs {
		out[i], _, _ = strings.Cut(d, ":")
	}
	return out
}

// clusterFindings: the monitor itself (MONITOR_STALE).
func (a *streamAnalyzer) clusterFindings(res *Result) []diag.Finding {
	if !a.streamMonitorColumns || a.whatIf() {
		return nil
	}
	limit := 2 * MonitorInterval.Seconds()
	var stale, null int
	var oldest float64
	for _, s := range res.Streams {
		if s.Server == nil || s.Server.MonitorSampleTimeMs == nil {
			null++
			continue
		}
		if age := *s.Server.SampleAgeSeconds; age > limit {
			stale++
			oldest = math.Max(oldest, age)
		}
	}
	if stale == 0 && null == 0 {
		return nil
	}
	return []diag.Finding{{Code: CodeMonitorStale, Severity: CodeMonitorStale.Severity(), Object: diag.Object{Kind: "cluster"},
		Summary:  fmt.Sprintf("the FE monitor's stream values are stale: %d stream(s) sampled more than %s ago, %d with no sample", stale, tso.FormatDuration(int64(limit*1000)), null),
		Detail:   fmt.Sprintf("table_streams has the monitoring columns of apache/doris#69907 but MONITOR_SAMPLE_TIME is older than two sampling intervals (oldest %s) or NULL: the server's MONITOR_STATE, CAN_RESUME and headroom may be out of date. dorisdiag's own computation does not depend on it.", fmtSecs(f64(oldest))),
		Evidence: map[string]string{"stale_streams": strconv.Itoa(stale), "null_sample_streams": strconv.Itoa(null), "oldest_sample_age_seconds": strconv.FormatFloat(oldest, 'f', 0, 64)},
		Next:     doris.SuggestMonitorSampleTime() + "  -- and check enable_changelog_ivm_monitor on the Master FE"}}
}

func worstHeadroom(ps []*Partition) *Partition {
	w := ps[0]
	for _, p := range ps[1:] {
		if HeadroomKey(p.HeadroomSeconds) < HeadroomKey(w.HeadroomSeconds) {
			w = p
		}
	}
	return w
}

func mvLabel(sr *Stream) string {
	switch {
	case sr.MVName != "":
		return sr.DB + "." + sr.MVName
	case sr.MVID != nil:
		return "id " + strconv.FormatInt(*sr.MVID, 10)
	}
	return "(unknown)"
}

func mvNameOr(sr *Stream) string {
	if sr.MVName != "" {
		return sr.MVName
	}
	return "<mv>"
}

func orMode(m string) string {
	if m == "" {
		return "MIN_DELTA (assumed)"
	}
	return m
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}

func negate(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return f64(-*v)
}

// fmtSecs renders seconds as a duration; "?" when unknown.
func fmtSecs(v *float64) string {
	if v == nil {
		return "?"
	}
	return tso.FormatDuration(int64(math.Round(*v * 1000)))
}

func fmtF(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

func tsoStr(t *tso.TSO) string {
	if t == nil {
		return ""
	}
	return t.String()
}

func floorStr(p *Partition) string {
	if p.Retention == nil {
		return ""
	}
	return p.Retention.RetentionFloorTSO.String()
}

func boundStr(v *diag.Value) string {
	switch {
	case v.Seconds == nil && v.Lower == nil:
		return "unknown"
	case v.Lower == nil:
		return "<= " + fmtF(v.Seconds)
	case v.Seconds == nil:
		return ">= " + fmtF(v.Lower)
	}
	return "[" + fmtF(v.Lower) + ", " + fmtF(v.Seconds) + "]"
}

func dataLower(p *Partition) *float64 {
	if p.DataAge == nil {
		return nil
	}
	return p.DataAge.Lower
}

func dataUpper(p *Partition) *float64 {
	if p.DataAge == nil {
		return nil
	}
	return p.DataAge.Seconds
}

// quoteIdent backquotes an identifier for a suggested SQL statement.
