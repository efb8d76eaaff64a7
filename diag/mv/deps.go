package mv

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// An MV's dependencies (apache/doris#69907 ivm_dependencies): one per base
// table, from the server or from the MV's internal streams.

// dependencies builds one row per base table: from ivm_dependencies when the
// build has it, else from mv_infos() and the internal streams.
func (a *mvAnalyzer) dependencies(mv *snapshot.MVInfo, props MvProperties, hist *refresh.History) ([]Dependency, []string) {
	var notes []string
	ivm := a.internalStreams(mv)
	if rows := a.depsByMV[mv.ID]; len(rows) > 0 {
		deps := make([]Dependency, 0, len(rows))
		for _, d := range rows {
			deps = append(deps, a.serverDependency(d))
		}
		sortDeps(deps)
		return deps, notes
	}

	var deps []Dependency
	seen := map[string]bool{}
	byTable := map[string]*streams.Stream{}
	byName := map[string]*streams.Stream{}
	for _, sr := range ivm {
		byTable[tableKey(sr.BaseTableDB, sr.BaseTableName)] = sr
		byName[sr.Name] = sr
	}
	// mv_infos().IvmBaseTableStreams, when the build has it: the tables the MV
	// follows, so a missing stream shows.
	if bts := mv.BaseTableStreams; bts.Readable {
		for _, e := range bts.Entries {
			k := tableKey(e.BaseTable.DB, e.BaseTable.Name)
			if seen[k] || props.MatchesExcluded(e.BaseTable.Catalog, e.BaseTable.DB, e.BaseTable.Name) {
				continue
			}
			seen[k] = true
			sr := byName[e.Stream]
			if sr == nil && e.StreamID != nil {
				for _, s := range ivm {
					if s.ID == *e.StreamID {
						sr = s
					}
				}
			}
			if sr == nil {
				sr = byTable[k]
			}
			if sr == nil {
				deps = append(deps, Dependency{BaseTableDB: e.BaseTable.DB, BaseTableName: e.BaseTable.Name, StreamName: e.Stream,
					StreamID: e.StreamID, DependencyState: DepMissing, Delay: diag.UnknownValue(diag.SourceClient, "the internal stream is missing"),
					Source: diag.SourceClient, Note: "mv_infos().IvmBaseTableStreams names it, table_streams has no such stream"})
				continue
			}
			deps = append(deps, a.clientDependency(sr))
		}
	} else {
		notes = append(notes, "mv_infos().IvmBaseTableStreams could not be read ("+truncateText(mv.BaseTableStreams.Raw, 60)+"); base tables taken from the internal ivm")
	}
	for _, sr := range ivm {
		k := tableKey(sr.BaseTableDB, sr.BaseTableName)
		if seen[k] {
			continue
		}
		if props.MatchesExcluded("", sr.BaseTableDB, sr.BaseTableName) {
			continue // reported below as excluded, never in the delay
		}
		seen[k] = true
		deps = append(deps, a.clientDependency(sr))
	}
	for _, ex := range a.excludedTables(mv, props, ivm) {
		deps = append(deps, a.excludedDependency(ex, hist))
	}
	sortDeps(deps)
	return deps, notes
}

func sortDeps(deps []Dependency) {
	sort.SliceStable(deps, func(i, j int) bool {
		a, b := &deps[i], &deps[j]
		if a.Excluded != b.Excluded {
			return !a.Excluded
		}
		if da, db := a.Delay.Get(-1), b.Delay.Get(-1); da != db {
			return da > db
		}
		if a.BaseTableDB != b.BaseTableDB {
			return a.BaseTableDB < b.BaseTableDB
		}
		return a.BaseTableName < b.BaseTableName
	})
}

// depStateOf maps a stream state to the seed's DEPENDENCY_STATE.
func depStateOf(sr *streams.Stream) string {
	switch {
	case sr.State == streams.StateDisabled:
		return DepDisabled
	case sr.State == streams.StateStale:
		return DepStale
	case sr.State == streams.StateUnknown:
		return DepUnknown
	case sr.CanResume != nil && !*sr.CanResume:
		return DepCannotResume
	}
	return DepUsable
}

// clientDependency computes a trigger dependency from its internal stream.
// Seed §3: the delay is the stream's pending age with the stream at the MV's
// visible coverage; without the server's sampler the visible coverage is
// taken as the stream's offset, so a delay above 0 is at best an
// UPPER_BOUND (a refresh committed but not yet visible is not seen).
func (a *mvAnalyzer) clientDependency(sr *streams.Stream) Dependency {
	d := Dependency{BaseTableDB: sr.BaseTableDB, BaseTableName: sr.BaseTableName, StreamName: sr.Name, StreamID: ip(sr.ID),
		StreamState: sr.State, DependencyState: depStateOf(sr), HeadroomSeconds: sr.MinHeadroomSeconds,
		HeadroomPartition: sr.MinHeadroomPartition, CanResume: sr.CanResume, KeyModel: sr.KeyModel, TTLSeconds: sr.TTLSeconds,
		Source: diag.SourceClient, stream: sr}
	if t := a.tables[tableKey(sr.BaseTableDB, sr.BaseTableName)]; t != nil {
		d.BaseTableID = t.ID
	}
	d.Delay, d.LaggingPartitions, d.WorstPartition, d.Covered = streamDelay(sr)
	a.rowsMayBeMissed(&d, sr)
	return d
}

// streamDelay is the dependency delay over the stream's partitions: the
// largest pending age, its precision the worst of the partitions behind.
func streamDelay(sr *streams.Stream) (diag.Value, []string, string, *bool) {
	var lagging []string
	worst, worstAge := "", -1.0
	v := diag.Value{Seconds: f64(0), Precision: diag.PrecisionPrecise, Source: diag.SourceClient}
	anyUnknown := false
	var unknownLower *float64
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		behind := p.CaughtUp != nil && !*p.CaughtUp
		if p.PendingAge.Seconds != nil && *p.PendingAge.Seconds > 0 {
			behind = true
		}
		if p.OffsetState == streams.OffsetUnknown || (behind && p.PendingAge.Seconds == nil && p.OffsetState != streams.OffsetInitialSnapshotPending) {
			anyUnknown = true
			// A pending age with no upper bound still has a proven lower
			// one (a partition with data, no offset, no creation time).
			if l := p.PendingAge.Lower; l != nil && (unknownLower == nil || *l > *unknownLower) {
				unknownLower = f64(*l)
			}
		}
		if !behind {
			continue
		}
		lagging = append(lagging, p.Unit)
		age := p.PendingAge.Get(-1)
		if age > worstAge || worst == "" {
			worst, worstAge = p.Unit, age
		}
		if p.PendingAge.Seconds != nil && *p.PendingAge.Seconds > *v.Seconds {
			v.Seconds = f64(*p.PendingAge.Seconds)
			v.Lower = p.PendingAge.Lower
		}
		v.Precision = diag.WorstPrecision(v.Precision, p.PendingAge.Precision)
	}
	sort.Strings(lagging)
	var covered *bool
	switch {
	case anyUnknown || sr.State == streams.StateUnknown:
		lower := v.Seconds
		if unknownLower != nil && (lower == nil || *unknownLower > *lower) {
			lower = unknownLower
		}
		v = diag.Value{Precision: diag.PrecisionUnknown, Source: diag.SourceClient, Note: "an offset of the internal stream cannot be read", Lower: lower}
	case len(lagging) > 0:
		covered = bptr(false)
		v.Precision = diag.WorstPrecision(v.Precision, diag.PrecisionUpperBound)
		v.Note = "visible coverage taken as the internal stream's offset (no ivm_dependencies on this build)"
	default:
		covered = bptr(true)
	}
	if len(sr.Partitions) == 0 {
		v = diag.UnknownValue(diag.SourceClient, "no table_stream_consumption rows for the internal stream")
		covered = nil
	}
	return v, lagging, worst, covered
}

// rowsMayBeMissed marks T10 (a duplicate-key base table whose offset left the
// retention) and T11 (a base partition with data and no offset whose rows may
// be older than the TTL): builds without those fixes skip the rows silently.
func (a *mvAnalyzer) rowsMayBeMissed(d *Dependency, sr *streams.Stream) {
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.OffsetState == streams.OffsetNone && (p.RowsSkipped == "yes" || p.RowsSkipped == "may") {
			d.RowsMayBeMissed, d.RowsMissedUnit = RowsMissedNoOffset, p.Unit
			age := ""
			if p.DataAge != nil && p.DataAge.Seconds != nil {
				age = " (data up to " + diag.DurationText(*p.DataAge.Seconds) + " old)"
			}
			d.RowsMissedDetail = fmt.Sprintf("partition %s has data and no offset; its rows %s older than the TTL%s", p.Unit, streams.SkippedWord(p.RowsSkipped), age)
			return
		}
	}
	if streams.IsDupKeys(sr.KeyModel) {
		for i := range sr.Partitions {
			p := &sr.Partitions[i]
			if p.CanResume != nil && !*p.CanResume && p.CaughtUp != nil && !*p.CaughtUp {
				d.RowsMayBeMissed, d.RowsMissedUnit = RowsMissedExpiredDupKeys, p.Unit
				d.RowsMissedDetail = fmt.Sprintf("duplicate-key base table; partition %s has changes after an offset that left the retention", p.Unit)
				return
			}
		}
	}
}

// excludedDependency judges an excluded trigger table client-side (the
// legacy path: no ivm_dependencies). The evidence is
// information_schema.partitions UPDATE_TIME — the partition's visible-version
// time (SchemaTable partitions; partitionsForInternalCatalog writes
// getVisibleVersionTime()) — against the StartTime of the MV's last
// successful refresh in the task history: a partition that became visible
// after that refresh started changed since the MV covered it (UPPER_BOUND:
// the change is at most that old). It never guesses: without a successful
// refresh in the history, without the partitions, or with a partition whose
// visible time is missing or falls in the same second as the start (both are
// second-precision datetime text), the coverage is unknown. A partition at
// VISIBLE_VERSION 1 (Partition.PARTITION_INIT_VERSION) has had no load
// committed, so its time is no change.
func (a *mvAnalyzer) excludedDependency(ex TableRef, hist *refresh.History) Dependency {
	d := Dependency{BaseTableDB: ex.DB, BaseTableName: ex.Name, Excluded: true, DependencyState: DepExcluded, Source: diag.SourceClient,
		Delay: diag.UnknownValue(diag.SourceClient, "coverage of an excluded table needs ivm_dependencies, or its partitions' visible times and a successful refresh in the task history")}
	if t := a.tables[tableKey(ex.DB, ex.Name)]; t != nil {
		d.BaseTableID, d.KeyModel, d.TTLSeconds = t.ID, t.KeyModel, t.TTLSeconds
	}
	parts := a.partsByTbl[tableKey(ex.DB, ex.Name)]
	switch {
	case hist.LastSuccess == nil:
		d.Note = "unknown: no successful refresh in the task history read"
		return d
	case len(parts) == 0:
		d.Note = "unknown: information_schema.partitions has no row of this table"
		return d
	}
	covered, basis := hist.LastSuccess.StartTimeMs, "StartTime"
	if covered == nil {
		covered, basis = hist.LastSuccess.CreateTimeMs, "CreateTime"
	}
	if covered == nil {
		d.Note = "unknown: the last successful refresh has no start time"
		return d
	}
	refresh := fmt.Sprintf("the %s of task %d, the last successful refresh", basis, hist.LastSuccess.TaskID)
	var newest int64 = math.MinInt64
	var unknown, sameSecond []string
	for _, p := range parts {
		if p.VisibleVersion != nil && *p.VisibleVersion <= 1 {
			continue // no load committed: nothing changed
		}
		if p.VisibleTimeMs == nil {
			unknown = append(unknown, p.Name)
			continue
		}
		v := *p.VisibleTimeMs
		if floorDiv(v, 1000) == floorDiv(*covered, 1000) {
			sameSecond = append(sameSecond, p.Name)
			continue
		}
		if v > *covered {
			d.LaggingPartitions = append(d.LaggingPartitions, p.Name)
			if v > newest {
				newest = v
			}
		}
	}
	sort.Strings(d.LaggingPartitions)
	if len(d.LaggingPartitions) > 0 {
		d.Covered = bptr(false)
		d.WorstPartition = d.LaggingPartitions[0]
		d.Note = "information_schema.partitions UPDATE_TIME (visible-version time) of partition " + strings.Join(d.LaggingPartitions, ", ") + " is after " + refresh
		d.Delay = diag.Value{Seconds: f64(math.Max(0, float64(a.nowMs-*covered)/1000)), Lower: f64(math.Max(0, float64(a.nowMs-newest)/1000)),
			Precision: diag.PrecisionUpperBound, Source: diag.SourceClient, Note: "changed after the last successful refresh started; at most that old"}
		return d
	}
	switch {
	case len(unknown) > 0:
		d.Note = "unknown: partition " + strings.Join(unknown, ", ") + " has no visible-version time (UPDATE_TIME)"
		return d
	case len(sameSecond) > 0:
		d.Note = "unknown: partition " + strings.Join(sameSecond, ", ") + " became visible in the same second as " + refresh
		return d
	}
	d.Covered = bptr(true)
	d.Note = "every partition's UPDATE_TIME (visible-version time) is before " + refresh
	d.Delay = diag.Value{Seconds: f64(0), Precision: diag.PrecisionUpperBound, Source: diag.SourceClient, Note: "no partition became visible after the last successful refresh started"}
	return d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// serverDependency reads one ivm_dependencies row and attaches the client's
// view of its internal stream for the partitions and the cross-check.
func (a *mvAnalyzer) serverDependency(r *snapshot.Dependency) Dependency {
	d := Dependency{BaseTableDB: r.BaseTableDB, BaseTableName: r.BaseTableName, BaseTableID: r.BaseTableID,
		Excluded: r.IsExcludedTrigger, StreamName: r.StreamName, StreamID: r.StreamID, DependencyState: strings.ToUpper(strings.TrimSpace(r.DependencyState)),
		Covered: r.Covered, WorstPartition: r.WorstPartition, HeadroomSeconds: r.MinRetentionHeadroomSeconds, CanResume: r.CanResume,
		CoveredVersion: r.CoveredVersion, CurrentVersion: r.CurrentVersion, Source: diag.SourceServer}
	if d.DependencyState == "" {
		d.DependencyState = DepUnknown
	}
	if r.Lagging.Shape == snapshot.ShapeList {
		d.LaggingPartitions = append(d.LaggingPartitions, r.Lagging.Names...)
	}
	prec := diag.Precision(strings.ToUpper(strings.TrimSpace(r.DelayPrecision)))
	if prec == "" {
		prec = diag.PrecisionUnknown
	}
	d.Delay = diag.Value{Seconds: r.DelaySeconds, Precision: prec, Source: diag.SourceServer}
	if r.DelaySeconds == nil {
		d.Delay.Precision = diag.PrecisionUnknown
	}
	if t := a.tables[tableKey(r.BaseTableDB, r.BaseTableName)]; t != nil {
		d.KeyModel, d.TTLSeconds = t.KeyModel, t.TTLSeconds
	}
	var sr *streams.Stream
	if r.StreamID != nil {
		sr = a.streams.ByID(*r.StreamID)
	}
	if sr == nil && r.StreamName != "" {
		sr = a.streams.ByName(r.DB, r.StreamName)
	}
	if sr != nil {
		a.claimedIVM[sr.ID] = true
		d.stream = sr
		d.StreamState = sr.State
		if !d.Excluded {
			cv, lag, worst, _ := streamDelay(sr)
			d.ClientDelay = &cv
			if len(d.LaggingPartitions) == 0 {
				d.LaggingPartitions = lag
			}
			if d.WorstPartition == "" {
				d.WorstPartition = worst
			}
			if d.HeadroomSeconds == nil {
				d.HeadroomSeconds, d.HeadroomPartition = sr.MinHeadroomSeconds, sr.MinHeadroomPartition
			}
			if d.CanResume == nil {
				d.CanResume = sr.CanResume
			}
			a.rowsMayBeMissed(&d, sr)
		}
	}
	return d
}

// worstPartitions lists the base partitions behind over the trigger
// dependencies, worst first, at most n.
func worstPartitions(deps []Dependency, n int) []WorstPartition {
	var out []WorstPartition
	for i := range deps {
		d := &deps[i]
		if d.Excluded || d.stream == nil {
			continue
		}
		for j := range d.stream.Partitions {
			p := &d.stream.Partitions[j]
			behind := (p.CaughtUp != nil && !*p.CaughtUp) || p.PendingAge.Get(0) > 0 || (p.CanResume != nil && !*p.CanResume)
			if !behind {
				continue
			}
			out = append(out, WorstPartition{BaseTable: d.BaseTableDB + "." + d.BaseTableName, Stream: d.stream.Name, StreamID: d.stream.ID,
				Unit: p.Unit, OffsetState: p.OffsetState, PendingAge: p.PendingAge, HeadroomSeconds: p.HeadroomSeconds, CanResume: p.CanResume, NextRead: p.NextRead})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := out[i].PendingAge.Get(-1), out[j].PendingAge.Get(-1); a != b {
			return a > b
		}
		if a, b := streams.HeadroomKey(out[i].HeadroomSeconds), streams.HeadroomKey(out[j].HeadroomSeconds); a != b {
			return a < b
		}
		if out[i].BaseTable != out[j].BaseTable {
			return out[i].BaseTable < out[j].BaseTable
		}
		return out[i].Unit < out[j].Unit
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// worstTrigger is the trigger dependency with the largest delay.
func (r *MV) worstTrigger() *Dependency {
	var w *Dependency
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded {
			continue
		}
		if w == nil || d.Delay.Get(-1) > w.Delay.Get(-1) {
			w = d
		}
	}
	return w
}

// expiredTrigger is a trigger dependency whose internal stream cannot resume.
func (r *MV) expiredTrigger() *Dependency {
	d := r.lowestHeadroomTrigger()
	if d != nil && ((d.CanResume != nil && !*d.CanResume) || d.DependencyState == DepCannotResume) {
		return d
	}
	return nil
}

func (r *MV) lowestHeadroomTrigger() *Dependency {
	var w *Dependency
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded || d.HeadroomSeconds == nil {
			continue
		}
		if w == nil || *d.HeadroomSeconds < *w.HeadroomSeconds {
			w = d
		}
	}
	return w
}

// worstOffsetState is the offset state of the dependency's worst partition.
func (d *Dependency) worstOffsetState() streams.OffsetState {
	if d.stream == nil {
		return ""
	}
	for i := range d.stream.Partitions {
		if d.stream.Partitions[i].Unit == d.WorstPartition {
			return d.stream.Partitions[i].OffsetState
		}
	}
	return ""
}
