package diag

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/doris"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// serverStream keeps the seed T2 columns of table_streams and, for an IVM
// stream, takes the server's state: the server sees the keep-alive TSO (T9)
// that SQL does not show, so its verdict on an idle internal stream is the
// better one.
func (a *streamAnalyzer) serverStream(sr *StreamResult, st *snapshot.Stream) {
	if st.MonitorState == nil && st.PendingPartitions == nil && st.MaxPendingAgeSeconds == nil && st.CanResume == nil &&
		st.MinRetentionHeadroomSeconds == nil && st.MonitorSampleTimeMs == nil && st.GapEvents == nil {
		return
	}
	sv := &ServerStreamValues{MonitorState: st.MonitorState, PendingPartitions: st.PendingPartitions,
		MaxPendingAgeSeconds: st.MaxPendingAgeSeconds, PendingAgePrecision: st.PendingAgePrecision, CanResume: st.CanResume,
		MinRetentionHeadroomSeconds: st.MinRetentionHeadroomSeconds, GapEvents: st.GapEvents, LastGapTimeMs: st.LastGapTimeMs,
		MonitorSampleTimeMs: st.MonitorSampleTimeMs}
	if st.MonitorSampleTimeMs != nil {
		sv.SampleAgeSeconds = f64(secs(a.nowMs - *st.MonitorSampleTimeMs))
	}
	sr.Server = sv
	if sr.Kind == KindIVM && !a.whatIf() && st.MonitorState != nil && sr.State == StateCannotResume {
		if s := strings.ToLower(*st.MonitorState); StateNumber(s) >= 0 && s != StateCannotResume {
			sr.State, sr.StateSource = s, SourceServer
			sr.StateReason = "MONITOR_STATE from the server, which sees the keep-alive TSO (seed T9) that SQL does not show; the client computes cannot_resume from the offset alone"
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
func (a *streamAnalyzer) changedSince(sr *StreamResult, sinceMs int64) int {
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

// streamFindings raises the hazards of one stream (BRIEF "Streams (S4)").
func (a *streamAnalyzer) streamFindings(sr *StreamResult) []Finding {
	var fs []Finding
	obj := Object{Kind: "stream", DB: sr.DB, Name: sr.Name, ID: i64(sr.ID)}
	add := func(code Code, summary, detail string, ev map[string]string, next string) *Finding {
		fs = append(fs, Finding{Code: code, Severity: code.Severity(), Object: obj, Summary: summary, Detail: detail, Evidence: ev, Next: next})
		return &fs[len(fs)-1]
	}
	ev := func(kv ...string) map[string]string {
		m := map[string]string{"kind": sr.Kind, "state": sr.State}
		if sr.ReadMode != "" {
			m["read_mode"] = sr.ReadMode
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	q := doris.QuoteIdent(sr.DB) + "." + doris.QuoteIdent(sr.Name)
	consQ := fmt.Sprintf("SELECT UNIT, CONSUMPTION_STATUS, `LAG`, LAST_CONSUMPTION_TIME FROM information_schema.table_stream_consumption WHERE STREAM_ID = %d;", sr.ID)

	if !sr.Enabled {
		add(CodeStreamDisabled, "stream is disabled (ENABLED = 0): nothing consumes it while the TTL keeps moving",
			"A disabled stream keeps its offsets, but the TTL still expires the changelog behind them.", ev(),
			"SELECT STREAM_NAME, ENABLED FROM information_schema.table_streams WHERE STREAM_ID = "+strconv.FormatInt(sr.ID, 10)+";")
	}
	if sr.BaseTableDropped {
		add(CodeStreamBaseTableDropped, "the stream's base table is dropped (BASE_TABLE_* columns read N/A)",
			"The stream can never be read again; it only holds metadata.", ev(),
			"DROP STREAM "+q+";  -- after checking no job still reads it")
	}
	if sr.IsStale || sr.BaseTableDropped {
		reason := sr.StaleReason
		if reason == "" && sr.BaseTableDropped {
			reason = "base table dropped"
		}
		add(CodeStreamStale, "stream is stale (IS_STALE): "+orNone(reason),
			"A stale stream cannot be read; recreate it. Note IS_STALE does not report TTL expiry (doris.md §3).", ev("stale_reason", reason),
			"SELECT STREAM_NAME, IS_STALE, STALE_REASON FROM information_schema.table_streams WHERE STREAM_ID = "+strconv.FormatInt(sr.ID, 10)+";")
	}
	if sr.State == StateUnknown {
		add(CodeStreamStateUnknown, "stream state unknown: "+sr.StateReason,
			"Without a readable offset the tool cannot tell resume, headroom or pending age.", ev(), consQ)
	}
	if sr.LagInVersions {
		var units []string
		for _, p := range sr.Partitions {
			if p.LagInVersions {
				units = append(units, p.Unit)
			}
		}
		add(CodeStreamLagInVersions, "LAG probably counts partition versions (old build), not TSO: not converted to time",
			fmt.Sprintf("LAG is below 2^18 while the offset is a TSO on %d partition(s) (%s): older builds counted LAG in versions (doris.md §4). Pending ages use the offset only (UPPER_BOUND).", len(units), strings.Join(first(units, 5), ", ")),
			ev("partitions", strconv.Itoa(len(units))), consQ)
	}
	if sr.State == StateDisabled || sr.State == StateStale {
		return fs // nothing is read from such a stream; resume hazards would be noise
	}

	// Resume (seed §3): per read mode, split behind vs caught up.
	var behind, idle []*PartitionResult
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.CanResume == nil || *p.CanResume {
			continue
		}
		if p.CaughtUp != nil && *p.CaughtUp {
			idle = append(idle, p)
		} else {
			behind = append(behind, p)
		}
	}
	ttl := ""
	if sr.TTLSeconds != nil {
		ttl = strconv.FormatInt(*sr.TTLSeconds, 10)
	}
	if sr.Kind == KindIVM && sr.StateSource != SourceServer && len(behind)+len(idle) > 0 {
		all := append(append([]*PartitionResult{}, behind...), idle...)
		w := worstHeadroom(all)
		f := add(CodeIVMStreamRecomputeOnly, fmt.Sprintf("internal stream of MV %s: the next refresh may only recompute (headroom %s on %s)", mvLabel(sr), fmtSecs(w.HeadroomSeconds), w.Unit),
			fmt.Sprintf("%d partition(s) have an offset below the retention floor. An IVM read rejects an expired offset (T10), so the refresh falls back to COMPLETE (T0) — or, before T0, fails with CHANGELOG_BROKEN. A keep-alive TSO (T9) that SQL does not show on older builds may still cover an idle partition, hence \"may\".", len(all)),
			ev("mv", mvLabel(sr), "partitions", strconv.Itoa(len(all)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", ttl),
			"dorisdiag mv explain "+sr.DB+"."+mvNameOr(sr)+"   # then, if needed: REFRESH MATERIALIZED VIEW "+doris.QuoteIdent(sr.DB)+"."+doris.QuoteIdent(mvNameOr(sr))+" COMPLETE;")
		_ = f
	}
	if sr.Kind == KindUser && len(behind) > 0 {
		w := worstHeadroom(behind)
		ev2 := ev("partitions", strconv.Itoa(len(behind)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", ttl,
			"consumed_tso", tsoStr(w.ConsumedTSO), "retention_floor_tso", floorStr(w))
		switch {
		case sr.ReadMode == ModeDetail || sr.ReadMode == ModeAppendOnly:
			lost := ""
			if sr.LostWindowMs != nil && *sr.LostWindowMs > 0 {
				lost = fmt.Sprintf(" — about %s of changes", tso.FormatDuration(*sr.LostWindowMs))
				ev2["lost_window_ms"] = strconv.FormatInt(*sr.LostWindowMs, 10)
			}
			add(CodeStreamCannotResumeClipped, fmt.Sprintf("cannot resume: the next %s read will silently skip changes%s (%d partition(s), offset expired %s ago)", sr.ReadMode, lost, len(behind), fmtSecs(negate(w.HeadroomSeconds))),
				fmt.Sprintf("The offset of %s is below the retention floor: a %s read is clipped to the first retained TSO and the expired changes are skipped without an error (doris.md §2). The consumer never sees them.", w.Unit, sr.ReadMode),
				ev2, "Raise "+sr.TTLProperty+" before the next read if the changelog is not compacted yet (ALTER TABLE "+doris.QuoteIdent(sr.BaseTableDB)+"."+doris.QuoteIdent(sr.BaseTableName)+" SET (\""+sr.TTLProperty+"\" = \"...\")); otherwise re-sync the consumer from the base table and SELECT * FROM "+q+"@reset() to start again.")
		default:
			add(CodeStreamCannotResumeRejected, fmt.Sprintf("cannot resume: the next %s read will be rejected (%d partition(s), offset expired %s ago)", orMode(sr.ReadMode), len(behind), fmtSecs(negate(w.HeadroomSeconds))),
				strings.TrimSpace(fmt.Sprintf("The offset of %s is below the retention floor: a MIN_DELTA read (and a snapshot read) fails with the expired-offset error (doris.md §2). %s", w.Unit, sr.ReadModeNote)),
				ev2, "Re-sync the consumer from the base table, then SELECT * FROM "+q+"@reset() to move the offset to now (or raise "+sr.TTLProperty+" if the changelog is not compacted yet).")
		}
	}
	if sr.Kind == KindUser && len(behind) == 0 && len(idle) > 0 {
		w := worstHeadroom(idle)
		add(CodeStreamIdleOutOfRetention, fmt.Sprintf("idle stream out of retention: nothing pending, but %d offset(s) left the retention %s ago", len(idle), fmtSecs(negate(w.HeadroomSeconds))),
			fmt.Sprintf("The stream is caught up on %s, but nobody wrote the partition for longer than the TTL, so its offset is below the retention floor: nothing is lost yet, but a MIN_DELTA read is rejected and the design reports the stream cannot_resume (user streams get no keep-alive, seed T9).", w.Unit),
			ev("partitions", strconv.Itoa(len(idle)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", ttl),
			"SELECT * FROM "+q+"@reset();  -- nothing is pending, so resetting the offset to now loses nothing")
	}
	// Headroom under the threshold, on partitions that can still resume.
	var low []*PartitionResult
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.CanResume != nil && *p.CanResume && p.HeadroomSeconds != nil && *p.HeadroomSeconds < a.opt.MinHeadroom.Seconds() {
			low = append(low, p)
		}
	}
	if len(low) > 0 {
		w := worstHeadroom(low)
		what := "the TTL reaches the offset"
		if sr.Kind == KindIVM {
			what = "the next refresh of MV " + mvLabel(sr) + " may only recompute"
		}
		add(CodeStreamHeadroomLow, fmt.Sprintf("headroom %s on %s (< %s): in that time %s", fmtSecs(w.HeadroomSeconds), w.Unit, tso.FormatDuration(a.opt.MinHeadroom.Milliseconds()), what),
			fmt.Sprintf("%d partition(s) have less than --min-headroom left before the TTL expires the next change they need.", len(low)),
			ev("partitions", strconv.Itoa(len(low)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", ttl),
			"Consume the stream now (run its consuming job), or raise "+sr.TTLProperty+" on "+sr.BaseTableDB+"."+sr.BaseTableName+".")
	}
	// Pending age (user streams: an MV's delay is reported on the MV).
	// Not when the stream cannot resume: the critical finding says more.
	if sr.Kind == KindUser && len(behind) == 0 && sr.MaxPendingAge.Seconds != nil && *sr.MaxPendingAge.Seconds > a.opt.MaxPending.Seconds() {
		var w *PartitionResult
		for i := range sr.Partitions {
			p := &sr.Partitions[i]
			if p.PendingAge.Seconds != nil && (w == nil || *p.PendingAge.Seconds > *w.PendingAge.Seconds) {
				w = p
			}
		}
		bound := ""
		if sr.MaxPendingAge.Precision == PrecisionUpperBound {
			bound = "up to "
		}
		add(CodeStreamPendingAgeHigh, fmt.Sprintf("a change has waited %s%s on %s (> %s)", bound, fmtSecs(sr.MaxPendingAge.Seconds), w.Unit, tso.FormatDuration(a.opt.MaxPending.Milliseconds())),
			fmt.Sprintf("%d partition(s) behind; pending age %s (%s, %s).", sr.PendingPartitions, fmtSecs(sr.MaxPendingAge.Seconds), sr.MaxPendingAge.Precision, sr.MaxPendingAge.Note),
			ev("pending_partitions", strconv.Itoa(sr.PendingPartitions), "worst_partition", w.Unit, "pending_age_seconds", fmtF(sr.MaxPendingAge.Seconds), "precision", string(sr.MaxPendingAge.Precision)),
			"Check the consuming job of "+sr.DB+"."+sr.Name+"; "+consQ)
	}
	// A pending age with no upper bound (a partition with data, no offset and
	// no creation time) whose proven lower bound is over the threshold.
	if sr.Kind == KindUser && len(behind) == 0 && (sr.MaxPendingAge.Seconds == nil || *sr.MaxPendingAge.Seconds <= a.opt.MaxPending.Seconds()) {
		var w *PartitionResult
		for i := range sr.Partitions {
			p := &sr.Partitions[i]
			if p.PendingAge.Seconds == nil && p.PendingAge.Lower != nil && *p.PendingAge.Lower > a.opt.MaxPending.Seconds() &&
				(w == nil || *p.PendingAge.Lower > *w.PendingAge.Lower) {
				w = p
			}
		}
		if w != nil {
			add(CodeStreamPendingAgeHigh, fmt.Sprintf("a change has waited at least %s on %s (> %s)", fmtSecs(w.PendingAge.Lower), w.Unit, tso.FormatDuration(a.opt.MaxPending.Milliseconds())),
				fmt.Sprintf("The pending age of %s has no upper bound (%s), but it is at least %s (%s).", w.Unit, w.PendingAge.Note, fmtSecs(w.PendingAge.Lower), w.PendingAge.LowerSource),
				ev("worst_partition", w.Unit, "pending_age_lower_seconds", fmtF(w.PendingAge.Lower), "precision", string(w.PendingAge.Precision)),
				"Check the consuming job of "+sr.DB+"."+sr.Name+"; "+consQ)
		}
	}
	// T12: rows of a partition with no offset, older than the TTL.
	if isT12(sr) {
		for i := range sr.Partitions {
			p := &sr.Partitions[i]
			if p.OffsetState != OffsetNone || p.RowsSkipped == "" {
				continue
			}
			f := Finding{Code: CodeStreamNoOffsetRowsSkipped, Severity: CodeStreamNoOffsetRowsSkipped.Severity(),
				Object:  Object{Kind: "stream", DB: sr.DB, Name: sr.Name, ID: i64(sr.ID), Partition: p.Unit},
				Summary: fmt.Sprintf("partition %s has no offset and its rows %s older than the TTL: the next read silently skips them (T12)", p.Unit, skippedWord(p.RowsSkipped)),
				Detail: fmt.Sprintf("A %s stream reads a partition with no offset from the changelog; rows older than %s (%s) are no longer in it, so they are skipped and the offset moves past them for good. MIN_DELTA may even emit UPDATE_BEFORE/DELETE rows for rows never received (seed T12).",
					modeOrDup(sr), sr.TTLProperty, ttl),
				Evidence: ev("partition", p.Unit, "rows_skipped", p.RowsSkipped, "data_age_lower_seconds", fmtF(dataLower(p)), "data_age_upper_seconds", fmtF(dataUpper(p)), "ttl_seconds", ttl, "key_model", sr.KeyModel),
				Next:     "Read partition " + p.Unit + " of " + sr.BaseTableDB + "." + sr.BaseTableName + " from the base table into the consumer (INSERT ... SELECT ... FROM " + doris.QuoteIdent(sr.BaseTableDB) + "." + doris.QuoteIdent(sr.BaseTableName) + " PARTITION (" + doris.QuoteIdent(p.Unit) + ")), then SELECT * FROM " + q + "@reset(); upgrade to a build with T12."}
			if p.RowsSkipped == "may" {
				f.Severity = SeverityWarning
				f.Summary = fmt.Sprintf("partition %s has no offset and its rows may be older than the TTL: the next read may silently skip them (T12)", p.Unit)
			}
			p.severity = max(p.severity, f.Severity)
			fs = append(fs, f)
		}
	}
	fs = append(fs, a.mismatchFindings(sr, obj)...)
	// Partition severities, for "worst first".
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		switch {
		case p.CanResume != nil && !*p.CanResume && (p.CaughtUp == nil || !*p.CaughtUp):
			p.severity = max(p.severity, SeverityCritical)
			if sr.Kind == KindIVM {
				p.severity = max(p.severity, SeverityWarning)
			}
		case p.CanResume != nil && !*p.CanResume:
			p.severity = max(p.severity, SeverityWarning)
		case p.HeadroomSeconds != nil && *p.HeadroomSeconds < a.opt.MinHeadroom.Seconds():
			p.severity = max(p.severity, SeverityWarning)
		case sr.Kind == KindUser && p.PendingAge.Get(0) > a.opt.MaxPending.Seconds():
			p.severity = max(p.severity, SeverityWarning)
		}
		if p.severity > 0 {
			p.Severity = p.severity.String()
		}
	}
	return fs
}

// mismatchFindings compares the server's seed columns with the client's
// computation (design.md "compare them and raise a finding when they
// disagree"), beyond the precision: one sampling interval plus the age of
// the round the value comes from.
func (a *streamAnalyzer) mismatchFindings(sr *StreamResult, obj Object) []Finding {
	if a.whatIf() {
		return nil
	}
	var out []Finding
	emit := func(o Object, diffs []string, ev map[string]string) {
		if len(diffs) == 0 {
			return
		}
		sort.Strings(diffs)
		where := "the stream"
		if o.Partition != "" {
			where = "partition " + o.Partition
		}
		out = append(out, Finding{Code: CodeServerClientMismatch, Severity: CodeServerClientMismatch.Severity(), Object: o,
			Summary:  fmt.Sprintf("server and client disagree on %s of %s", strings.Join(fieldNames(diffs), ", "), where),
			Detail:   strings.Join(diffs, "; ") + fmt.Sprintf(". Tolerance: one sampling interval (%s) plus the age of the server's round; 5s for a headroom, which both compute at query time.", MonitorInterval),
			Evidence: ev,
			Next:     fmt.Sprintf("SELECT * FROM information_schema.table_stream_consumption WHERE STREAM_ID = %d;  -- and dorisdiag tso decode <CURRENT_TSO>", sr.ID)})
	}
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		s := p.Server
		if s == nil {
			continue
		}
		var diffs []string
		var ev map[string]string
		note := func(field, server, client string) {
			diffs = append(diffs, fmt.Sprintf("%s: server %s, client %s", field, server, client))
			if ev == nil {
				ev = map[string]string{}
			}
			ev[field+"_server"], ev[field+"_client"] = server, client
		}
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
				(s.PendingAgePrecision == nil || Precision(*s.PendingAgePrecision) == PrecisionPrecise)
			tooSmall := c.Lower != nil && *s.PendingAgeSeconds < *c.Lower-tol
			if tooBig || tooSmall {
				note("pending_age_seconds", fmtF(s.PendingAgeSeconds), boundStr(c))
			}
		}
		if p.Retention != nil && sr.Kind == KindUser {
			if s.CanResume != nil && *s.CanResume != p.Retention.CanResume && math.Abs(p.Retention.HeadroomSeconds()) > 5 {
				note("can_resume", strconv.FormatBool(*s.CanResume), strconv.FormatBool(p.Retention.CanResume))
			}
			if s.RetentionHeadroomSeconds != nil && math.Abs(*s.RetentionHeadroomSeconds-p.Retention.HeadroomSeconds()) > 5 {
				note("retention_headroom_seconds", fmtF(s.RetentionHeadroomSeconds), fmtF(f64(p.Retention.HeadroomSeconds())))
			}
		}
		po := obj
		po.Partition = p.Unit
		emit(po, diffs, ev)
	}
	if sv := sr.Server; sv != nil {
		var diffs []string
		var ev map[string]string
		note := func(field, server, client string) {
			diffs = append(diffs, fmt.Sprintf("%s: server %s, client %s", field, server, client))
			if ev == nil {
				ev = map[string]string{}
			}
			ev[field+"_server"], ev[field+"_client"] = server, client
		}
		tol := a.tolerance(sv.SampleAgeSeconds)
		if sv.MonitorState != nil && sr.StateSource == SourceClient {
			s := strings.ToLower(*sv.MonitorState)
			// The round is up to tol old: a headroom that crossed 0 since then
			// explains cannot_resume on one side only, as for CAN_RESUME below.
			crossed := (s == StateCannotResume) != (sr.State == StateCannotResume) &&
				sr.MinHeadroomSeconds != nil && math.Abs(*sr.MinHeadroomSeconds) <= tol
			if s != sr.State && !crossed && !(sr.Kind == KindIVM && sr.State == StateCannotResume) {
				note("monitor_state", s, sr.State)
			}
		}
		if sv.MinRetentionHeadroomSeconds != nil && sr.MinHeadroomSeconds != nil && sr.Kind == KindUser &&
			math.Abs(*sv.MinRetentionHeadroomSeconds-*sr.MinHeadroomSeconds) > tol {
			note("min_retention_headroom_seconds", fmtF(sv.MinRetentionHeadroomSeconds), fmtF(sr.MinHeadroomSeconds))
		}
		if sv.CanResume != nil && sr.CanResume != nil && *sv.CanResume != *sr.CanResume && sr.Kind == KindUser &&
			(sr.MinHeadroomSeconds == nil || math.Abs(*sr.MinHeadroomSeconds) > tol) {
			note("can_resume", strconv.FormatBool(*sv.CanResume), strconv.FormatBool(*sr.CanResume))
		}
		if sv.PendingPartitions != nil && sr.StateSource == SourceClient {
			// The round is up to tol old: a partition written or consumed
			// since then may be pending on one side only. Only a difference
			// larger than the number of such partitions is a disagreement.
			diff := int(*sv.PendingPartitions) - sr.PendingPartitions
			if diff < 0 {
				diff = -diff
			}
			if diff > a.changedSince(sr, a.nowMs-int64(tol*1000)) {
				note("pending_partitions", strconv.FormatInt(*sv.PendingPartitions, 10), strconv.Itoa(sr.PendingPartitions))
			}
		}
		emit(obj, diffs, ev)
	}
	return out
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
func (a *streamAnalyzer) clusterFindings(res *StreamsResult) []Finding {
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
	return []Finding{{Code: CodeMonitorStale, Severity: CodeMonitorStale.Severity(), Object: Object{Kind: "cluster"},
		Summary:  fmt.Sprintf("the FE monitor's stream values are stale: %d stream(s) sampled more than %s ago, %d with no sample", stale, tso.FormatDuration(int64(limit*1000)), null),
		Detail:   fmt.Sprintf("table_streams has the seed's monitoring columns but MONITOR_SAMPLE_TIME is older than two sampling intervals (oldest %s) or NULL: the server's MONITOR_STATE, CAN_RESUME and headroom may be out of date. dorisdiag's own computation does not depend on it.", fmtSecs(f64(oldest))),
		Evidence: map[string]string{"stale_streams": strconv.Itoa(stale), "null_sample_streams": strconv.Itoa(null), "oldest_sample_age_seconds": strconv.FormatFloat(oldest, 'f', 0, 64)},
		Next:     "SELECT MAX(MONITOR_SAMPLE_TIME) FROM information_schema.table_streams;  -- and check enable_changelog_ivm_monitor on the Master FE"}}
}

func worstHeadroom(ps []*PartitionResult) *PartitionResult {
	w := ps[0]
	for _, p := range ps[1:] {
		if headroomKey(p.HeadroomSeconds) < headroomKey(w.HeadroomSeconds) {
			w = p
		}
	}
	return w
}

func mvLabel(sr *StreamResult) string {
	switch {
	case sr.MVName != "":
		return sr.DB + "." + sr.MVName
	case sr.MVID != nil:
		return "id " + strconv.FormatInt(*sr.MVID, 10)
	}
	return "(unknown)"
}

func mvNameOr(sr *StreamResult) string {
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

func floorStr(p *PartitionResult) string {
	if p.Retention == nil {
		return ""
	}
	return p.Retention.RetentionFloorTSO.String()
}

func boundStr(v *Value) string {
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

func dataLower(p *PartitionResult) *float64 {
	if p.DataAge == nil {
		return nil
	}
	return p.DataAge.Lower
}

func dataUpper(p *PartitionResult) *float64 {
	if p.DataAge == nil {
		return nil
	}
	return p.DataAge.Seconds
}

// quoteIdent backquotes an identifier for a suggested SQL statement.
