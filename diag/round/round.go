package round

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/changepoints"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The per-round computation of `dorisdiag exporter` (docs/exporter.md): the
// values of the design's series (apache/doris#69907 §2 "Reference",
// "Metrics"), computed from one snapshot with the same analyses as `check`,
// the change points of the earlier rounds, and the counters kept since the
// exporter's start. Pure: the time is the snapshot's cluster time. The
// exporter package renders the result; nothing here knows Prometheus.

// Default quotas of the design's prom_output_ivm_mv_metrics_limit and
// prom_output_table_stream_metrics_limit.
const DefaultObjectQuota = 1000

// DelayBuckets are the le bounds of doris_fe_ivm_mvs_by_data_delay (seconds;
// the last bucket, +Inf, counts every known delay).
var DelayBuckets = []float64{60, 300, 900, 3600}

// Options configure the per-round computation.
type Options struct {
	Check check.Options
	// MVQuota and StreamQuota: objects with per-object series, lowest IDs
	// first; 0 = DefaultObjectQuota, negative = none.
	MVQuota, StreamQuota int
	// Change-point caps; 0 = the design's defaults.
	MaxPointsPerPartition, MaxPoints int
	// KeepCheck keeps the round's full analysis in Result.Check
	// (tests, debugging). Off, a published result holds only the values it
	// serves, so the analysis of a 50,000-partition round is garbage as soon
	// as the round ends.
	KeepCheck bool
}

// State is what the exporter keeps between rounds: the change
// points, the finished tasks already counted, and the counters since start.
// One round at a time.
type State struct {
	opt    Options
	points *changepoints.Tracker
	rounds int

	counted   map[int64]bool // finished task IDs counted (or baselined), of the current tasks() window
	counters  Counters
	mvFalls   map[int64]float64 // per-MV fallbacks counted since start
	gapEvents map[int64]float64 // per-stream inferred gap events since start
	prevParts map[partKey]prevPartition
	spare     map[partKey]prevPartition // the map before, cleared and refilled next round
}

// partKey names one partition of one stream.
type partKey struct {
	stream int64
	unit   string
}

type prevPartition struct {
	offset    tso.TSO
	hasOffset bool
	clipped   bool // the next read would be clipped (an expired offset, DETAIL / APPEND_ONLY)
}

// TaskKey is one series of doris_fe_ivm_refresh_tasks_total.
type TaskKey struct {
	Result refresh.RefreshResult
	Method refresh.RefreshMethod
}

// Counters are the design's event counters, counted since the
// exporter's start (each finished task once, by task ID).
type Counters struct {
	RefreshTasks    map[TaskKey]float64
	DurationSeconds map[refresh.RefreshMethod]float64
	Fallbacks       map[string]float64 // reason (lower case)
	Failures        map[string]float64 // reason (lower case)
	GapCommits      float64
}

func (c Counters) clone() Counters {
	out := Counters{RefreshTasks: make(map[TaskKey]float64, len(c.RefreshTasks)),
		DurationSeconds: make(map[refresh.RefreshMethod]float64, len(c.DurationSeconds)),
		Fallbacks:       make(map[string]float64, len(c.Fallbacks)), Failures: make(map[string]float64, len(c.Failures)),
		GapCommits: c.GapCommits}
	for k, v := range c.RefreshTasks {
		out.RefreshTasks[k] = v
	}
	for k, v := range c.DurationSeconds {
		out.DurationSeconds[k] = v
	}
	for k, v := range c.Fallbacks {
		out.Fallbacks[k] = v
	}
	for k, v := range c.Failures {
		out.Failures[k] = v
	}
	return out
}

// NewState starts the memory of a long-running exporter; every
// counter series exists from 0.
func NewState(opt Options) *State {
	if opt.MVQuota == 0 {
		opt.MVQuota = DefaultObjectQuota
	}
	if opt.StreamQuota == 0 {
		opt.StreamQuota = DefaultObjectQuota
	}
	// Every task the bounded window holds: counting by task ID needs them all.
	opt.Check.MVs.HistoryLimit = math.MaxInt32
	st := &State{opt: opt, points: changepoints.New(opt.MaxPointsPerPartition, opt.MaxPoints),
		counted: map[int64]bool{}, mvFalls: map[int64]float64{}, gapEvents: map[int64]float64{},
		prevParts: map[partKey]prevPartition{}}
	c := Counters{RefreshTasks: map[TaskKey]float64{}, DurationSeconds: map[refresh.RefreshMethod]float64{},
		Fallbacks: map[string]float64{}, Failures: map[string]float64{}}
	for _, r := range refresh.RefreshResults {
		for _, m := range refresh.RefreshMethods {
			c.RefreshTasks[TaskKey{r, m}] = 0
		}
	}
	for _, m := range refresh.RefreshMethods {
		c.DurationSeconds[m] = 0
	}
	for _, r := range refresh.FallbackReasons() {
		c.Fallbacks[r] = 0
	}
	for _, r := range refresh.FailureReasons() {
		c.Failures[r] = 0
	}
	st.counters = c
	return st
}

// Points is the change-point memory (for the self-series and tests).
func (st *State) Points() *changepoints.Tracker { return st.points }

// Result is one round's values, immutable once returned.
type Result struct {
	ClusterTime time.Time
	Round       int
	// ServerMonitor: the build has the design's sampled columns (the probe
	// found them): the FE exports the design's series itself.
	ServerMonitor bool

	StreamsByKindState map[string]map[streams.State]int // kind → state → count, every state
	MaxPendingAge      map[string]float64               // kind → the largest pending age (absent: none known)
	// MaxPendingLowerBound: kinds whose MaxPendingAge is only a proven lower
	// bound (the worst stream has no upper bound).
	MaxPendingLowerBound map[string]bool
	MinHeadroom          map[string]float64 // kind → the smallest known headroom
	MVsByState           map[mv.FreshnessState]int
	MaxDataDelay         *float64
	// MaxDataDelayLowerBound: MaxDataDelay is only a proven lower bound.
	MaxDataDelayLowerBound bool
	DelayBucketCounts      []int // per DelayBuckets, then +Inf (every known delay)
	ExcludedOutdated       int
	// RetainedBytes is SHOW DATA's BinlogSize summed over the changelog
	// tables; nil when no table reports it.
	RetainedBytes        *float64
	OldestPendingSeconds float64 // 0 if none
	OldestRunningSeconds float64 // 0 if none

	Counters Counters

	MVs     []ExportedMV     // under the quota, lowest IDs first
	Streams []ExportedStream // user streams under the quota, lowest IDs first
	// Consumers are the external consumers' series (docs/consumers.md),
	// by name; a value nil when unknown (its series absent).
	Consumers []ExportedConsumer
	// NotExported: objects beyond the quota, by type (mv, stream).
	NotExported map[string]int

	// Disagreements counts the server-vs-client cross-check findings
	// (SERVER_CLIENT_MISMATCH) by object kind and field.
	Disagreements map[[2]string]int

	ChangePoints          int
	ChangePointPartitions int
	ChangePointMerges     int64
	ChangePointsDropped   int64
	Findings              int
	SourcesUnreadable     int
	// Unreadable lists the sources not read (SOURCE_UNREACHABLE, with the
	// severity check gives them); Withheld the areas of series a critical
	// one leaves out (blind.go).
	Unreadable []Unreadable
	Withheld   []Withheld
	// Alerting is check's findings at warning or above, one per code and
	// object (the dorisdiag_finding series the generated rules fire on).
	Alerting               []check.Alerting
	TasksCountedThisRound  int
	GapCommitsInferredNow  int
	Check                  *check.Result `json:"-"` // only with ExporterOptions.KeepCheck
	StreamsPendingPrecise  int           // user+ivm partitions whose pending age the change points made PRECISE
	StreamsPendingUpperBnd int
	// TTLEnforced is whether the build enforces the changelog TTL (yes, no
	// or unknown), as check judged it (streams.Result.TTLEnforcement): the
	// expiry findings and the cannot_resume state follow it, and so must the
	// design's rules over the state counts (dorisdiag_ttl_enforcement).
	TTLEnforced string
}

// ExportedMV is one MV's per-object series.
type ExportedMV struct {
	DBID, DB, Name string
	ID             int64
	DataDelay      float64 // -1 when unknown; the proven lower bound when LowerBound
	Precision      diag.Precision
	// LowerBound: DataDelay is only a proven lower bound (no upper bound).
	LowerBound  bool
	State       mv.FreshnessState
	StateNumber float64
	// ConsecutiveFailures from the server's persisted summary when present,
	// else the bounded task history (a lower bound).
	ConsecutiveFailures float64
	// Fallbacks: the server's persisted FALLBACK_COUNT (exact) when present,
	// else the fallbacks counted by task ID since the exporter's start.
	Fallbacks float64
	// LastRefreshDuration: of the latest task that succeeded or failed; nil
	// when none is known (not exported).
	LastRefreshDuration *float64
}

// ExportedConsumer is one external consumer's series: the retention
// headroom of its published offset, the offset's age and the age of its
// newest publication (seconds; nil when unknown: the series is absent, as
// a stream's unknown headroom is).
type ExportedConsumer struct {
	Name       string
	Headroom   *float64
	OffsetAge  *float64
	PublishAge *float64
}

// ExportedStream is one user stream's per-object series.
type ExportedStream struct {
	DBID, DB, Name string
	ID             int64
	State          streams.State
	StateNumber    float64
	PendingAge     float64 // -1 when unknown; the proven lower bound when LowerBound
	Precision      diag.Precision
	// LowerBound: PendingAge is only a proven lower bound (a partition
	// with no upper bound), as `streams show` proves it.
	LowerBound bool
	Headroom   *float64 // nil: not exported (no partition with a TTL, or unknown)
	GapEvents  float64
}

// Round computes one round from a fresh snapshot. A round that could not
// collect is not passed here: the previous result stays published.
func (st *State) Round(s *snapshot.Snapshot) *Result {
	st.rounds++
	opt := st.opt.Check
	opt.Streams.Points = st.points
	st.points.Begin(s.Cluster.CurrentTSO.Physical())
	res := check.Run([]*snapshot.Snapshot{s}, opt)
	st.points.End()

	o := res.Overview
	r := &Result{ClusterTime: res.Now, Round: st.rounds, ServerMonitor: o.Monitor.Present,
		StreamsByKindState: o.Streams.ByKind, MaxPendingAge: map[string]float64{}, MinHeadroom: map[string]float64{},
		MVsByState: o.MVs.ByState, ExcludedOutdated: o.MVs.ExcludedOutdated, NotExported: map[string]int{},
		Disagreements: map[[2]string]int{}, Findings: len(res.Findings), SourcesUnreadable: o.Sources.Unreadable, Check: res}
	if res.Consumers != nil {
		for _, c := range res.Consumers.Consumers {
			r.Consumers = append(r.Consumers, ExportedConsumer{Name: c.Name, Headroom: c.HeadroomSeconds, OffsetAge: c.OffsetAgeSeconds, PublishAge: c.PublishAgeSeconds})
		}
		sort.Slice(r.Consumers, func(i, j int) bool { return r.Consumers[i].Name < r.Consumers[j].Name })
	}
	r.MaxPendingLowerBound = map[string]bool{}
	for kind, v := range o.Streams.MaxPendingAge {
		if v != nil {
			r.MaxPendingAge[kind] = v.Seconds
			if v.LowerBound {
				r.MaxPendingLowerBound[kind] = true
			}
		}
	}
	for kind, v := range o.Streams.MinHeadroom {
		if v != nil {
			r.MinHeadroom[kind] = v.Seconds
		}
	}
	if o.MVs.MaxDelay != nil {
		r.MaxDataDelay = new(o.MVs.MaxDelay.Seconds)
		r.MaxDataDelayLowerBound = o.MVs.MaxDelay.LowerBound
	}
	if o.Space.ChangelogBytes != nil {
		r.RetainedBytes = new(float64(*o.Space.ChangelogBytes))
	}
	if o.Tasks.OldestQueued != nil {
		r.OldestPendingSeconds = math.Max(0, o.Tasks.OldestQueued.Seconds)
	}
	if o.Tasks.LongestRunning != nil {
		r.OldestRunningSeconds = math.Max(0, o.Tasks.LongestRunning.Seconds)
	}
	r.DelayBucketCounts = make([]int, len(DelayBuckets)+1)
	for i := range res.MVs.MVs {
		m := &res.MVs.MVs[i]
		if !m.DataDelay.Known() {
			// Known values only (the design's buckets; an MV whose delay is
			// only "at least L" is state unknown, and MV_DELAY_HIGH's rule
			// alerts on it).
			continue
		}
		d := *m.DataDelay.Seconds
		for j, le := range DelayBuckets {
			if d <= le {
				r.DelayBucketCounts[j]++
			}
		}
		r.DelayBucketCounts[len(DelayBuckets)]++
	}

	r.TTLEnforced = res.Streams.TTLEnforcement.Verdict
	r.Unreadable, r.Withheld = blindness(res)
	r.Alerting = check.Alertings(res.Findings)
	dbIDs := databaseIDs(s)
	st.countTasks(s, res.MVs, r)
	st.inferGaps(res.Streams, r)
	r.Counters = st.counters.clone()
	st.perObject(res, dbIDs, r)

	for _, f := range res.Findings {
		if f.Code != streams.CodeServerClientMismatch {
			continue
		}
		kind := f.Object.Kind
		if f.Object.Partition != "" {
			kind = "partition"
		}
		for k := range f.Evidence {
			if field, ok := strings.CutSuffix(k, "_server"); ok {
				r.Disagreements[[2]string{kind, field}]++
			} else if field, ok := strings.CutPrefix(k, "server_"); ok {
				r.Disagreements[[2]string{kind, field}]++
			}
		}
	}
	for i := range res.Streams.Streams {
		for j := range res.Streams.Streams[i].Partitions {
			p := &res.Streams.Streams[i].Partitions[j]
			if p.CaughtUp != nil && !*p.CaughtUp {
				switch p.PendingAge.Precision {
				case diag.PrecisionPrecise:
					r.StreamsPendingPrecise++
				case diag.PrecisionUpperBound:
					r.StreamsPendingUpperBnd++
				}
			}
		}
	}
	if !st.opt.KeepCheck {
		r.Check = nil
	}
	r.ChangePoints, r.ChangePointPartitions = st.points.Total(), st.points.Partitions()
	r.ChangePointMerges, r.ChangePointsDropped = st.points.Merges(), st.points.Dropped()
	return r
}

// databaseIDs maps database names to IDs where jobs() or tasks() name them
// (MvDatabaseId): the snapshot has no other source of database IDs.
func databaseIDs(s *snapshot.Snapshot) map[string]int64 {
	out := map[string]int64{}
	for _, j := range s.Jobs {
		if j.MVDatabaseID != nil && j.MVDatabaseName != "" {
			out[strings.ToLower(j.MVDatabaseName)] = *j.MVDatabaseID
		}
	}
	for _, t := range s.Tasks {
		if t.MVDatabaseID != nil && t.MVDatabaseName != "" {
			out[strings.ToLower(t.MVDatabaseName)] = *t.MVDatabaseID
		}
	}
	return out
}

func dbIDText(ids map[string]int64, db string) string {
	if id, ok := ids[strings.ToLower(db)]; ok {
		return formatInt(id)
	}
	return ""
}

func formatInt(v int64) string {
	const digits = "0123456789"
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = digits[v%10]
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// countTasks counts every finished task once, by task ID. The first round
// is the baseline: the tasks already finished when the exporter started are
// remembered, not counted (the counters count from the start). Task IDs
// that left the bounded tasks() window are forgotten: they cannot come back.
// When tasks() could not be read, nothing is counted or forgotten.
func (st *State) countTasks(s *snapshot.Snapshot, mvs *mv.Result, r *Result) {
	for _, g := range s.CouldNotRead {
		if g.Source == snapshot.SourceTasks && sources.SupersededBy(s, g) == "" {
			return
		}
	}
	baseline := st.rounds == 1
	present := make(map[int64]bool, len(s.Tasks))
	for i := range mvs.MVs {
		m := &mvs.MVs[i]
		for j := range m.History.Tasks {
			t := &m.History.Tasks[j]
			if !t.Finished {
				continue
			}
			present[t.TaskID] = true
			if st.counted[t.TaskID] {
				continue
			}
			st.counted[t.TaskID] = true
			if baseline {
				continue
			}
			r.TasksCountedThisRound++
			method := t.Method
			if method == "" {
				method = refresh.MethodNone
			}
			result := t.Result
			st.counters.RefreshTasks[TaskKey{result, method}]++
			if (result == refresh.ResultSuccess || result == refresh.ResultNoChange || result == refresh.ResultFailed) && t.DurationMs != nil && *t.DurationMs >= 0 {
				st.counters.DurationSeconds[method] += float64(*t.DurationMs) / 1000
			}
			if t.Fallback && t.FallbackReason != "" {
				st.counters.Fallbacks[strings.ToLower(t.FallbackReason)]++
				st.mvFalls[m.ID]++
			}
			if result == refresh.ResultFailed {
				reason := t.FailureReason
				if reason == "" {
					reason = refresh.FailureOther
				}
				st.counters.Failures[strings.ToLower(string(reason))]++
			}
		}
	}
	for id := range st.counted {
		if !present[id] {
			delete(st.counted, id)
		}
	}
}

// inferGaps infers gap commits client-side (docs/exporter.md): a partition
// whose next read would be clipped in the previous round (an expired offset
// read as DETAIL or APPEND_ONLY) and whose offset moved since committed a
// consumption that skipped expired changes. One event per stream per round.
func (st *State) inferGaps(sa *streams.Result, r *Result) {
	// Two maps swapped each round and cleared (clear keeps the buckets), so
	// a steady round allocates nothing here.
	next := st.spare
	if next == nil {
		next = map[partKey]prevPartition{}
	}
	clear(next)
	for i := range sa.Streams {
		sr := &sa.Streams[i]
		gap := false
		for j := range sr.Partitions {
			p := &sr.Partitions[j]
			key := partKey{sr.ID, p.Unit}
			if prev, ok := st.prevParts[key]; ok && prev.clipped && prev.hasOffset && p.ConsumedTSO != nil && *p.ConsumedTSO > prev.offset {
				gap = true
			}
			// Only a clipped partition with an offset can infer a gap next
			// round: the others are not kept (at scale most partitions are
			// neither, and hashing 50,000 keys a round cost ~35 ms).
			if p.NextRead == streams.NextReadClipped && p.ConsumedTSO != nil {
				next[key] = prevPartition{offset: *p.ConsumedTSO, hasOffset: true, clipped: true}
			}
		}
		if gap {
			st.gapEvents[sr.ID]++
			st.counters.GapCommits++
			r.GapCommitsInferredNow++
		}
	}
	st.prevParts, st.spare = next, st.prevParts
}

// perObject picks the objects under the quota (lowest IDs) and their values.
func (st *State) perObject(res *check.Result, dbIDs map[string]int64, r *Result) {
	mvs := make([]*mv.MV, 0, len(res.MVs.MVs))
	for i := range res.MVs.MVs {
		mvs = append(mvs, &res.MVs.MVs[i])
	}
	sort.Slice(mvs, func(i, j int) bool { return mvs[i].ID < mvs[j].ID })
	quota := max(st.opt.MVQuota, 0)
	if len(mvs) > quota {
		r.NotExported["mv"] = len(mvs) - quota
		mvs = mvs[:quota]
	} else {
		r.NotExported["mv"] = 0
	}
	r.MVs = make([]ExportedMV, 0, len(mvs))
	live := make(map[int64]bool, len(res.MVs.MVs))
	for i := range res.MVs.MVs {
		live[res.MVs.MVs[i].ID] = true
	}
	for id := range st.mvFalls {
		if !live[id] {
			delete(st.mvFalls, id)
		}
	}
	for _, m := range mvs {
		delay, dlb := boundOr(m.DataDelay)
		e := ExportedMV{DBID: dbIDText(dbIDs, m.DB), DB: m.DB, Name: m.Name, ID: m.ID, DataDelay: delay, LowerBound: dlb,
			Precision: m.DataDelay.Precision, State: m.FreshnessState, StateNumber: stateNumber(mv.StateNumbers, m.FreshnessState, mv.FreshUnknown),
			ConsecutiveFailures: float64(m.History.ConsecutiveFailures), Fallbacks: st.mvFalls[m.ID]}
		if m.Server != nil && m.Server.ConsecutiveFailures != nil {
			e.ConsecutiveFailures = float64(*m.Server.ConsecutiveFailures)
		}
		if m.Server != nil && m.Server.FallbackCount != nil {
			e.Fallbacks = float64(*m.Server.FallbackCount)
		}
		if m.Server != nil && m.Server.LastRefreshDurationMs != nil && *m.Server.LastRefreshDurationMs >= 0 {
			e.LastRefreshDuration = new(float64(*m.Server.LastRefreshDurationMs) / 1000)
		} else {
			for j := range m.History.Tasks { // newest first
				t := &m.History.Tasks[j]
				if (t.Result == refresh.ResultSuccess || t.Result == refresh.ResultNoChange || t.Result == refresh.ResultFailed) && t.DurationMs != nil && *t.DurationMs >= 0 {
					e.LastRefreshDuration = new(float64(*t.DurationMs) / 1000)
					break
				}
			}
		}
		r.MVs = append(r.MVs, e)
	}

	users := make([]*streams.Stream, 0, len(res.Streams.Streams))
	liveS := map[int64]bool{}
	for i := range res.Streams.Streams {
		s := &res.Streams.Streams[i]
		liveS[s.ID] = true
		if s.Kind == streams.KindUser {
			users = append(users, s)
		}
	}
	for id := range st.gapEvents {
		if !liveS[id] {
			delete(st.gapEvents, id)
		}
	}
	sort.Slice(users, func(i, j int) bool { return users[i].ID < users[j].ID })
	squota := max(st.opt.StreamQuota, 0)
	if len(users) > squota {
		r.NotExported["stream"] = len(users) - squota
		users = users[:squota]
	} else {
		r.NotExported["stream"] = 0
	}
	r.Streams = make([]ExportedStream, 0, len(users))
	for _, s := range users {
		pend, plb := boundOr(s.MaxPendingAge)
		e := ExportedStream{DBID: dbIDText(dbIDs, s.DB), DB: s.DB, Name: s.Name, ID: s.ID, State: s.State,
			StateNumber: streamStateNumber(s.State), PendingAge: pend, LowerBound: plb,
			Precision: s.MaxPendingAge.Precision, GapEvents: st.gapEvents[s.ID]}
		if s.MinHeadroomSeconds != nil {
			e.Headroom = new(*s.MinHeadroomSeconds)
		}
		if s.Server != nil && s.Server.GapEvents != nil {
			e.GapEvents = float64(*s.Server.GapEvents)
		}
		r.Streams = append(r.Streams, e)
	}
}

func stateNumber(m map[mv.FreshnessState]float64, state, unknown mv.FreshnessState) float64 {
	if v, ok := m[state]; ok {
		return v
	}
	return m[unknown]
}

func streamStateNumber(state streams.State) float64 {
	if n := streams.StateNumber(state); n >= 0 {
		return float64(n)
	}
	return float64(streams.StateNumber(streams.StateUnknown))
}

// boundOr is the value exported for a duration: its upper bound (or exact
// value) when known, else its proven lower bound (lower true), else -1.
func boundOr(v diag.Value) (sec float64, lower bool) {
	switch {
	case v.Seconds != nil:
		return *v.Seconds, false
	case v.Lower != nil:
		return *v.Lower, true
	}
	return -1, false
}
