package streams

import (
	"fmt"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/tso"
)

// verdict is the short paragraph of `streams show`: what the next read does
// and what to run. It lives in diag because it is derived (report computes
// nothing).
func (a *streamAnalyzer) verdict(sr *Stream) []string {
	var v []string
	name := sr.DB + "." + sr.Name
	reset := doris.ResetStream(sr.DB, sr.Name)
	switch sr.State {
	case StateDisabled:
		return append(v, fmt.Sprintf("%s is disabled: nothing reads it, while the TTL keeps moving behind its offsets. Enable it again or drop it.", name))
	case StateStale:
		if sr.BaseTableDropped {
			return append(v, fmt.Sprintf("%s is stale: its base table was dropped. It can never be read again: drop it (%s) and recreate it on the new table if one exists.", name, doris.DropStream(sr.DB, sr.Name)))
		}
		return append(v, fmt.Sprintf("%s is stale (%s): it cannot be read. Recreate it.", name, orNone(sr.StaleReason)))
	case StateUnknown:
		return append(v, fmt.Sprintf("%s: %s. Re-run with a working connection, or read table_stream_consumption for stream id %d.", name, sr.StateReason, sr.ID))
	}
	var rejected, clipped, skipped, unknown, idle []string
	for _, p := range sr.Partitions {
		if sr.Kind == KindUser && p.CanResume != nil && !*p.CanResume && p.CaughtUp != nil && *p.CaughtUp {
			idle = append(idle, p.Unit) // expired but nothing pending: nothing lost yet
			continue
		}
		switch p.NextRead {
		case NextReadRejected:
			rejected = append(rejected, p.Unit)
		case NextReadClipped:
			if p.OffsetState == OffsetNone {
				skipped = append(skipped, p.Unit)
			} else {
				clipped = append(clipped, p.Unit)
			}
		case NextReadUnknown:
			unknown = append(unknown, p.Unit)
		}
	}
	list := func(s []string) string { return strings.Join(first(s, 4), ", ") }
	if sr.Kind == KindIVM {
		if len(rejected) > 0 {
			v = append(v, fmt.Sprintf("The next refresh of MV %s may only recompute: the offset of %s is below the retention floor, so the IVM read is rejected and the refresh falls back to COMPLETE (or fails with CHANGELOG_BROKEN on builds without that fallback). A keep-alive TSO the FE may hold for an idle partition is invisible to SQL on older builds, hence \"may\".", mvLabel(sr), list(rejected)))
			v = append(v, fmt.Sprintf("Run: %s at a quiet time, and check: %s", doris.RefreshMV(sr.DB, mvNameOr(sr), "COMPLETE"), mvExplainOr(sr)))
		}
		if len(skipped) > 0 {
			v = append(v, fmt.Sprintf("Partition(s) %s have no offset and rows older than the TTL: an MV refresh may miss them unless the build reads such a partition from the base table (apache/doris#69907 T11); a COMPLETE refresh brings them back.", list(skipped)))
		}
	} else {
		if len(rejected) > 0 {
			v = append(v, fmt.Sprintf("The next read of %s will be REJECTED: %s read from an expired offset on %s fails with the expired-offset error.", name, orMode(sr.ReadMode), list(rejected)))
		}
		if len(clipped) > 0 {
			lost := ""
			if sr.LostWindowMs != nil && *sr.LostWindowMs > 0 {
				lost = fmt.Sprintf(", about %s of changes", tso.FormatDuration(*sr.LostWindowMs))
			}
			v = append(v, fmt.Sprintf("The next %s read of %s will be CLIPPED: it succeeds but silently skips the expired changes of %s%s.", sr.ReadMode, name, list(clipped), lost))
		}
		if len(skipped) > 0 && !isT12(sr) {
			// Seed §1 T12: APPEND_ONLY and DETAIL streams on a unique-key table
			// "stay as they are" — not the defect, but the user should know.
			v = append(v, fmt.Sprintf("Partition(s) %s have no offset and rows %s older than the TTL: the next %s read returns only the retained changes of them, by design on a unique-key table, not a defect. If the consumer needs those rows, copy them from the base table (%s).",
				list(skipped), SkippedWord(sr.RowsSkipped), orMode(sr.ReadMode), doris.CopyPartitionsOf(sr.BaseTableDB, sr.BaseTableName)))
		}
		if len(skipped) > 0 && isT12(sr) {
			verb := "were"
			if sr.RowsSkipped == "may" {
				verb = "may be"
			}
			v = append(v, fmt.Sprintf("Rows %s silently skipped: partition(s) %s have no offset and rows older than the TTL, so the next read skips them and moves the offset past them for good (apache/doris#69907 T12). Copy them from the base table (%s) into the consumer, then %s.",
				verb, list(skipped), doris.CopyPartitionsOf(sr.BaseTableDB, sr.BaseTableName), reset))
		}
		if len(rejected)+len(clipped) > 0 {
			v = append(v, fmt.Sprintf("What to run: raise %s on %s.%s before the next read if the expired changelog is not compacted yet (it may become readable again); otherwise re-sync the consumer from the base table and run %s to start from now.", sr.TTLProperty, sr.BaseTableDB, sr.BaseTableName, reset))
		}
		if len(idle) > 0 {
			read := "a MIN_DELTA read is rejected"
			if sr.ReadMode == ModeDetail || sr.ReadMode == ModeAppendOnly {
				read = "a " + sr.ReadMode + " read is clipped, losing nothing as long as nothing is written first"
			}
			v = append(v, fmt.Sprintf("%s is caught up on %s but idle past the TTL: nothing is lost yet, but the offset left the retention (%s). Run %s — nothing is pending there, so it loses nothing.", name, list(idle), read, reset))
		}
	}
	if len(unknown) > 0 {
		v = append(v, fmt.Sprintf("The next read of %s cannot be told (%s).", list(unknown), firstNote(sr, NextReadUnknown)))
	}
	if len(v) == 0 {
		switch sr.State {
		case StateInitializing:
			v = append(v, fmt.Sprintf("%s is initializing: the next read returns the initial snapshot.", name))
		case StateLagging:
			v = append(v, fmt.Sprintf("%s is behind on %d partition(s) (pending age %s); the next read proceeds.", name, sr.PendingPartitions, pendingText(sr.MaxPendingAge)))
		default:
			v = append(v, fmt.Sprintf("%s is caught up; the next read proceeds.", name))
		}
	}
	if sr.MinHeadroomSeconds != nil && *sr.MinHeadroomSeconds >= 0 && *sr.MinHeadroomSeconds < a.opt.MinHeadroom.Seconds() {
		v = append(v, fmt.Sprintf("Headroom %s on %s: consume within that time, or raise %s.", fmtSecs(sr.MinHeadroomSeconds), sr.MinHeadroomPartition, sr.TTLProperty))
	}
	if r := sr.Rates; r != nil && r.TTLETASeconds != nil && r.ConsumerRate != nil && *r.ConsumerRate < 1 {
		v = append(v, fmt.Sprintf("At the current pace (consumer %.2f× real time over %s) the TTL reaches the offset in %s.", *r.ConsumerRate, fmtSecs(&r.WindowSeconds), fmtSecs(r.TTLETASeconds)))
	}
	return v
}

func firstNote(sr *Stream, read string) string {
	for _, p := range sr.Partitions {
		if p.NextRead == read && p.NextReadNote != "" {
			return p.NextReadNote
		}
	}
	return "unknown"
}

// ivmRecomputeNext: explain the MV of internal stream sr, then (its own
// statement, never inside a shell comment, where a line break in a name
// would end the comment) the COMPLETE refresh.
func ivmRecomputeNext(sr *Stream) string {
	refresh := doris.Note(doris.RefreshMV(sr.DB, mvNameOr(sr), "COMPLETE"), "if mv explain confirms")
	if sr.MVName == "" {
		return diag.StreamShowCommand(sr.DB, sr.Name) + "\n" + refresh
	}
	return diag.MVExplainCommand(sr.DB, sr.MVName) + "\n" + refresh
}

// mvExplainOr is the explain command of the MV of sr, or of the stream when
// the MV is not known by name.
func mvExplainOr(sr *Stream) string {
	if sr.MVName == "" {
		return diag.StreamShowCommand(sr.DB, sr.Name)
	}
	return diag.MVExplainCommand(sr.DB, sr.MVName)
}
