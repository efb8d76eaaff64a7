package streams

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The checks of whether a stream can resume and how late it is
// (apache/doris#69907 §1 S4, §3 Definitions): they run on a stream that is
// read (not disabled or stale).

// CodeIVMStreamRecomputeOnly: An MV's internal stream expired: the next refresh may only recompute (T9)
var CodeIVMStreamRecomputeOnly = diag.Declare(diag.Declaration{
	Code: "IVM_STREAM_RECOMPUTE_ONLY", Severity: diag.SeverityWarning,
	Action: "refresh the MV COMPLETE at a quiet time",
	Impact: diag.ImpactBroken, Place: 11,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	CausedBy:  []diag.Cause{{Code: "MV_CHANGELOG_BROKEN", Where: owningMV}, {Code: "MV_NEXT_REFRESH_RECOMPUTES", Where: owningMV}},
	Series:    "doris_fe_changelog_stream_min_retention_headroom_seconds{kind=\"ivm\"}",
	Alert:     "DorisStreamHeadroomLow",
	Title:     "An MV's internal stream expired: the next refresh may only recompute",
	Spec:      "apache/doris#69907 §1 T9, T0, T10; §3 Keep-alive TSO",
	Meaning:   "A partition of an IVM internal stream (__doris_ivm_stream_...) has an offset below the retention floor (headroom < 0). Every IVM read rejects an expired offset (apache/doris#69907 T10), so the next refresh of the owning MV falls back to a COMPLETE recompute (apache/doris#69907 T0), or, on builds without that fallback, fails with CHANGELOG_BROKEN. On builds that keep idle IVM partitions alive (apache/doris#69907 T9) the FE may hold a keep-alive TSO K for an idle partition, which SQL does not show on older builds, so this says \"may\". " + ttl.BuildsDiffer,
	Matters:   "A full recompute of a large MV is slow and loads the cluster; on builds without the fallback to COMPLETE the MV stops refreshing entirely.",
	Confirm:   "dorisdiag streams show DB.__doris_ivm_stream_...\ndorisdiag mv explain DB.MV",
	Fix:       "Run REFRESH MATERIALIZED VIEW db.mv COMPLETE at a quiet time; raise changelog.ttl_seconds on base tables written less often than the TTL, or upgrade to a build that keeps idle IVM partitions alive (apache/doris#69907 T9).",
	Related:   []string{"MV_NEXT_REFRESH_RECOMPUTES", "MV_CHANGELOG_BROKEN", "STREAM_HEADROOM_LOW"},
})

// owningMV: the cause of an internal stream's finding is about the MV the
// stream belongs to ("db.mv" in its evidence).
func owningMV(f *diag.Finding) (kind, label string, ok bool) {
	mv := f.Evidence["mv"]
	return "mv", mv, mv != ""
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

// CodeCannotResumeRejected: The next read of the stream will be rejected: its offset expired
var CodeCannotResumeRejected = diag.Declare(diag.Declaration{
	Code: "STREAM_CANNOT_RESUME_REJECTED", Severity: diag.SeverityCritical,
	Action: "re-sync, then reset, or raise the TTL",
	Impact: diag.ImpactLoss, Place: 5,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Series:    "doris_fe_changelog_streams{state=\"cannot_resume\"}",
	Alert:     "DorisStreamCannotResume",
	Title:     "The next read of the stream will be rejected: its offset expired",
	Spec:      "apache/doris#69907 §3 Definitions (can_resume), §1 S4; docs/streams.md \"What the next read does\"",
	Meaning:   "A partition of a user stream read as MIN_DELTA has changes beyond its offset, and the offset is below the retention floor (next_required < retention_floor, computed with the planner's cut-off from the current TSO and changelog.ttl_seconds / binlog.ttl_seconds). A MIN_DELTA read — like a snapshot read — from an expired offset fails with the expired-offset error. " + ttl.BuildsDiffer,
	Matters:   "The consuming job fails on every run until someone intervenes; the changes between the offset and the retention floor are gone from the changelog.",
	Confirm:   "dorisdiag streams show DB.STREAM\nSELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;  -- compare with: dorisdiag tso headroom --offset C --ttl SECONDS --now CURRENT_TSO",
	Fix:       "If the expired changelog is not compacted yet, raise changelog.ttl_seconds (binlog.ttl_seconds) on the base table: the records become readable again. Otherwise re-sync the consumer from the base table and run SELECT * FROM db.stream@reset() to start from now.",
	Related:   []string{"STREAM_CANNOT_RESUME_CLIPPED", "STREAM_HEADROOM_LOW", "STREAM_IDLE_OUT_OF_RETENTION"},
})

// CodeCannotResumeClipped: The next read of the stream will silently skip changes: its offset expired
var CodeCannotResumeClipped = diag.Declare(diag.Declaration{
	Code: "STREAM_CANNOT_RESUME_CLIPPED", Severity: diag.SeverityCritical,
	Action: "raise the TTL, or re-sync, then reset",
	Impact: diag.ImpactLoss, Place: 1,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Series:    "doris_fe_changelog_streams{state=\"cannot_resume\"}",
	Alert:     "DorisStreamCannotResume",
	Title:     "The next read of the stream will silently skip changes: its offset expired",
	Spec:      "apache/doris#69907 §1 S4 (\"succeeds and skips the expired changes without a trace\"), §3 Definitions; docs/tso.md",
	Meaning:   "A partition of a DETAIL or APPEND_ONLY user stream has changes beyond its offset, and the offset is below the retention floor. Such a read succeeds, clipped to the first retained TSO: the changes between the offset and the retention floor are skipped without an error. When the source end is known, the finding says how much (lost_window_ms). " + ttl.BuildsDiffer,
	Matters:   "The consumer loses changes and nothing tells it: downstream tables silently diverge from the source.",
	Confirm:   "dorisdiag streams show DB.STREAM   # next_read = clipped, lost_window_ms\nSELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;",
	Fix:       "Do not read the stream yet. Raise changelog.ttl_seconds (binlog.ttl_seconds) if the changelog is not compacted yet; otherwise re-sync the consumer from the base table for the lost window and run SELECT * FROM db.stream@reset().",
	Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_HEADROOM_LOW"},
})

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

// CodeIdleOutOfRetention: An idle, caught-up user stream drifted out of the retention
var CodeIdleOutOfRetention = diag.Declare(diag.Declaration{
	Code: "STREAM_IDLE_OUT_OF_RETENTION", Severity: diag.SeverityWarning,
	Action: "reset the stream: nothing is pending",
	Impact: diag.ImpactBroken, Place: 12,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Title:     "An idle, caught-up user stream drifted out of the retention",
	Spec:      "apache/doris#69907 §3 Definitions (\"a stream caught up on a partition nobody writes still drifts out of the retention\"); §3 \"Keep-alive TSO for idle IVM partitions\"",
	Meaning:   "The stream is caught up (nothing pending) on a partition nobody wrote for longer than the TTL, so its offset is below the retention floor. User streams get no keep-alive TSO (apache/doris#69907 \"Keep-alive TSO for idle IVM partitions\": only IVM internal streams do), so the design reports the stream cannot_resume. " + ttl.BuildsDiffer,
	Matters:   "Nothing is lost yet, but the next MIN_DELTA read is rejected, and a DETAIL/APPEND_ONLY read is clipped (losing nothing only as long as nothing was written).",
	Confirm:   "dorisdiag streams show DB.STREAM   # caught_up = true, can_resume = false",
	Fix:       "Run SELECT * FROM db.stream@reset() (nothing is pending, so it loses nothing), or consume the stream regularly; raise the TTL for tables written less often than it.",
	Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_HEADROOM_LOW"},
})

func checkStreamIdleOutOfRetention(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if s.sr.Kind != KindUser || len(s.behind) != 0 || len(s.idle) == 0 {
		return nil
	}
	w := worstHeadroom(s.idle)
	return measured(w.HeadroomSeconds, s.finding(CodeIdleOutOfRetention, fmt.Sprintf("idle stream out of retention: nothing pending, but %d offset(s) left the retention %s ago", len(s.idle), fmtSecs(negate(w.HeadroomSeconds))),
		fmt.Sprintf("The stream is caught up on %s, but nobody wrote the partition for longer than the TTL, so its offset is below the retention floor: nothing is lost yet, but a MIN_DELTA read is rejected and the design reports the stream cannot_resume (user streams get no keep-alive TSO).", w.Unit),
		s.ev("partitions", strconv.Itoa(len(s.idle)), "worst_partition", w.Unit, "headroom_seconds", fmtF(w.HeadroomSeconds), "ttl_seconds", s.ttl),
		doris.Note(doris.ResetStream(s.sr.DB, s.sr.Name)+";", "nothing is pending, so resetting the offset to now loses nothing")))
}

// CodeHeadroomLow: The TTL will reach a stream's offset soon
var CodeHeadroomLow = diag.Declare(diag.Declaration{
	Code: "STREAM_HEADROOM_LOW", Severity: diag.SeverityWarning,
	Action: "consume the stream now, or raise the TTL",
	Impact: diag.ImpactLoss, Place: 6,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	CausedBy:  []diag.Cause{{Code: "STREAM_CANNOT_RESUME_CLIPPED"}, {Code: "STREAM_CANNOT_RESUME_REJECTED"}, {Code: "STREAM_NO_OFFSET_ROWS_SKIPPED"}},
	Series:    "doris_fe_changelog_stream_min_retention_headroom_seconds",
	Alert:     "DorisStreamHeadroomLow",
	Title:     "The TTL will reach a stream's offset soon",
	Spec:      "apache/doris#69907 §3 Definitions (headroom_seconds), §2 alert doris_fe_changelog_stream_min_retention_headroom_seconds < 1800",
	Meaning:   "A partition can still resume, but its retention headroom — physical(next_required) − physical(retention_floor) — is under --min-headroom (default 30m). On an IVM internal stream it warns that the next refresh may only recompute. " + ttl.BuildsDiffer,
	Matters:   "When the headroom reaches 0 the stream cannot resume: MIN_DELTA reads are rejected, DETAIL/APPEND_ONLY reads silently skip changes, IVM refreshes recompute.",
	Confirm:   "dorisdiag streams show DB.STREAM   # headroom per partition\ndorisdiag headroom --in 1h",
	Fix:       "Consume the stream now (run its job), or raise changelog.ttl_seconds (binlog.ttl_seconds) on the base table.",
	Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_CANNOT_RESUME_CLIPPED", "IVM_STREAM_RECOMPUTE_ONLY"},
})

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
		"Consume the stream now (run its consuming job), or raise "+sr.TTLProperty+" on "+doris.FormatName(sr.BaseTableDB, sr.BaseTableName)+"."))
}

// CodePendingAgeHigh: A change has waited too long in a user stream
var CodePendingAgeHigh = diag.Declare(diag.Declaration{
	Code: "STREAM_PENDING_AGE_HIGH", Severity: diag.SeverityWarning,
	Action: "check the consuming job",
	Impact: diag.ImpactFreshness, Place: 2,
	Magnitude: diag.Measure{Name: "pending_age_seconds"},
	CausedBy:  []diag.Cause{{Code: "STREAM_CANNOT_RESUME_CLIPPED"}, {Code: "STREAM_CANNOT_RESUME_REJECTED"}, {Code: "STREAM_NO_OFFSET_ROWS_SKIPPED"}, {Code: "STREAM_HEADROOM_LOW"}},
	Series:    "doris_fe_changelog_stream_pending_age_seconds",
	Alert:     "DorisStreamPendingAgeHigh",
	Title:     "A change has waited too long in a user stream",
	Spec:      "apache/doris#69907 §3 Definitions (pending age), §2 alert doris_fe_changelog_stream_pending_age_seconds > 600",
	Meaning:   "The oldest change the source made visible that the offset does not cover is older than --max-pending (default 10m). From one snapshot the value is an upper bound (now − physical(offset), UPPER_BOUND); from a series (--snapshot a --snapshot b, --watch) it is narrowed to one interval (PRECISE). The summary says \"up to\" for an upper bound.",
	Matters:   "The consumer falls behind; if it keeps falling behind the TTL reaches it (see headroom).",
	Confirm:   "dorisdiag streams show DB.STREAM --watch 15s   # narrows the pending age and shows the consumer's rate",
	Fix:       "Check the consuming job (failing, paused, too slow); scale it or run it more often.",
	Related:   []string{"STREAM_HEADROOM_LOW"},
})

// checkStreamPendingAge: a user stream's pending age over --max-pending (an
// MV's delay is reported on the MV). Not when the stream cannot resume: the
// critical finding says more.
func checkStreamPendingAge(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if sr.Kind != KindUser || len(s.behind) != 0 || sr.knownMaxPending.Seconds == nil || *sr.knownMaxPending.Seconds <= a.opt.MaxPending.Seconds() {
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
	if sr.knownMaxPending.Precision == diag.PrecisionUpperBound {
		bound = "up to "
	}
	return measured(sr.knownMaxPending.Seconds, s.finding(CodePendingAgeHigh, fmt.Sprintf("a change has waited %s%s on %s (> %s)", bound, fmtSecs(sr.knownMaxPending.Seconds), w.Unit, tso.FormatDuration(a.opt.MaxPending.Milliseconds())),
		fmt.Sprintf("%d partition(s) behind; pending age %s (%s, %s).", sr.PendingPartitions, fmtSecs(sr.knownMaxPending.Seconds), sr.knownMaxPending.Precision, sr.knownMaxPending.Note),
		s.ev("pending_partitions", strconv.Itoa(sr.PendingPartitions), "worst_partition", w.Unit, "pending_age_seconds", fmtF(sr.knownMaxPending.Seconds), "precision", string(sr.knownMaxPending.Precision)),
		"Check the consuming job of "+doris.FormatName(sr.DB, sr.Name)+"; "+s.consQ))
}

// checkStreamPendingAgeLowerBound: a pending age with no upper bound (a
// partition with data, no offset and no creation time) whose proven lower
// bound is over the threshold ("at least").
func checkStreamPendingAgeLowerBound(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if sr.Kind != KindUser || len(s.behind) != 0 || (sr.knownMaxPending.Seconds != nil && *sr.knownMaxPending.Seconds > a.opt.MaxPending.Seconds()) {
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

// CodeNoOffsetRowsSkipped: Rows of a partition with no offset are older than the TTL and silently skipped (T12)
var CodeNoOffsetRowsSkipped = diag.Declare(diag.Declaration{
	Code: "STREAM_NO_OFFSET_ROWS_SKIPPED", Severity: diag.SeverityCritical,
	Action: "re-copy the partition's rows, then reset",
	Impact: diag.ImpactLoss, Place: 2,
	Magnitude: diag.Measure{Name: "data_age_lower_seconds"},
	Title:     "Rows of a partition with no offset are older than the TTL and silently skipped",
	Spec:      "apache/doris#69907 §1 T12, T11",
	Meaning:   "A user stream read as MIN_DELTA, or a stream on a duplicate-key table, has a partition with data and no offset (added after the stream, or empty at its creation), and the partition's rows are older than the TTL. The stream reads such a partition from the changelog, so those rows are skipped and the offset moves past them for good; MIN_DELTA may even emit UPDATE_BEFORE and DELETE rows for rows never received. Critical when the newest data is older than the TTL (all rows); a warning (\"may\") when only the partition's creation time or nothing is known. " + ttl.BuildsDiffer,
	Matters:   "The consumer silently misses rows, permanently — later reads do not bring them back.",
	Confirm:   "dorisdiag streams show DB.STREAM   # offset_state NO_OFFSET, rows_skipped, data_age\nSELECT PARTITION_NAME, VISIBLE_VERSION, UPDATE_TIME FROM information_schema.partitions WHERE TABLE_SCHEMA = '<db>' AND TABLE_NAME = '<table>';",
	Fix:       "Copy the partition's rows from the base table into the consumer (INSERT ... SELECT ... FROM db.table PARTITION (p)), then SELECT * FROM db.stream@reset(). Upgrade to a build that reads such a partition from the base table (apache/doris#69907 T12).",
	Related:   []string{"STREAM_CANNOT_RESUME_CLIPPED", "MV_ROWS_MAY_BE_MISSED"},
})

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
