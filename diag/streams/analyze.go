package streams

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/changepoints"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Analyze diagnoses every stream of the last snapshot of series (the
// "now"); the earlier snapshots, oldest first, narrow the pending ages with
// the seed's change-point rule and give the rates. An empty series gives an
// empty result.
func Analyze(series []*snapshot.Snapshot, opt Options) *Result {
	opt = opt.WithDefaults()
	res := &Result{Streams: make([]Stream, 0, streamCount(series, opt)), Findings: []diag.Finding{}, TTLEnforcement: snapshot.TTLEnforcement{Verdict: snapshot.TTLUnknown}, MinHeadroomS: opt.MinHeadroom.Seconds(), MaxPendingS: opt.MaxPending.Seconds(), TTLOverride: opt.TTLOverride}
	var clean []*snapshot.Snapshot
	for _, s := range series {
		if s != nil {
			clean = append(clean, s)
		}
	}
	if len(clean) == 0 {
		return res
	}
	last := clean[len(clean)-1]
	a := newStreamAnalyzer(clean, opt)
	res.TTLEnforcement = a.ttl
	res.Now = a.now
	res.CurrentTSO = last.Cluster.CurrentTSO
	res.EvaluatedAt = a.evalTime
	res.WhatIf = opt.At != nil || opt.TTLOverride != nil
	res.Snapshots = len(clean)

	var in diag.Interner
	var mon monitorTally
	consByStream := make(map[int64][]int, min(len(last.Streams), len(last.Consumption))) // no more streams than rows
	for i := range last.Consumption {
		c := &last.Consumption[i]
		consByStream[c.StreamID] = append(consByStream[c.StreamID], i)
	}
	for i := range last.Streams {
		if n := len(last.Streams); i == n/8 && i >= 1024 {
			// Reserve what the findings will likely take, extrapolated from
			// the first eighth with an eighth more: growing the array as it
			// fills holds the old and the new one at once, late, when they are
			// largest (docs/performance.md "Bounded snapshots").
			res.Findings = slices.Grow(res.Findings, len(res.Findings)*(n-i)/i*9/8)
		}
		st := &last.Streams[i]
		var rows []*snapshot.Consumption
		for _, j := range consByStream[st.ID] {
			rows = append(rows, &last.Consumption[j])
		}
		sr, fs := a.analyzeStream(st, rows)
		mon.add(&sr)
		if opt.Keep == nil || opt.Keep(&sr) {
			res.Streams = append(res.Streams, sr)
		}
		for j := range fs {
			in.Finding(&fs[j]) // one copy of the texts many streams share
		}
		res.Findings = append(res.Findings, fs...)
	}
	res.Findings = append(res.Findings, a.clusterFindings(mon)...)
	known := make(map[int64]bool, len(last.Streams))
	for i := range last.Streams {
		known[last.Streams[i].ID] = true
	}
	// table_streams unreadable: the streams other sources name are listed,
	// UNKNOWN, with the reason (partial.go); nothing is silently dropped.
	if why := sources.Unreadable(last, snapshot.SourceTableStreams); why != "" {
		for id, k := range streamsNamedElsewhere(last) {
			if known[id] {
				continue
			}
			known[id] = true
			sr, f := a.unknownStream(id, k, why)
			if opt.Keep == nil || opt.Keep(&sr) {
				res.Streams = append(res.Streams, sr)
			}
			res.Findings = append(res.Findings, f)
		}
	}
	// Consumption rows of streams table_streams did not list: counted, not dropped.
	orphans := map[int64]string{}
	for i := range last.Consumption {
		c := &last.Consumption[i]
		if !known[c.StreamID] {
			orphans[c.StreamID] = c.DB + "." + c.StreamName
		}
	}
	for id, name := range orphans {
		db, n, _ := strings.Cut(name, ".")
		res.Findings = append(res.Findings, diag.Finding{
			Code: CodeStateUnknown, Severity: CodeStateUnknown.Severity(),
			Object:   diag.Object{Kind: "stream", DB: db, Name: n, ID: i64(id)},
			Summary:  "table_stream_consumption has rows for a stream that table_streams does not list",
			Detail:   "The stream may have been created or dropped between the two reads, or table_streams is filtered by privileges; its partitions were not diagnosed.",
			Evidence: map[string]string{"stream_id": strconv.FormatInt(id, 10)},
			Next:     doris.SuggestStreamRow(id),
		})
	}
	Sort(res.Streams)
	diag.SortFindings(res.Findings)
	return res
}

// Sort orders streams worst first: finding severity, then state
// (cannot_resume, stale, unknown, lagging, initializing, disabled,
// caught_up), then smallest headroom, largest pending age, then name.
func Sort(ss []Stream) {
	// Sort indices, then move each (large) struct once: swapping the structs
	// themselves dominated the 7,000-stream benchmark.
	diag.SortInPlace(ss, func(i, j int) bool { return Less(&ss[i], &ss[j]) })
}

// Less is Sort's order: a comes before b.
func Less(a, b *Stream) bool {
	if a.severity != b.severity {
		return a.severity > b.severity
	}
	if ra, rb := stateRank(a.State), stateRank(b.State); ra != rb {
		return ra < rb
	}
	ah, bh := HeadroomKey(a.MinHeadroomSeconds), HeadroomKey(b.MinHeadroomSeconds)
	if ah != bh {
		return ah < bh
	}
	ap, bp := a.MaxPendingAge.Get(-1), b.MaxPendingAge.Get(-1)
	if ap != bp {
		return ap > bp
	}
	if a.DB != b.DB {
		return a.DB < b.DB
	}
	return a.Name < b.Name
}

// stateRank is Sort's order of states.
func stateRank(s State) int {
	switch s {
	case StateStale:
		return 1
	case StateUnknown:
		return 2
	case StateLagging:
		return 3
	case StateInitializing:
		return 4
	case StateDisabled:
		return 5
	case StateCaughtUp:
		return 6
	}
	return 0 // cannot_resume
}

func HeadroomKey(h *float64) float64 {
	if h == nil {
		return 1e18
	}
	return *h
}

// sortPartitions orders partitions worst first: severity, cannot resume,
// smallest headroom, largest pending age, then unit.
func sortPartitions(ps []Partition) {
	diag.SortInPlace(ps, func(i, j int) bool {
		a, b := &ps[i], &ps[j]
		if a.severity != b.severity {
			return a.severity > b.severity
		}
		ac, bc := a.CanResume != nil && !*a.CanResume, b.CanResume != nil && !*b.CanResume
		if ac != bc {
			return ac
		}
		ah, bh := HeadroomKey(a.HeadroomSeconds), HeadroomKey(b.HeadroomSeconds)
		if ah != bh {
			return ah < bh
		}
		ap, bp := a.PendingAge.Get(-1), b.PendingAge.Get(-1)
		if ap != bp {
			return ap > bp
		}
		return a.Unit < b.Unit
	})
}

func streamCount(series []*snapshot.Snapshot, opt Options) int {
	if n := len(series); n > 0 && series[n-1] != nil && opt.Keep == nil { // Keep keeps few
		return len(series[n-1].Streams)
	}
	return 0
}

// streamAnalyzer holds what every stream of one analysis shares: the clock,
// the TTLs and partitions by name, the series.
type streamAnalyzer struct {
	series []*snapshot.Snapshot
	last   *snapshot.Snapshot
	opt    Options

	now      time.Time
	nowMs    int64 // physical(current TSO)
	evalTime time.Time
	evalMs   int64   // nowMs, or --at
	ref      tso.TSO // the reference TSO of the retention: current TSO, or the TSO of --at

	tables map[string]*snapshot.Table     // db\x00name
	parts  map[string]*snapshot.Partition // db\x00table\x00name

	index   *changepoints.Series // the series indexed, built once
	mvNames map[int64]string     // MV id → name, built on first need
	slab    slabs

	// ttl is whether the build enforces the TTL (snapshot.TTL): every
	// expiry conclusion follows it (diag/ttl).
	ttl snapshot.TTLEnforcement

	consumptionUnreadable string // why table_stream_consumption could not be read
	streamMonitorColumns  bool   // table_streams has the seed T2 columns
}

func newStreamAnalyzer(series []*snapshot.Snapshot, opt Options) *streamAnalyzer {
	last := series[len(series)-1]
	a := &streamAnalyzer{series: series, last: last, opt: opt,
		tables: make(map[string]*snapshot.Table, len(last.Tables)),
		parts:  make(map[string]*snapshot.Partition, len(last.Partitions)),
	}
	a.ttl = last.TTL()
	a.nowMs = last.Cluster.CurrentTSO.Physical()
	a.now = time.UnixMilli(a.nowMs).UTC()
	a.ref = last.Cluster.CurrentTSO
	a.evalMs, a.evalTime = a.nowMs, a.now
	if opt.At != nil {
		a.evalMs = opt.At.UnixMilli()
		a.evalTime = time.UnixMilli(a.evalMs).UTC()
		if t, err := tso.Compose(a.evalMs, 0); err == nil {
			a.ref = t
		}
	}
	for i := range last.Tables {
		t := &last.Tables[i]
		a.tables[t.DB+"\x00"+t.Name] = t
	}
	for i := range last.Partitions {
		p := &last.Partitions[i]
		a.parts[p.DB+"\x00"+p.Table+"\x00"+p.Name] = p
	}
	for _, g := range last.CouldNotRead {
		if strings.Contains(g.Source, "table_stream_consumption") {
			a.consumptionUnreadable = g.Error
		}
	}
	if cap, ok := last.Capabilities.Sources[doris.SourceTableStreams]; ok {
		for _, c := range cap.Columns {
			if strings.EqualFold(c, doris.TableStreams.MonitorSampleTime.Name) || strings.EqualFold(c, doris.TableStreams.MonitorState.Name) {
				a.streamMonitorColumns = true
			}
		}
	}
	for i := range last.Streams {
		if last.Streams[i].MonitorState != nil || last.Streams[i].MonitorSampleTimeMs != nil {
			a.streamMonitorColumns = true
			break
		}
	}
	return a
}

func (a *streamAnalyzer) whatIf() bool { return a.opt.At != nil || a.opt.TTLOverride != nil }

// analyzeStream diagnoses one stream and returns its findings.
func (a *streamAnalyzer) analyzeStream(st *snapshot.Stream, rows []*snapshot.Consumption) (Stream, []diag.Finding) {
	sr := a.streamBase(st)
	sr.Partitions = make([]Partition, 0, len(rows))
	// Client-side INITIAL_SNAPSHOT_PENDING (no server OFFSET_STATE): a stream
	// created with show_initial_rows=true writes no offsets and was never
	// consumed, so every row is N/A and LAST_CONSUMPTION_TIME is -1
	// (doris.md §4). A partition added later is NO_OFFSET instead.
	initial := len(rows) > 0
	for _, c := range rows {
		if c.OffsetState != nil || c.Offset != nil || c.LastConsumptionTimeMs != nil || !isNoOffsetText(c.ConsumptionStatus) {
			initial = false
			break
		}
	}
	for _, c := range rows {
		sr.Partitions = append(sr.Partitions, a.analyzePartition(&sr, c, initial))
	}
	if sr.Kind == KindIVM && sr.MVName == "" && sr.MVID != nil {
		if a.mvNames == nil {
			a.mvNames = make(map[int64]string, len(a.last.MVs))
			for i := range a.last.MVs {
				a.mvNames[a.last.MVs[i].ID] = a.last.MVs[i].Name
			}
		}
		sr.MVName = a.mvNames[*sr.MVID]
	}
	a.narrowSeries(&sr)
	a.aggregate(&sr)
	a.serverStream(&sr, st)
	fs := a.streamFindings(&sr)
	for _, f := range fs {
		if f.Severity > sr.severity {
			sr.severity = f.Severity
		}
	}
	if sr.severity > 0 {
		sr.Severity = sr.severity.String()
	}
	sortPartitions(sr.Partitions)
	if !a.opt.NoVerdict {
		sr.Verdict = a.verdict(&sr)
	}
	return sr, fs
}

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
		if s := State(strings.ToLower(*st.MonitorState)); StateNumber(s) >= 0 && s != StateCannotResume {
			sr.State, sr.StateSource = s, diag.SourceServer
			sr.StateReason = "MONITOR_STATE from the server, which sees the keep-alive TSO of idle IVM partitions that SQL does not show; the client computes cannot_resume from the offset alone"
		}
	}
}

// Slab allocation of the small values every partition points to: 50,000
// partitions × a handful of *float64/*bool made the garbage collector the
// largest cost of the scale benchmark. Appending within capacity never
// moves the slab, so the pointers stay valid.
type slabs struct {
	floats []float64
	bools  []bool
	rets   []tso.Retention
}

const slabSize = 4096

func (a *streamAnalyzer) f64(v float64) *float64 {
	if len(a.slab.floats) == cap(a.slab.floats) {
		a.slab.floats = make([]float64, 0, slabSize)
	}
	a.slab.floats = append(a.slab.floats, v)
	return &a.slab.floats[len(a.slab.floats)-1]
}

func (a *streamAnalyzer) bptr(v bool) *bool {
	if len(a.slab.bools) == cap(a.slab.bools) {
		a.slab.bools = make([]bool, 0, slabSize)
	}
	a.slab.bools = append(a.slab.bools, v)
	return &a.slab.bools[len(a.slab.bools)-1]
}

func (a *streamAnalyzer) retention1(r tso.Retention) *tso.Retention {
	if len(a.slab.rets) == cap(a.slab.rets) {
		a.slab.rets = make([]tso.Retention, 0, slabSize/8)
	}
	a.slab.rets = append(a.slab.rets, r)
	return &a.slab.rets[len(a.slab.rets)-1]
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }
func bptr(v bool) *bool      { return &v }
