package streams

import (
	"fmt"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// A stream's identity, TTL and read mode, and its state from its partitions
// (apache/doris#69907 §3 "States": the first that matches wins).

// streamBase fills identity, kind, base table, TTL and read mode.
func (a *streamAnalyzer) streamBase(st *snapshot.Stream) Stream {
	sr := Stream{DB: st.DB, Name: st.Name, ID: st.ID, Kind: KindUser,
		ConsumeType: st.ConsumeType, BaseTableDB: st.BaseTableDB, BaseTableName: st.BaseTableName,
		Enabled: st.Enabled, IsStale: st.IsStale, StaleReason: st.StaleReason, StateSource: diag.SourceClient,
		Verdict: []string{}}
	if name, id, _, ok := doris.ParseIvmStreamName(st.Name); ok {
		sr.Kind = KindIVM
		sr.MVName = name
		if id != 0 {
			sr.MVID = i64(id)
		}
	}
	if st.IvmMVID != nil {
		sr.Kind = KindIVM
		sr.MVID = i64(*st.IvmMVID)
	}
	// Both shapes of a dropped base table (snapshot.BaseTableDroppedShape):
	// later builds keep the table's name, earlier ones write N/A in it.
	sr.BaseTableDropped = st.BaseTableDropped || strings.EqualFold(st.BaseTableName, "N/A") || strings.EqualFold(st.BaseTableDB, "N/A")
	sr.baseTableDroppedShape = st.BaseTableDroppedShape
	if sr.BaseTableDropped && (strings.EqualFold(st.BaseTableName, "N/A") || strings.EqualFold(st.BaseTableDB, "N/A")) {
		sr.BaseTableDB, sr.BaseTableName = "", ""
	}
	var tbl *snapshot.Table
	if !sr.BaseTableDropped {
		tbl = a.tables[st.BaseTableDB+"\x00"+st.BaseTableName]
	}
	naming := a.last.Cluster.Naming
	if tbl != nil {
		sr.KeyModel = tbl.KeyModel
		if tbl.PropertyNaming != "" {
			naming = tbl.PropertyNaming
		}
	}
	switch naming { // the two namings without a string built per stream
	case "", "changelog":
		sr.TTLProperty = "changelog.ttl_seconds"
	case "binlog":
		sr.TTLProperty = "binlog.ttl_seconds"
	default:
		sr.TTLProperty = naming + ".ttl_seconds"
	}
	switch {
	case a.opt.TTLOverride != nil:
		sr.TTLSeconds = i64(*a.opt.TTLOverride)
		sr.TTLSource = "what-if --ttl"
		if *a.opt.TTLOverride <= 0 {
			sr.TTLSeconds = nil
			sr.ttlOff = true
			sr.TTLNote = "the what-if TTL is off (<= 0): no retention applies"
		}
	case sr.BaseTableDropped:
		sr.ttlOff = true
		sr.TTLNote = "the base table is dropped: no TTL"
	case tbl == nil:
		sr.TTLNote = fmt.Sprintf("the base table %s.%s was not read: TTL unknown (changelog.ttl_seconds / binlog.ttl_seconds), retention not applicable", st.BaseTableDB, st.BaseTableName)
	case tbl.ChangelogEnabled != nil && !*tbl.ChangelogEnabled:
		sr.ttlOff = true
		sr.TTLNote = "the changelog (changelog.enable / binlog.enable) is off on the base table: no retention applies"
	case tbl.TTLSeconds == nil:
		sr.TTLNote = "TTL unknown (neither changelog.ttl_seconds nor binlog.ttl_seconds could be read): retention not applicable"
	case *tbl.TTLSeconds <= 0:
		sr.ttlOff = true
		sr.TTLNote = fmt.Sprintf("%s = %d: the TTL is off, no retention applies", sr.TTLProperty, *tbl.TTLSeconds)
	default:
		sr.TTLSeconds = i64(*tbl.TTLSeconds)
		sr.TTLSource = tbl.TTLSource
		if tbl.TTLSource == "default" {
			sr.TTLNote = fmt.Sprintf("%s not set on the table: the Doris default 86400 was assumed", sr.TTLProperty)
		}
	}
	sr.ReadMode, sr.ReadModeNote = readMode(st.ConsumeType, sr.KeyModel)
	if sr.Kind == KindIVM {
		sr.ReadModeNote = "IVM refresh: every IVM read rejects an expired offset and the refresh falls back to COMPLETE"
	}
	return sr
}

// readMode resolves CONSUME_TYPE; older builds print DEFAULT, which is
// MIN_DELTA on a unique-key table (seed T12) and assumed APPEND_ONLY on a
// duplicate-key one.
func readMode(consumeType, keyModel string) (string, string) {
	ct := strings.ToUpper(strings.TrimSpace(consumeType))
	switch ct {
	case ModeMinDelta, ModeDetail, ModeAppendOnly:
		return ct, ""
	case "DEFAULT", "":
		switch strings.ToUpper(keyModel) {
		case "UNIQUE_KEYS":
			return ModeMinDelta, "CONSUME_TYPE " + orNone(consumeType) + " on a unique-key table: MIN_DELTA assumed (the default there)"
		case "DUP_KEYS", "DUPLICATE_KEYS", "AGG_KEYS":
			return ModeAppendOnly, "CONSUME_TYPE " + orNone(consumeType) + " on a " + strings.ToLower(keyModel) + " table: APPEND_ONLY assumed"
		}
		return "", "CONSUME_TYPE " + orNone(consumeType) + " and the key model unknown: the read mode is unknown"
	}
	return "", "unknown CONSUME_TYPE " + consumeType
}

func orNone(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// isT12 reports whether a stream reads no-offset partitions from the
// changelog in the way seed T12 describes: MIN_DELTA, or any stream on a
// duplicate-key table.
func isT12(sr *Stream) bool {
	return sr.Kind == KindUser && (sr.ReadMode == ModeMinDelta || IsDupKeys(sr.KeyModel))
}

func IsDupKeys(k string) bool {
	k = strings.ToUpper(k)
	return k == "DUP_KEYS" || k == "DUPLICATE_KEYS"
}

// aggregate computes the stream-level values and the state (seed §3 "States").
func (a *streamAnalyzer) aggregate(sr *Stream) {
	var maxPending *diag.Value
	anyUnknown, anyCannot, anyInitial, anyBehind := false, false, false, false
	allResume := true
	anyRetention := false
	worstRead := NextReadProceed
	var lost int64
	lostKnown := false
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		switch p.OffsetState {
		case OffsetUnknown:
			anyUnknown = true
		case OffsetInitialSnapshotPending:
			anyInitial = true
		}
		if p.CaughtUp == nil || !*p.CaughtUp {
			if p.OffsetState != OffsetInitialSnapshotPending && p.OffsetState != OffsetUnknown {
				anyBehind = true
				sr.PendingPartitions++
			}
		}
		if p.CanResume != nil {
			anyRetention = true
			if !*p.CanResume {
				anyCannot = true
				allResume = false
			}
		}
		if p.HeadroomSeconds != nil && (sr.MinHeadroomSeconds == nil || *p.HeadroomSeconds < *sr.MinHeadroomSeconds) {
			sr.MinHeadroomSeconds = f64(*p.HeadroomSeconds)
			sr.MinHeadroomPartition = p.Unit
		}
		if p.LagInVersions {
			sr.LagInVersions = true
		}
		if p.LostWindowMs != nil {
			// The largest span, not the sum: partitions lose changes over
			// the same stretch of time.
			lost = max(lost, *p.LostWindowMs)
			lostKnown = true
		}
		if readRank(p.NextRead) > readRank(worstRead) {
			worstRead = p.NextRead
		}
		if p.RowsSkipped == "yes" || (p.RowsSkipped == "may" && sr.RowsSkipped == "") {
			sr.RowsSkipped = p.RowsSkipped
		}
		// Max pending age: the largest known value; precision the worst of
		// the partitions that are behind (seed: worst of its parts).
		pv := p.PendingAge
		if p.OffsetState == OffsetInitialSnapshotPending {
			continue
		}
		if maxPending == nil {
			v := pv
			maxPending = &v
			continue
		}
		if pv.Seconds != nil && (maxPending.Seconds == nil || *pv.Seconds > *maxPending.Seconds) {
			prec := diag.WorstPrecision(pv.Precision, precisionIfBehind(maxPending))
			v := pv
			v.Precision = prec
			maxPending = &v
		} else if pv.Seconds == nil || pv.Get(0) > 0 {
			maxPending.Precision = diag.WorstPrecision(maxPending.Precision, precisionIfBehind(&pv))
		}
	}
	if maxPending != nil {
		sr.knownMaxPending = *maxPending
		sr.MaxPendingAge = boundMaxPending(sr.Partitions, *maxPending)
	} else {
		sr.MaxPendingAge = diag.UnknownValue(diag.SourceClient, "no partition with a pending age")
	}
	if anyRetention {
		sr.CanResume = bptr(allResume)
	}
	sr.NextRead = worstRead
	if sr.IsStale || sr.BaseTableDropped {
		sr.NextRead = NextReadRejected // a stale stream cannot be read at all
	}
	if lostKnown {
		sr.LostWindowMs = i64(lost)
	}
	if a.ttl.Verdict == snapshot.TTLNotEnforced {
		// Nothing expires on this build (the user's word): an offset below
		// the retention floor is no hazard (diag/ttl).
		anyCannot = false
	}
	switch {
	case !sr.Enabled && !sr.droppedNamed(): // the later builds disable the streams of a dropped table: stale says why
		sr.State, sr.StateReason = StateDisabled, "ENABLED = false"
	case sr.IsStale || sr.BaseTableDropped:
		sr.State = StateStale
		if sr.BaseTableDropped {
			sr.StateReason = "the base table is dropped (BASE_TABLE_TYPE reads N/A)"
		} else {
			sr.StateReason = "IS_STALE = true: " + orNone(sr.StaleReason)
		}
	case a.consumptionUnreadable != "":
		sr.State, sr.StateReason = StateUnknown, "table_stream_consumption could not be read: "+a.consumptionUnreadable
	case len(sr.Partitions) == 0:
		sr.State, sr.StateReason = StateUnknown, "no table_stream_consumption rows for this stream"
	case anyUnknown:
		sr.State, sr.StateReason = StateUnknown, "an offset cannot be read"
	case anyCannot && sr.Kind == KindIVM:
		// Seed T9: an internal stream resumes from max(C, K); K is invisible
		// to SQL on older builds, so from C alone this is a "may".
		sr.State, sr.StateReason = StateCannotResume, "a partition's offset is below the retention floor, so the next refresh may only recompute; a keep-alive TSO invisible to SQL may still cover an idle partition"
	case anyCannot:
		sr.State, sr.StateReason = StateCannotResume, "a partition with a TTL cannot resume: its next required TSO is below the retention floor"
	case anyInitial:
		sr.State, sr.StateReason = StateInitializing, "the initial snapshot is not consumed yet"
	case anyBehind:
		sr.State, sr.StateReason = StateLagging, fmt.Sprintf("%d partition(s) have changes beyond the offset or data and no offset", sr.PendingPartitions)
	default:
		sr.State, sr.StateReason = StateCaughtUp, "every partition is caught up"
	}
	if sr.State == StateCannotResume && !a.ttlEnforced() {
		sr.StateReason = ttl.Condition(sr.TTLProperty) + ": " + sr.StateReason
	}
}

// boundMaxPending is the stream's max pending age as a bound over its
// partitions (apache/doris#69907 §3 Definitions: "never report a delay too
// small"): the largest known upper bound is only an upper bound of the max
// when every partition has one. A partition with no upper bound (no offset
// and no creation time, or an unreadable offset) makes the max's upper bound
// unknown; its proven lower bound — the largest lower bound over the
// partitions — is then the value shown and exported, never a smaller known
// value of another partition, never 0 or "caught up".
func boundMaxPending(parts []Partition, known diag.Value) diag.Value {
	var open *diag.Value
	var lower *float64
	for i := range parts {
		p := &parts[i]
		if p.OffsetState == OffsetInitialSnapshotPending {
			continue
		}
		v := &p.PendingAge
		lo := v.Lower
		if lo == nil && v.Seconds != nil && v.Precision == diag.PrecisionPrecise {
			lo = v.Seconds
		}
		if lo != nil && (lower == nil || *lo > *lower) {
			lower = lo
		}
		if v.Seconds == nil && (open == nil || (v.Lower != nil && (open.Lower == nil || *v.Lower > *open.Lower))) {
			open = v
		}
	}
	if open == nil {
		return known
	}
	out := *open
	out.Seconds = nil
	out.Precision = diag.PrecisionUnknown
	if lower != nil {
		out.Lower = f64(*lower)
	}
	return out
}

func precisionIfBehind(v *diag.Value) diag.Precision {
	if v.Seconds != nil && *v.Seconds == 0 {
		return diag.PrecisionPrecise
	}
	return v.Precision
}

func readRank(r string) int {
	switch r {
	case NextReadProceed:
		return 0
	case NextReadUnknown:
		return 1
	case NextReadRejected:
		return 2
	case NextReadClipped:
		return 3
	}
	return 1
}

func isNoOffsetText(s string) bool {
	p, err := tso.ParseOffset(s)
	return err == nil && (p.Kind == tso.KindNoOffset || (p.Kind == tso.KindTSO && p.TSO <= 0))
}
