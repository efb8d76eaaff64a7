package streams

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The checks of one stream (apache/doris#69907 §1 S4), in the shape of
// go/analysis passes: each hazard is one function over the analysed stream,
// listed below in output order. A new check is one function, one entry in a
// list and its Code in codes_streams.go.

// streamCheck returns the findings of one hazard of one stream, none when
// the hazard is absent.
type streamCheck func(a *streamAnalyzer, s *streamFacts) []diag.Finding

// streamStateChecks run on every stream: what table_streams says of it.
var streamStateChecks = []streamCheck{
	checkStreamDisabled,
	checkStreamBaseTableDropped,
	checkStreamStale,
	checkStreamStateUnknown,
	checkStreamLagInVersions,
}

// streamReadChecks run on a stream that is read (not disabled or stale:
// nothing reads such a stream, so resume hazards would be noise).
var streamReadChecks = []streamCheck{
	checkIVMStreamRecomputeOnly,
	checkStreamCannotResume,
	checkStreamIdleOutOfRetention,
	checkStreamHeadroomLow,
	checkStreamPendingAge,
	checkStreamPendingAgeLowerBound,
	checkStreamNoOffsetRowsSkipped,
	checkStreamServerClientMismatch,
}

// streamFindings raises the hazards of one stream.
func (a *streamAnalyzer) streamFindings(sr *Stream) []diag.Finding {
	s := newStreamFacts(sr)
	var fs []diag.Finding
	for _, check := range streamStateChecks {
		fs = append(fs, check(a, s)...)
	}
	if sr.State == StateDisabled || sr.State == StateStale {
		return fs
	}
	for _, check := range streamReadChecks {
		fs = append(fs, check(a, s)...)
	}
	a.partitionSeverities(sr)
	return fs
}

// streamFacts is what the checks of one stream share.
type streamFacts struct {
	sr    *Stream
	obj   diag.Object
	consQ string // the consumption query of the stream
	ttl   string // the TTL in seconds, "" when unknown
	// The partitions that cannot resume (seed §3), split into those behind
	// (changes pending) and those caught up (idle).
	behind, idle []*Partition
}

func newStreamFacts(sr *Stream) *streamFacts {
	s := &streamFacts{sr: sr, obj: diag.Object{Kind: "stream", DB: sr.DB, Name: sr.Name, ID: i64(sr.ID)},
		consQ: doris.SuggestStreamOffsets(sr.ID, false)}
	if sr.TTLSeconds != nil {
		s.ttl = strconv.FormatInt(*sr.TTLSeconds, 10)
	}
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.CanResume == nil || *p.CanResume {
			continue
		}
		if p.CaughtUp != nil && *p.CaughtUp {
			s.idle = append(s.idle, p)
		} else {
			s.behind = append(s.behind, p)
		}
	}
	return s
}

// finding is a finding about the stream at the code's default severity.
func (s *streamFacts) finding(code diag.Code, summary, detail string, ev map[string]string, next string) []diag.Finding {
	return []diag.Finding{{Code: code, Severity: code.Severity(), Object: s.obj, Summary: summary, Detail: detail, Evidence: ev, Next: next}}
}

// measured sets the magnitude (Declaration.Magnitude) of a finding of one
// stream: the number its evidence shows too.
func measured(v *float64, fs []diag.Finding) []diag.Finding {
	for i := range fs {
		fs[i].Magnitude = copyF(v)
	}
	return fs
}

func copyF(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return f64(*v)
}

// ev is the evidence every stream finding carries plus the non-empty pairs kv.
func (s *streamFacts) ev(kv ...string) map[string]string {
	m := map[string]string{"kind": s.sr.Kind, "state": s.sr.State}
	if s.sr.ReadMode != "" {
		m["read_mode"] = s.sr.ReadMode
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

func checkStreamDisabled(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if s.sr.Enabled {
		return nil
	}
	return s.finding(CodeDisabled, "stream is disabled (ENABLED = 0): nothing consumes it while the TTL keeps moving",
		"A disabled stream keeps its offsets, but the TTL still expires the changelog behind them.", s.ev(),
		doris.SuggestStreamColumns(s.sr.ID, doris.TableStreams.Enabled))
}

func checkStreamBaseTableDropped(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if !s.sr.BaseTableDropped {
		return nil
	}
	return s.finding(CodeBaseTableDropped, "the stream's base table is dropped (BASE_TABLE_* columns read N/A)",
		"The stream can never be read again; it only holds metadata.", s.ev(),
		doris.DropStream(s.sr.DB, s.sr.Name)+";  -- after checking no job still reads it")
}

func checkStreamStale(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if !sr.IsStale && !sr.BaseTableDropped {
		return nil
	}
	reason := sr.StaleReason
	if reason == "" && sr.BaseTableDropped {
		reason = "base table dropped"
	}
	return s.finding(CodeStale, "stream is stale (IS_STALE): "+orNone(reason),
		"A stale stream cannot be read; recreate it. Note IS_STALE does not report TTL expiry (docs/snapshot.md).", s.ev("stale_reason", reason),
		doris.SuggestStreamColumns(s.sr.ID, doris.TableStreams.IsStale, doris.TableStreams.StaleReason))
}

func checkStreamStateUnknown(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if s.sr.State != StateUnknown {
		return nil
	}
	return s.finding(CodeStateUnknown, "stream state unknown: "+s.sr.StateReason,
		"Without a readable offset the tool cannot tell resume, headroom or pending age.", s.ev(), s.consQ)
}

func checkStreamLagInVersions(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if !s.sr.LagInVersions {
		return nil
	}
	var units []string
	for _, p := range s.sr.Partitions {
		if p.LagInVersions {
			units = append(units, p.Unit)
		}
	}
	return s.finding(CodeLagInVersions, "LAG probably counts partition versions (old build), not TSO: not converted to time",
		fmt.Sprintf("LAG is below 2^18 while the offset is a TSO on %d partition(s) (%s): older builds counted LAG in versions (docs/snapshot.md). Pending ages use the offset only (UPPER_BOUND).", len(units), strings.Join(first(units, 5), ", ")),
		s.ev("partitions", strconv.Itoa(len(units))), s.consQ)
}

// checkIVMStreamRecomputeOnly: an MV's internal stream out of the retention
// (T9, T10, T0), unless the server, which sees the keep-alive TSO, says
// otherwise.
func checkIVMStreamRecomputeOnly(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if sr.Kind != KindIVM || sr.StateSource == diag.SourceServer || len(s.behind)+len(s.idle) == 0 {
		return nil
	}
	all := append(append([]*Partition{}, s.behind...), s.idle...)
	w := worstHeadroom(all)
	return measured(w.HeadroomSeconds, s.finding(CodeIVMStreamRecomputeOnly, fmt.Sprintf("internal stream of MV %s: the next refresh may only recompute (headroom %s on %s)", mvLabel(sr), fmtSecs(w.HeadroomSeconds), w.Unit),
		fmt.Sprintf("%d partition(s) have an offset below the retention floor. An IVM read rejects an expired offset, so the refresh falls back to COMPLETE — or, on builds without that fallback, fails with CHANGELOG_BROKEN. A keep-alive TSO that SQL does not show on older builds may still cover an idle partition, hence \"may\".", len(all)),
		s.ev("mv", mvLabel(sr), "partitions", strconv.Itoa(len(all)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", s.ttl),
		ivmRecomputeNext(sr)))
}

// checkStreamCannotResume: a user stream with changes beyond an expired
// offset; what the next read does depends on the read mode (doris.md §2).
func checkStreamCannotResume(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if sr.Kind != KindUser || len(s.behind) == 0 {
		return nil
	}
	w := worstHeadroom(s.behind)
	ev := s.ev("partitions", strconv.Itoa(len(s.behind)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", s.ttl,
		"consumed_tso", tsoStr(w.ConsumedTSO), "retention_floor_tso", floorStr(w))
	if sr.ReadMode != ModeDetail && sr.ReadMode != ModeAppendOnly {
		return measured(w.HeadroomSeconds, s.finding(CodeCannotResumeRejected, fmt.Sprintf("cannot resume: the next %s read will be rejected (%d partition(s), offset expired %s ago)", orMode(sr.ReadMode), len(s.behind), fmtSecs(negate(w.HeadroomSeconds))),
			strings.TrimSpace(fmt.Sprintf("The offset of %s is below the retention floor: a MIN_DELTA read (and a snapshot read) fails with the expired-offset error (docs/tso.md). %s", w.Unit, sr.ReadModeNote)),
			ev, "Re-sync the consumer from the base table, then "+doris.ResetStream(sr.DB, sr.Name)+" to move the offset to now (or raise "+sr.TTLProperty+" if the changelog is not compacted yet)."))
	}
	lost := ""
	if sr.LostWindowMs != nil && *sr.LostWindowMs > 0 {
		lost = fmt.Sprintf(" — about %s of changes", tso.FormatDuration(*sr.LostWindowMs))
		ev["lost_window_ms"] = strconv.FormatInt(*sr.LostWindowMs, 10)
	}
	return measured(w.HeadroomSeconds, s.finding(CodeCannotResumeClipped, fmt.Sprintf("cannot resume: the next %s read will silently skip changes%s (%d partition(s), offset expired %s ago)", sr.ReadMode, lost, len(s.behind), fmtSecs(negate(w.HeadroomSeconds))),
		fmt.Sprintf("The offset of %s is below the retention floor: a %s read is clipped to the first retained TSO and the expired changes are skipped without an error (docs/tso.md). The consumer never sees them.", w.Unit, sr.ReadMode),
		ev, "Raise "+sr.TTLProperty+" before the next read if the changelog is not compacted yet ("+doris.SetTableProperty(sr.BaseTableDB, sr.BaseTableName, sr.TTLProperty)+"); otherwise re-sync the consumer from the base table and "+doris.ResetStream(sr.DB, sr.Name)+" to start again."))
}

func checkStreamIdleOutOfRetention(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if s.sr.Kind != KindUser || len(s.behind) != 0 || len(s.idle) == 0 {
		return nil
	}
	w := worstHeadroom(s.idle)
	return measured(w.HeadroomSeconds, s.finding(CodeIdleOutOfRetention, fmt.Sprintf("idle stream out of retention: nothing pending, but %d offset(s) left the retention %s ago", len(s.idle), fmtSecs(negate(w.HeadroomSeconds))),
		fmt.Sprintf("The stream is caught up on %s, but nobody wrote the partition for longer than the TTL, so its offset is below the retention floor: nothing is lost yet, but a MIN_DELTA read is rejected and the design reports the stream cannot_resume (user streams get no keep-alive TSO).", w.Unit),
		s.ev("partitions", strconv.Itoa(len(s.idle)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", s.ttl),
		doris.ResetStream(s.sr.DB, s.sr.Name)+";  -- nothing is pending, so resetting the offset to now loses nothing"))
}

// checkStreamHeadroomLow: headroom under --min-headroom on partitions that
// can still resume.
func checkStreamHeadroomLow(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	var low []*Partition
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.CanResume != nil && *p.CanResume && p.HeadroomSeconds != nil && *p.HeadroomSeconds < a.opt.MinHeadroom.Seconds() {
			low = append(low, p)
		}
	}
	if len(low) == 0 {
		return nil
	}
	w := worstHeadroom(low)
	what := "the TTL reaches the offset"
	if sr.Kind == KindIVM {
		what = "the next refresh of MV " + mvLabel(sr) + " may only recompute"
	}
	return measured(w.HeadroomSeconds, s.finding(CodeHeadroomLow, fmt.Sprintf("headroom %s on %s (< %s): in that time %s", fmtSecs(w.HeadroomSeconds), w.Unit, tso.FormatDuration(a.opt.MinHeadroom.Milliseconds()), what),
		fmt.Sprintf("%d partition(s) have less than --min-headroom left before the TTL expires the next change they need.", len(low)),
		s.ev("partitions", strconv.Itoa(len(low)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", s.ttl),
		"Consume the stream now (run its consuming job), or raise "+sr.TTLProperty+" on "+sr.BaseTableDB+"."+sr.BaseTableName+"."))
}

// checkStreamPendingAge: a user stream's pending age over --max-pending (an
// MV's delay is reported on the MV). Not when the stream cannot resume: the
// critical finding says more.
func checkStreamPendingAge(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if sr.Kind != KindUser || len(s.behind) != 0 || sr.MaxPendingAge.Seconds == nil || *sr.MaxPendingAge.Seconds <= a.opt.MaxPending.Seconds() {
		return nil
	}
	var w *Partition
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.PendingAge.Seconds != nil && (w == nil || *p.PendingAge.Seconds > *w.PendingAge.Seconds) {
			w = p
		}
	}
	bound := ""
	if sr.MaxPendingAge.Precision == diag.PrecisionUpperBound {
		bound = "up to "
	}
	return measured(sr.MaxPendingAge.Seconds, s.finding(CodePendingAgeHigh, fmt.Sprintf("a change has waited %s%s on %s (> %s)", bound, fmtSecs(sr.MaxPendingAge.Seconds), w.Unit, tso.FormatDuration(a.opt.MaxPending.Milliseconds())),
		fmt.Sprintf("%d partition(s) behind; pending age %s (%s, %s).", sr.PendingPartitions, fmtSecs(sr.MaxPendingAge.Seconds), sr.MaxPendingAge.Precision, sr.MaxPendingAge.Note),
		s.ev("pending_partitions", strconv.Itoa(sr.PendingPartitions), "worst_partition", w.Unit, "pending_age_seconds", fmtF(sr.MaxPendingAge.Seconds), "precision", string(sr.MaxPendingAge.Precision)),
		"Check the consuming job of "+doris.FormatName(sr.DB, sr.Name)+"; "+s.consQ))
}

// checkStreamPendingAgeLowerBound: a pending age with no upper bound (a
// partition with data, no offset and no creation time) whose proven lower
// bound is over the threshold ("at least").
func checkStreamPendingAgeLowerBound(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if sr.Kind != KindUser || len(s.behind) != 0 || (sr.MaxPendingAge.Seconds != nil && *sr.MaxPendingAge.Seconds > a.opt.MaxPending.Seconds()) {
		return nil
	}
	var w *Partition
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.PendingAge.Seconds == nil && p.PendingAge.Lower != nil && *p.PendingAge.Lower > a.opt.MaxPending.Seconds() &&
			(w == nil || *p.PendingAge.Lower > *w.PendingAge.Lower) {
			w = p
		}
	}
	if w == nil {
		return nil
	}
	return s.finding(CodePendingAgeHigh, fmt.Sprintf("a change has waited at least %s on %s (> %s)", fmtSecs(w.PendingAge.Lower), w.Unit, tso.FormatDuration(a.opt.MaxPending.Milliseconds())),
		fmt.Sprintf("The pending age of %s has no upper bound (%s), but it is at least %s (%s).", w.Unit, w.PendingAge.Note, fmtSecs(w.PendingAge.Lower), w.PendingAge.LowerSource),
		s.ev("worst_partition", w.Unit, "pending_age_lower_seconds", fmtF(w.PendingAge.Lower), "precision", string(w.PendingAge.Precision)),
		"Check the consuming job of "+doris.FormatName(sr.DB, sr.Name)+"; "+s.consQ)
}

// checkStreamNoOffsetRowsSkipped (T12): rows of a partition with no offset,
// older than the TTL. One finding per partition; it raises the partition's
// severity.
func checkStreamNoOffsetRowsSkipped(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if !isT12(sr) {
		return nil
	}
	var fs []diag.Finding
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.OffsetState != OffsetNone || p.RowsSkipped == "" {
			continue
		}
		f := diag.Finding{Code: CodeNoOffsetRowsSkipped, Severity: CodeNoOffsetRowsSkipped.Severity(),
			Object:  diag.Object{Kind: "stream", DB: sr.DB, Name: sr.Name, ID: i64(sr.ID), Partition: p.Unit},
			Summary: fmt.Sprintf("partition %s has no offset and its rows %s older than the TTL: the next read silently skips them", p.Unit, SkippedWord(p.RowsSkipped)),
			Detail: fmt.Sprintf("A %s stream reads a partition with no offset from the changelog; rows older than %s (%s) are no longer in it, so they are skipped and the offset moves past them for good. MIN_DELTA may even emit UPDATE_BEFORE/DELETE rows for rows never received (apache/doris#69907 T12).",
				modeOrDup(sr), sr.TTLProperty, s.ttl),
			Evidence: s.ev("partition", p.Unit, "rows_skipped", p.RowsSkipped, "data_age_lower_seconds", fmtF(dataLower(p)), "data_age_upper_seconds", fmtF(dataUpper(p)), "ttl_seconds", s.ttl, "key_model", sr.KeyModel),
			Next:     "Read partition " + doris.FormatPart(p.Unit) + " of " + doris.FormatName(sr.BaseTableDB, sr.BaseTableName) + " from the base table into the consumer (" + doris.CopyPartition(sr.BaseTableDB, sr.BaseTableName, p.Unit) + "), then " + doris.ResetStream(sr.DB, sr.Name) + "; upgrade to a build that reads such a partition from the base table (apache/doris#69907 T12)."}
		f.Magnitude = copyF(dataLower(p))
		if p.RowsSkipped == "may" {
			f.Severity = diag.SeverityWarning
			f.Summary = fmt.Sprintf("partition %s has no offset and its rows may be older than the TTL: the next read may silently skip them", p.Unit)
		}
		p.severity = max(p.severity, f.Severity)
		fs = append(fs, f)
	}
	return fs
}

// partitionSeverities sets each partition's severity, for "worst first".
func (a *streamAnalyzer) partitionSeverities(sr *Stream) {
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		switch {
		case p.CanResume != nil && !*p.CanResume && (p.CaughtUp == nil || !*p.CaughtUp):
			p.severity = max(p.severity, diag.SeverityCritical)
			if sr.Kind == KindIVM {
				p.severity = max(p.severity, diag.SeverityWarning)
			}
		case p.CanResume != nil && !*p.CanResume:
			p.severity = max(p.severity, diag.SeverityWarning)
		case p.HeadroomSeconds != nil && *p.HeadroomSeconds < a.opt.MinHeadroom.Seconds():
			p.severity = max(p.severity, diag.SeverityWarning)
		case sr.Kind == KindUser && p.PendingAge.Get(0) > a.opt.MaxPending.Seconds():
			p.severity = max(p.severity, diag.SeverityWarning)
		}
		if p.severity > 0 {
			p.Severity = p.severity.String()
		}
	}
}

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
		Next:     doris.SuggestStreamConsumptionRows(s.sr.ID) + "  -- and dorisdiag tso decode <CURRENT_TSO>"}}
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
		s := strings.ToLower(*sv.MonitorState)
		// The round is up to tol old: a headroom that crossed 0 since then
		// explains cannot_resume on one side only, as for CAN_RESUME below.
		crossed := (s == StateCannotResume) != (sr.State == StateCannotResume) &&
			sr.MinHeadroomSeconds != nil && math.Abs(*sr.MinHeadroomSeconds) <= tol
		if s != sr.State && !crossed && !(sr.Kind == KindIVM && sr.State == StateCannotResume) {
			d.note("monitor_state", s, sr.State)
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
