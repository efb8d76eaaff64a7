package streams

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// Server and client disagreeing (design.md: "compare them and raise a
// finding when they disagree"): the design's columns of table_streams and
// table_stream_consumption against dorisdiag's own computation.

// CodeServerClientMismatch: The server's monitoring column and dorisdiag's computation disagree
var CodeServerClientMismatch = diag.Declare(diag.Declaration{
	Code: "SERVER_CLIENT_MISMATCH", Severity: diag.SeverityWarning,
	Action: "re-run, and report both values if it stays",
	Impact: diag.ImpactVisibility, Place: 9,
	Title:   "The server's monitoring column and dorisdiag's computation disagree",
	Spec:    "docs/streams.md \"Server vs client\"; apache/doris#69907 §3 Definitions",
	Meaning: "The build has the monitoring columns of apache/doris#69907 (MONITOR_STATE, CAN_RESUME, RETENTION_HEADROOM_SECONDS, PENDING_AGE_SECONDS, DATA_DELAY_SECONDS, ...) and dorisdiag computed the same value from the raw columns, the TTL and the current TSO; they differ by more than the precision (one sampling interval, 15 s, plus the age of the server's round; 5 s for headroom, which both compute at query time). Used by streams and MVs. IVM headroom and resume are not compared in the direction the keep-alive TSO explains.",
	Matters: "One of the two is wrong: a monitor bug, a clock problem, or a dorisdiag bug. Alerts built on the server columns may be misleading.",
	Confirm: "dorisdiag streams show DB.STREAM -o json   # server and client values side by side",
	Fix:     "Re-run to rule out a race; if it persists, report both values (the JSON) to the Doris or dorisdiag maintainers.",
	Related: []string{"MONITOR_STALE"},
})

// checkStreamServerClientMismatch compares the server's seed columns with the
// client's computation (design.md "compare them and raise a finding when
// they disagree"), beyond the precision: one sampling interval plus the age
// of the round the value comes from. One finding per partition, then one for
// the stream.
func checkStreamServerClientMismatch(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	if a.whatIf() {
		return nil
	}
	var out []diag.Finding
	for i := range s.sr.Partitions {
		p := &s.sr.Partitions[i]
		if p.Server == nil {
			continue
		}
		po := s.obj
		po.Partition = p.Unit
		out = append(out, s.mismatch(po, a.partitionDiffs(s.sr, p))...)
	}
	if s.sr.Server != nil {
		out = append(out, s.mismatch(s.obj, a.streamDiffs(s.sr))...)
	}
	return out
}

// diffs collects the fields on which server and client disagree.
type diffs struct {
	lines []string // "field: server x, client y"
	ev    map[string]string
}

func (d *diffs) note(field, server, client string) {
	d.lines = append(d.lines, fmt.Sprintf("%s: server %s, client %s", field, server, client))
	if d.ev == nil {
		d.ev = map[string]string{}
	}
	d.ev[field+"_server"], d.ev[field+"_client"] = server, client
}

func (s *streamFacts) mismatch(o diag.Object, d diffs) []diag.Finding {
	if len(d.lines) == 0 {
		return nil
	}
	sort.Strings(d.lines)
	where := "the stream"
	if o.Partition != "" {
		where = "partition " + o.Partition
	}
	return []diag.Finding{{Code: CodeServerClientMismatch, Severity: CodeServerClientMismatch.Severity(), Object: o,
		Summary:  fmt.Sprintf("server and client disagree on %s of %s", strings.Join(fieldNames(d.lines), ", "), where),
		Detail:   strings.Join(d.lines, "; ") + fmt.Sprintf(". Tolerance: one sampling interval (%s) plus the age of the server's round; 5s for a headroom, which both compute at query time.", MonitorInterval),
		Evidence: d.ev,
		Next:     doris.Note(doris.SuggestStreamConsumptionRows(s.sr.ID), "and dorisdiag tso decode <CURRENT_TSO>")}}
}

// partitionDiffs compares one partition's server columns with the client.
func (a *streamAnalyzer) partitionDiffs(sr *Stream, p *Partition) diffs {
	var d diffs
	s := p.Server
	tol := a.tolerance(nil)
	if s.PendingAgeSeconds != nil && p.ClientPendingAge != nil {
		c := p.ClientPendingAge
		// Only a PRECISE server value claims the truth is within one
		// interval below it, so only it can be too big for the client's
		// upper end. An UPPER_BOUND one (after a Master switch: now −
		// physical(C); no offset: counted from the stream's creation, which
		// the client cannot see) bounds the truth from above only: larger
		// than the client's bound is no disagreement (seed §3 Pending age).
		tooBig := c.Seconds != nil && *s.PendingAgeSeconds > *c.Seconds+tol &&
			(s.PendingAgePrecision == nil || diag.Precision(*s.PendingAgePrecision) == diag.PrecisionPrecise)
		tooSmall := c.Lower != nil && *s.PendingAgeSeconds < *c.Lower-tol
		if tooBig || tooSmall {
			d.note("pending_age_seconds", fmtF(s.PendingAgeSeconds), boundStr(c))
		}
	}
	if p.Retention != nil && sr.Kind == KindUser {
		if s.CanResume != nil && *s.CanResume != p.Retention.CanResume && math.Abs(p.Retention.HeadroomSeconds()) > 5 {
			d.note("can_resume", strconv.FormatBool(*s.CanResume), strconv.FormatBool(p.Retention.CanResume))
		}
		if s.RetentionHeadroomSeconds != nil && math.Abs(*s.RetentionHeadroomSeconds-p.Retention.HeadroomSeconds()) > 5 {
			d.note("retention_headroom_seconds", fmtF(s.RetentionHeadroomSeconds), fmtF(f64(p.Retention.HeadroomSeconds())))
		}
	}
	return d
}

// streamDiffs compares the stream's server columns with the client.
func (a *streamAnalyzer) streamDiffs(sr *Stream) diffs {
	var d diffs
	sv := sr.Server
	tol := a.tolerance(sv.SampleAgeSeconds)
	if sv.MonitorState != nil && sr.StateSource == diag.SourceClient {
		s := State(strings.ToLower(*sv.MonitorState))
		// The round is up to tol old: a headroom that crossed 0 since then
		// explains cannot_resume on one side only, as for CAN_RESUME below.
		crossed := (s == StateCannotResume) != (sr.State == StateCannotResume) &&
			sr.MinHeadroomSeconds != nil && math.Abs(*sr.MinHeadroomSeconds) <= tol
		if s != sr.State && !crossed && !(sr.Kind == KindIVM && sr.State == StateCannotResume) {
			d.note("monitor_state", string(s), string(sr.State))
		}
	}
	if sv.MinRetentionHeadroomSeconds != nil && sr.MinHeadroomSeconds != nil && sr.Kind == KindUser &&
		math.Abs(*sv.MinRetentionHeadroomSeconds-*sr.MinHeadroomSeconds) > tol {
		d.note("min_retention_headroom_seconds", fmtF(sv.MinRetentionHeadroomSeconds), fmtF(sr.MinHeadroomSeconds))
	}
	if sv.CanResume != nil && sr.CanResume != nil && *sv.CanResume != *sr.CanResume && sr.Kind == KindUser &&
		(sr.MinHeadroomSeconds == nil || math.Abs(*sr.MinHeadroomSeconds) > tol) {
		d.note("can_resume", strconv.FormatBool(*sv.CanResume), strconv.FormatBool(*sr.CanResume))
	}
	if sv.PendingPartitions != nil && sr.StateSource == diag.SourceClient {
		// The round is up to tol old: a partition written or consumed
		// since then may be pending on one side only. Only a difference
		// larger than the number of such partitions is a disagreement.
		diff := int(*sv.PendingPartitions) - sr.PendingPartitions
		if diff < 0 {
			diff = -diff
		}
		if diff > a.changedSince(sr, a.nowMs-int64(tol*1000)) {
			d.note("pending_partitions", strconv.FormatInt(*sv.PendingPartitions, 10), strconv.Itoa(sr.PendingPartitions))
		}
	}
	return d
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
