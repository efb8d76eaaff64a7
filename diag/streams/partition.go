package streams

import (
	"errors"
	"fmt"
	"math"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// analyzePartition diagnoses one row of table_stream_consumption (seed T2
// columns, computed client-side from CONSUMPTION_STATUS, LAG, the TTL and the
// current TSO; the server's values kept beside when the build has them).
func (a *streamAnalyzer) analyzePartition(sr *Stream, c *snapshot.Consumption, initial bool) Partition {
	p := Partition{Unit: c.Unit, ConsumptionStatus: c.ConsumptionStatus, Lag: c.Lag,
		LastConsumptionTimeMs: c.LastConsumptionTimeMs}
	p.Server = serverPartition(c)

	// Offset state and consumed TSO.
	var consumed *tso.TSO
	switch {
	case c.Offset != nil && *c.Offset > 0:
		consumed = ptrTSO(*c.Offset)
		p.OffsetState = OffsetConsumed
	case c.ConsumedTSO != nil && *c.ConsumedTSO > 0:
		consumed = ptrTSO(*c.ConsumedTSO)
		p.OffsetState = OffsetConsumed
	default:
		parsed, err := tso.ParseOffset(c.ConsumptionStatus)
		switch {
		case err != nil || parsed.Kind == tso.KindUnbounded:
			p.OffsetState = OffsetUnknown
		case parsed.Kind == tso.KindTSO && parsed.TSO > 0:
			consumed = ptrTSO(parsed.TSO)
			p.OffsetState = OffsetConsumed
		default:
			p.OffsetState = OffsetNone
		}
	}
	if p.Server != nil && p.Server.OffsetState != nil {
		switch so := OffsetState(*p.Server.OffsetState); so {
		case OffsetConsumed, OffsetInitialSnapshotPending, OffsetNone:
			if p.OffsetState != OffsetUnknown || so != OffsetConsumed || consumed != nil {
				p.OffsetState = so
			}
		}
	} else if initial && p.OffsetState == OffsetNone {
		p.OffsetState = OffsetInitialSnapshotPending
	}
	if consumed != nil && a.last.AfterClock(*consumed) {
		// An offset the cluster cannot have allocated yet (snapshot.Validate
		// counts it): neither caught up nor retained, just unreadable.
		consumed, p.OffsetState = nil, OffsetUnknown
	}
	p.ConsumedTSO = consumed

	// Source end, data, caught up, from LAG (a TSO difference, or a version
	// count on old builds: doris.md §4) or SOURCE_END_TSO.
	lag, lagOK := int64(0), false
	if c.LagValue != nil {
		lag, lagOK = *c.LagValue, true
	} else if v, ok, err := tso.ParseLag(c.Lag); err == nil && ok {
		lag, lagOK = v, true
	}
	if consumed != nil && lagOK && tso.LooksLikeVersionCount(lag, *consumed) {
		p.LagInVersions = true
	}
	switch {
	case c.SourceEndTSO != nil && *c.SourceEndTSO > 0 && !a.last.AfterClock(*c.SourceEndTSO):
		p.SourceEndTSO, p.SourceEndFrom = ptrTSO(*c.SourceEndTSO), diag.SourceServer
		p.HasData = a.bptr(true)
	case consumed != nil && lagOK && !p.LagInVersions && lag >= 0 && int64(*consumed) <= int64(tso.MaxReal)-lag &&
		!a.last.AfterClock(*consumed+tso.TSO(lag)): // a LAG past the clock is no partition end
		p.SourceEndTSO, p.SourceEndFrom = ptrTSO(*consumed+tso.TSO(lag)), "offset+lag"
		p.HasData = a.bptr(true)
	}
	switch {
	case consumed != nil && p.SourceEndTSO != nil:
		p.CaughtUp = a.bptr(*p.SourceEndTSO <= *consumed)
		p.PositionGapSeconds = a.f64(math.Max(0, float64(p.SourceEndTSO.Physical()-consumed.Physical())/1000))
	case consumed != nil && lagOK:
		p.CaughtUp = a.bptr(lag <= 0) // a version count: 0 versions behind is caught up
	case consumed == nil && p.OffsetState != OffsetUnknown:
		hasData := !lagOK || lag != 0 // LAG N/A with no offset = the partition has data
		if p.Server != nil && p.Server.OffsetState != nil {
			hasData = c.SourceEndTSO != nil && *c.SourceEndTSO > 0
		} else if part := a.part(sr, p.Unit); part != nil && part.VisibleVersion != nil && *part.VisibleVersion <= partitionInitVersion {
			// Nothing was ever loaded into the partition: its visible
			// version is still the one it was created with.
			hasData = false
		}
		p.HasData = a.bptr(hasData)
		p.CaughtUp = a.bptr(!hasData)
	}
	if p.CaughtUp == nil && p.Server != nil && p.Server.CaughtUp != nil {
		p.CaughtUp = a.bptr(*p.Server.CaughtUp)
	}

	a.pendingAge(sr, &p)
	a.retention(sr, &p)
	a.nextRead(sr, &p, c)
	return p
}

// pendingAge is seed §3 "Pending age" from one snapshot: at most
// now − physical(C) (UPPER_BOUND), at least now − physical(end). The series
// narrows it later (narrowSeries).
func (a *streamAnalyzer) pendingAge(sr *Stream, p *Partition) {
	now := a.evalMs
	switch {
	case p.OffsetState == OffsetUnknown:
		p.PendingAge = diag.UnknownValue(diag.SourceClient, "the offset cannot be read")
	case p.OffsetState == OffsetInitialSnapshotPending:
		p.PendingAge = diag.UnknownValue(diag.SourceClient, "initializing: the initial snapshot is not consumed yet, no pending age")
	case p.CaughtUp != nil && *p.CaughtUp:
		p.PendingAge = diag.Value{Seconds: a.f64(0), Lower: a.f64(0), Precision: diag.PrecisionPrecise, Source: diag.SourceClient, Note: "caught up"}
	case p.ConsumedTSO != nil:
		v := diag.Value{Seconds: a.f64(secs(now - p.ConsumedTSO.Physical())), Precision: diag.PrecisionUpperBound, Source: diag.SourceClient,
			Note: "at most now − physical(offset)"}
		if p.SourceEndTSO != nil {
			v.Lower = a.f64(math.Max(0, secs(now-p.SourceEndTSO.Physical())))
			v.Note += ", at least now − physical(source end)"
		}
		p.PendingAge = v
	default: // no offset, with data
		p.PendingAge = a.noOffsetPendingAge(sr, p)
	}
	// The server's pending age (seed T2), when the build has it and this is
	// not a what-if: it has change points the client cannot see, so it is the
	// reported value; the client's bound is kept for the comparison.
	if a.whatIf() || p.Server == nil || p.Server.PendingAgeSeconds == nil {
		return
	}
	client := p.PendingAge
	p.ClientPendingAge = &client
	prec := diag.PrecisionPrecise
	if p.Server.PendingAgePrecision != nil {
		prec = diag.Precision(*p.Server.PendingAgePrecision)
	}
	// Never report a delay too small (design.md): a server value below what
	// the client proves (now − physical(end), the age of a change it already
	// sees pending) is not reported; the client's bound is, and the
	// disagreement becomes SERVER_CLIENT_MISMATCH.
	if client.Lower != nil && *p.Server.PendingAgeSeconds < *client.Lower-1 {
		p.PendingAge.Note = fmt.Sprintf("the server's PENDING_AGE_SECONDS (%.3f) is below the client's proven lower bound (%.3f): the client's value is reported", *p.Server.PendingAgeSeconds, *client.Lower)
		return
	}
	p.PendingAge = diag.Value{Seconds: a.f64(*p.Server.PendingAgeSeconds), Lower: client.Lower, Precision: prec, Source: diag.SourceServer,
		Note: "PENDING_AGE_SECONDS of table_stream_consumption"}
	if prec == diag.PrecisionPrecise {
		p.PendingAge.Lower = a.f64(math.Max(0, *p.Server.PendingAgeSeconds-MonitorInterval.Seconds()))
	}
}

// partitionInitVersion is the visible version a partition is created with
// (Partition.PARTITION_INIT_VERSION = 1L, fe-core catalog/Partition.java and
// PhysicalPartition.java); every load publishes a higher one.
const partitionInitVersion = 1

// part is the information_schema.partitions row of a stream's partition.
func (a *streamAnalyzer) part(sr *Stream, unit string) *snapshot.Partition {
	return a.parts[sr.BaseTableDB+"\x00"+sr.BaseTableName+"\x00"+unit]
}

// createdMs is the partition's creation time when it is a real one. Real
// Doris serves CREATE_TIME 0 (unknown); the collector and the loader drop
// it, and this guards a snapshot built in memory.
func createdMs(part *snapshot.Partition) *int64 {
	if part == nil || part.CreateTimeMs == nil || !snapshot.PlausibleCreateTimeMs(*part.CreateTimeMs) {
		return nil
	}
	return part.CreateTimeMs
}

// noOffsetPendingAge bounds the pending age of a partition with data and no
// offset from what its row really gives (docs/streams.md "Pending age"):
//
//   - upper: the partition's age, when CREATE_TIME is a real time. Nothing
//     else is a sound upper bound: the stream's other offsets and
//     LAST_CONSUMPTION_TIMEs are at or after the stream's creation, so they
//     bound how long the stream has existed from below, not from above, and
//     no row says that a consumption read this partition. Without it the
//     value is UNKNOWN, its lower bound kept — never a delay too small.
//   - lower: the newest change is at least now − physical(source end), else
//     now − UPDATE_TIME (the visible-version time) old.
func (a *streamAnalyzer) noOffsetPendingAge(sr *Stream, p *Partition) diag.Value {
	now := a.evalMs
	part := a.part(sr, p.Unit)
	v := diag.Value{Precision: diag.PrecisionUpperBound, Source: diag.SourceClient}
	if c := createdMs(part); c != nil {
		v.Seconds = a.f64(math.Max(0, secs(now-*c)))
		v.Note = "no offset: at most the partition's age (created " + fmtMs(*c) + ")"
		v.BoundSource = "partition_create_time"
	}
	switch {
	case p.SourceEndTSO != nil:
		v.Lower = a.f64(math.Max(0, secs(now-p.SourceEndTSO.Physical())))
		v.LowerSource = "source_end"
	case part != nil && part.VisibleTimeMs != nil:
		v.Lower = a.f64(math.Max(0, secs(now-*part.VisibleTimeMs)))
		v.LowerSource = "update_time"
	}
	if v.Seconds == nil {
		v.Precision = diag.PrecisionUnknown
		v.BoundSource = "none"
		v.Note = "no offset and the partition's creation time is unknown (CREATE_TIME is 0 on Doris): no upper bound"
		if v.Lower != nil {
			v.Note += fmt.Sprintf("; at least %s (the newest change's age, from %s)", tso.FormatDuration(int64(*v.Lower*1000)), lowerWord(v.LowerSource))
		}
	}
	return v
}

func lowerWord(src string) string {
	if src == "source_end" {
		return "the source end"
	}
	return "UPDATE_TIME, the visible-version time"
}

// retention applies seed §3 "Resume and retention headroom" with the
// planner's functions (tso.ComputeRetention): only when the base table has a
// TTL and the partition an offset.
func (a *streamAnalyzer) retention(sr *Stream, p *Partition) {
	switch {
	case p.ConsumedTSO == nil:
		p.RetentionNote = "no offset: retention does not apply"
		return
	case sr.TTLSeconds == nil:
		p.RetentionNote = sr.TTLNote
		return
	}
	r, err := tso.ComputeRetention(a.ref, *sr.TTLSeconds, *p.ConsumedTSO)
	if err != nil {
		p.RetentionNote = "retention not computed: " + err.Error()
		if errors.Is(err, tso.ErrTTLNotActive) {
			p.RetentionNote = "the TTL is off: retention does not apply"
		}
		return
	}
	p.RetentionApplicable = true
	p.Retention = a.retention1(r)
	p.CanResume = a.bptr(r.CanResume)
	p.HeadroomSeconds = a.f64(r.HeadroomSeconds())
	p.HeadroomFraction = a.f64(math.Min(1, math.Max(0, r.HeadroomSeconds()/float64(*sr.TTLSeconds))))
	// An IVM internal stream resumes from max(C, K) with the keep-alive TSO K
	// (seed T9), which older builds do not show in SQL: when the server
	// reports its own resume and headroom, they are the better value.
	if sr.Kind == KindIVM && !a.whatIf() && p.Server != nil && p.Server.CanResume != nil && p.Server.RetentionHeadroomSeconds != nil {
		if *p.Server.CanResume && !r.CanResume || *p.Server.RetentionHeadroomSeconds > r.HeadroomSeconds() {
			p.CanResume = a.bptr(*p.Server.CanResume)
			p.HeadroomSeconds = a.f64(*p.Server.RetentionHeadroomSeconds)
			p.HeadroomFraction = a.f64(math.Min(1, math.Max(0, *p.HeadroomSeconds/float64(*sr.TTLSeconds))))
			p.RetentionNote = "resume and headroom from the server: they include the keep-alive TSO of idle IVM partitions that SQL does not show"
		}
	}
}

// nextRead says what the next read of the partition does (doris.md §2
// "Effect on reads"; seed T12) and what it loses.
func (a *streamAnalyzer) nextRead(sr *Stream, p *Partition, c *snapshot.Consumption) {
	switch p.OffsetState {
	case OffsetUnknown:
		p.NextRead, p.NextReadNote = NextReadUnknown, "the offset cannot be read"
		return
	case OffsetInitialSnapshotPending:
		p.NextRead, p.NextReadNote = NextReadProceed, "the next read returns the initial snapshot"
		return
	case OffsetNone:
		a.noOffsetRead(sr, p)
		return
	}
	switch {
	case !p.RetentionApplicable && sr.TTLSeconds == nil && !sr.ttlOff:
		p.NextRead, p.NextReadNote = NextReadUnknown, "TTL unknown: whether the offset is retained cannot be told"
	case !p.RetentionApplicable:
		p.NextRead = NextReadProceed
	case *p.CanResume:
		p.NextRead = NextReadProceed
	case sr.Kind == KindIVM:
		p.NextRead = NextReadRejected
		p.NextReadNote = "the next refresh may only recompute: the offset is below the retention floor (every IVM read rejects it; the refresh falls back to COMPLETE, or fails with CHANGELOG_BROKEN on builds without that fallback); a keep-alive TSO invisible to SQL may still cover it"
	case sr.ReadMode == ModeMinDelta:
		p.NextRead = NextReadRejected
		p.NextReadNote = "MIN_DELTA read from an expired offset: rejected with the expired-offset error"
	case sr.ReadMode == ModeDetail || sr.ReadMode == ModeAppendOnly:
		p.NextRead = NextReadClipped
		r := p.Retention
		switch {
		case p.CaughtUp != nil && *p.CaughtUp:
			p.LostWindowMs = i64(0)
			p.NextReadNote = sr.ReadMode + " read from an expired offset: clipped to the retention floor; nothing was written after the offset, so nothing is lost yet"
		case p.SourceEndTSO != nil:
			endMs := p.SourceEndTSO.Physical()
			if *p.SourceEndTSO >= r.RetentionFloorTSO {
				p.LostWindowMs = i64(r.ExpiredWindowMs)
			} else {
				// Every change up to the end expired: the lost span runs to
				// nextTso(end), so the end's own millisecond counts, as the
				// boundary millisecond X does in ExpiredWindowMs (doris.md §2).
				p.LostWindowMs = i64(max(0, endMs+1-r.NextRequiredTSO.Physical()))
			}
			p.NextReadNote = fmt.Sprintf("%s read from an expired offset: clipped silently, the changes of %s after the offset are skipped", sr.ReadMode, tso.FormatDuration(*p.LostWindowMs))
		default:
			p.NextReadNote = fmt.Sprintf("%s read from an expired offset: clipped silently, the changes of up to %s after the offset are skipped", sr.ReadMode, tso.FormatDuration(r.ExpiredWindowMs))
		}
	default:
		p.NextRead = NextReadUnknown
		p.NextReadNote = "the offset expired; the read mode is unknown, so the next read is either rejected (MIN_DELTA) or clipped silently (DETAIL, APPEND_ONLY)"
	}
}

// noOffsetRead: a partition with data and no offset (seed T11/T12). Its rows
// are read from the changelog, so once they are older than the TTL a
// MIN_DELTA stream or a stream on a duplicate-key table silently skips them
// and the offset moves past them for good (T12); DETAIL and APPEND_ONLY on a
// unique-key table are clipped the same way, by design.
func (a *streamAnalyzer) noOffsetRead(sr *Stream, p *Partition) {
	if p.HasData != nil && !*p.HasData {
		p.NextRead, p.NextReadNote = NextReadProceed, "empty partition with no offset: nothing to read"
		return
	}
	if sr.TTLSeconds == nil {
		p.NextRead = NextReadProceed
		p.NextReadNote = "no offset; no TTL applies, so its rows are read in full"
		if !sr.ttlOff {
			p.NextRead, p.NextReadNote = NextReadUnknown, "no offset and the TTL is unknown: whether its rows are still in the changelog cannot be told"
		}
		return
	}
	cutoffMs := a.evalMs - *sr.TTLSeconds*1000 // doris.md §2: X; physical <= X has expired
	part := a.part(sr, p.Unit)
	// The data age: the newest data is at least as old as the source end or
	// the latest visible version; the oldest at most as old as the partition.
	age := diag.Value{Precision: diag.PrecisionUpperBound, Source: diag.SourceClient}
	var newestMs, createMs *int64
	switch {
	case p.SourceEndTSO != nil:
		newestMs = i64(p.SourceEndTSO.Physical())
	case part != nil && part.VisibleTimeMs != nil:
		newestMs = i64(*part.VisibleTimeMs)
	}
	if c := createdMs(part); c != nil {
		createMs = i64(*c)
		age.Seconds = a.f64(math.Max(0, secs(a.evalMs-*createMs)))
	}
	if newestMs != nil {
		age.Lower = a.f64(math.Max(0, secs(a.evalMs-*newestMs)))
		if age.Seconds == nil {
			age.Precision = diag.PrecisionUnknown
			age.Note = "the newest data is " + tso.FormatDuration(a.evalMs-*newestMs) + " old; the oldest row's age is unknown"
		}
	}
	if age.Seconds == nil && age.Lower == nil {
		age = diag.UnknownValue(diag.SourceClient, "neither the partition's times nor SOURCE_END_TSO are known")
	}
	p.DataAge = &age
	switch {
	case newestMs != nil && *newestMs <= cutoffMs:
		p.RowsSkipped = "yes"
	case createMs != nil && *createMs > cutoffMs:
		p.RowsSkipped = "" // every row is younger than the TTL
	default:
		p.RowsSkipped = "may"
	}
	ttl := tso.FormatDuration(*sr.TTLSeconds * 1000)
	switch {
	case p.RowsSkipped == "":
		p.NextRead, p.NextReadNote = NextReadProceed, "no offset; every row is younger than the TTL ("+ttl+"), so the next read returns them"
	case sr.Kind == KindIVM:
		p.NextRead = NextReadClipped
		p.NextReadNote = "no offset and rows " + SkippedWord(p.RowsSkipped) + " older than the TTL (" + ttl + "): an MV refresh may miss them unless the build reads such a partition from the base table (apache/doris#69907 T11)"
	case isT12(sr):
		p.NextRead = NextReadClipped
		p.NextReadNote = "no offset and rows " + SkippedWord(p.RowsSkipped) + " older than the TTL (" + ttl + "): a " + modeOrDup(sr) + " read silently skips them and moves the offset past them for good (apache/doris#69907 T12)"
	default:
		p.NextRead = NextReadClipped
		p.NextReadNote = "no offset and rows " + SkippedWord(p.RowsSkipped) + " older than the TTL (" + ttl + "): the " + sr.ReadMode + " read returns only the retained changes (by design on a unique-key table)"
	}
}

func SkippedWord(s string) string {
	if s == "yes" {
		return "are"
	}
	return "may be"
}

func modeOrDup(sr *Stream) string {
	if IsDupKeys(sr.KeyModel) {
		return "duplicate-key table's"
	}
	return sr.ReadMode
}

func serverPartition(c *snapshot.Consumption) *ServerPartition {
	if c.OffsetState == nil && c.CaughtUp == nil && c.PendingAgeSeconds == nil && c.CanResume == nil &&
		c.RetentionHeadroomSeconds == nil && c.RetentionApplicable == nil && c.PositionGapSeconds == nil &&
		c.RetentionFloorTSO == nil && c.NextRequiredTSO == nil && c.LastGapTimeMs == nil {
		return nil
	}
	return &ServerPartition{OffsetState: c.OffsetState, CaughtUp: c.CaughtUp, PositionGapSeconds: c.PositionGapSeconds,
		PendingAgeSeconds: c.PendingAgeSeconds, PendingAgePrecision: c.PendingAgePrecision, RetentionApplicable: c.RetentionApplicable,
		RetentionFloorTSO: c.RetentionFloorTSO, NextRequiredTSO: c.NextRequiredTSO, CanResume: c.CanResume,
		RetentionHeadroomSeconds: c.RetentionHeadroomSeconds, LastGapTimeMs: c.LastGapTimeMs}
}

func ptrTSO(t tso.TSO) *tso.TSO { return &t }

func secs(ms int64) float64 { return float64(ms) / 1000 }

func fmtMs(ms int64) string {
	return tso.TSO(ms << tso.LogicalBits).Time().Format("2006-01-02T15:04:05Z")
}
