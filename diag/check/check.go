package check

import (
	"hash/maphash"
	"slices"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/consumers"
	"github.com/dorisdiag/dorisdiag/diag/doctor"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/diag/space"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Options are the thresholds of a whole-cluster check (issue 7).
type Options struct {
	Streams streams.Options
	MVs     mv.Options
	Metrics metrics.Options
	// Consumers are the thresholds of the external consumers' checks
	// (docs/consumers.md).
	Consumers consumers.Options
	Policy    diag.Policy
	// Lean: the caller reads the Result's findings and overview only (the
	// check command's report): the streams' diagnoses and the areas' own
	// lists of findings are released once the overview and Findings are
	// made, so that a check of many streams does not hold each finding
	// twice (docs/performance.md "Bounded snapshots"). Result.Streams then
	// has no Streams or Findings, and Result.MVs no Findings.
	Lean bool
}

// Result is the whole-cluster health report: an overview, then every
// finding of every area, worst first. Streams and MVs hold the full analyses
// for renderers that drill down (demo); they are not part of check's JSON.
type Result struct {
	Now          time.Time       `json:"now"`
	CurrentTSO   tso.TSO         `json:"current_tso"`
	Source       snapshot.Source `json:"source"`
	DorisVersion string          `json:"doris_version,omitempty"`
	Snapshots    int             `json:"snapshots"`
	Overview     Overview        `json:"overview"`
	Findings     []diag.Finding  `json:"findings"`
	// Suppressed are findings the config file's ignores removed, with why.
	Suppressed []diag.Suppressed `json:"suppressed"`

	Streams *streams.Result `json:"-"`
	MVs     *mv.Result      `json:"-"`
	Metrics *metrics.Result `json:"-"`
	// Consumers is the external consumers' analysis (empty when the
	// snapshot declares none).
	Consumers *consumers.Result `json:"-"`
}

// Overview is the compact summary check prints before the findings.
type Overview struct {
	Streams  StreamsOverview  `json:"streams"`
	MVs      MVsOverview      `json:"mvs"`
	Tasks    TasksOverview    `json:"tasks"`
	Space    space.Overview   `json:"space"`
	Monitor  MonitorOverview  `json:"monitor"`
	Sources  SourcesOverview  `json:"sources"`
	Findings FindingsOverview `json:"findings"`
}

// StreamsOverview counts streams by kind and state (seed's doris_fe_changelog_streams).
type StreamsOverview struct {
	Total  int                              `json:"total"`
	ByKind map[string]map[streams.State]int `json:"by_kind_state"` // kind → state → count; every state present
	// MaxPendingAge is the worst pending age per kind: an upper bound, or a
	// proven lower bound (LowerBound) when the worst stream has no upper bound.
	MaxPendingAge map[string]*ObjectValue `json:"max_pending_age"`
	// MinHeadroom is the smallest known retention headroom per kind; may be negative.
	MinHeadroom map[string]*ObjectValue `json:"min_headroom"`
}

// ObjectValue is a value and the object it belongs to.
type ObjectValue struct {
	Object    string         `json:"object"`
	Partition string         `json:"partition,omitempty"`
	Seconds   float64        `json:"seconds"`
	Precision diag.Precision `json:"precision,omitempty"`
	// LowerBound: Seconds is only a proven lower bound (the value has no
	// upper bound, e.g. a stream partition with data and no offset).
	LowerBound bool `json:"lower_bound,omitempty"`
	// Level is diag's judgment of the value for a reader ("ok", "warning",
	// "critical"; "" when none is made): report maps it to a colour and never
	// decides it. For the smallest headroom it follows --min-headroom.
	Level string `json:"-"`
	// MV is the "db.name" of the MV an IVM internal stream (Object) belongs
	// to, when known: the overview names the stream by it.
	MV string `json:"mv,omitempty"`
}

// MVsOverview counts IVM MVs by freshness state (seed's doris_fe_ivm_mvs).
type MVsOverview struct {
	Total                  int                       `json:"total"`
	ByState                map[mv.FreshnessState]int `json:"by_state"` // every state present
	MaxDelay               *ObjectValue              `json:"max_delay,omitempty"`
	ExcludedOutdated       int                       `json:"excluded_dependency_outdated"`
	MaxConsecutiveFailures int                       `json:"max_consecutive_failures"`
}

// TasksOverview summarises refresh tasks over the window (S2, S3).
type TasksOverview struct {
	WindowSeconds     int64          `json:"window_seconds"`
	FailedInWindow    int            `json:"failed_in_window"`
	FallbacksInWindow int            `json:"fallbacks_in_window"`
	FallbackReasons   map[string]int `json:"fallback_reasons"`
	OldestQueued      *ObjectValue   `json:"oldest_queued,omitempty"`
	LongestRunning    *ObjectValue   `json:"longest_running,omitempty"`
	// TasksBounded: tasks() keeps a bounded history, so counts are lower bounds.
	TasksBounded bool `json:"tasks_bounded"`
}

// MonitorOverview is the health of the FE's own changelog/IVM monitor, when
// the build has it (seed T1).
type MonitorOverview struct {
	// Present: the build has the seed's sampled columns.
	Present bool `json:"present"`
	// SampleAgeSeconds is now − the oldest sample time the server reported.
	SampleAgeSeconds *float64 `json:"sample_age_seconds,omitempty"`
	Stale            bool     `json:"stale"`
}

// SourcesOverview counts what could not be read or interpreted.
type SourcesOverview struct {
	// Unreadable counts the gaps nothing superseded (each is a finding).
	Unreadable int `json:"unreadable"`
	Malformed  int `json:"malformed"`
	// Superseded lists the fallbacks taken: a source that failed and the
	// one that gave the same facts instead. They cost nothing.
	Superseded []SupersededSource `json:"superseded,omitempty"`
}

// SupersededSource is one failed source another one replaced.
type SupersededSource struct {
	Source string `json:"source"`
	By     string `json:"by"`
}

// FindingsOverview counts findings by severity.
type FindingsOverview struct {
	Critical   int `json:"critical"`
	Warning    int `json:"warning"`
	Info       int `json:"info"`
	Suppressed int `json:"suppressed"`
}

// Run runs every diagnosis over a series of snapshots (oldest first; the
// last is "now") and returns the overview and all findings, worst first.
func Run(series []*snapshot.Snapshot, opt Options) *Result {
	last := series[len(series)-1]
	t := newStreamsTally(opt)
	if opt.Lean {
		// Each stream is tallied as it is diagnosed; only those the MVs'
		// analysis reads are kept (streams_tally.go).
		opt.Streams.NoVerdict, opt.Streams.Keep = true, t.keeper(last)
	}
	sa := streams.Analyze(series, opt.Streams)
	if !opt.Lean {
		for i := range sa.Streams {
			t.add(&sa.Streams[i])
		}
	}
	mvs := mv.Analyze(series, sa, opt.MVs)
	mr := metrics.Analyze(last, opt.Metrics)
	cr := consumers.Analyze(last, opt.Consumers)

	ov := overview(last, t, mvs, mr, opt)
	if opt.Lean {
		sa.Streams = nil
	}
	// One array, at its exact size, filtered in place by dedupe and the
	// policy: the findings are the largest part of a check of many streams
	// (docs/performance.md "Bounded snapshots").
	src, dr := sources.Findings(last), doctor.ConfigFindings(last, doctor.Options{})
	n := len(src) + len(sa.Findings) + len(mvs.Findings) + len(mr.Findings) + len(cr.Findings) + len(dr)
	var all []diag.Finding
	if opt.Lean {
		// The streams' findings are given up: their array takes the
		// others (moved in place when it has room), not a second copy.
		all = slices.Insert(slices.Grow(sa.Findings, n-len(sa.Findings)), 0, src...)
	} else {
		all = make([]diag.Finding, 0, n)
		all = append(all, src...)
		all = append(all, sa.Findings...)
	}
	all = append(all, mvs.Findings...)
	all = append(all, mr.Findings...)
	all = append(all, cr.Findings...)
	// The doctor's config rules, when the snapshot carries its readings
	// (dorisdiag doctor --save): cheap, no read of their own.
	all = append(all, dr...)
	if opt.Lean {
		sa.Findings, mvs.Findings = nil, nil
	}
	all = dedupe(all)
	kept, suppressed := opt.Policy.Apply(all)
	diag.SortFindings(kept)
	if kept == nil {
		kept = []diag.Finding{}
	}
	if suppressed == nil {
		suppressed = []diag.Suppressed{}
	}

	r := &Result{
		Now: last.Cluster.Now, CurrentTSO: last.Cluster.CurrentTSO, Source: last.Source,
		DorisVersion: last.Cluster.DorisVersion, Snapshots: len(series),
		Findings: kept, Suppressed: suppressed,
		Streams: sa, MVs: mvs, Metrics: mr, Consumers: cr,
	}
	r.Overview = ov
	for _, f := range kept {
		switch f.Severity {
		case diag.SeverityCritical:
			r.Overview.Findings.Critical++
		case diag.SeverityWarning:
			r.Overview.Findings.Warning++
		case diag.SeverityInfo:
			r.Overview.Findings.Info++
		}
	}
	r.Overview.Findings.Suppressed = len(suppressed)
	return r
}

// dedupe drops exact repeats (same code, object and summary), in place: an
// area may report a shared code (SERVER_CLIENT_MISMATCH) that another also
// reports. It keys a map by a hash of those fields (12 bytes an entry, not
// six strings'), and compares the fields on a hash already seen: a finding
// whose hash collides with a different one's goes to an exact set.
func dedupe(fs []diag.Finding) []diag.Finding {
	type key struct{ code, kind, db, name, part, summary string }
	keyOf := func(f *diag.Finding) key {
		return key{f.Code.String(), f.Object.Kind, f.Object.DB, f.Object.Name, f.Object.Partition, f.Summary}
	}
	seed := maphash.MakeSeed()
	hash := func(f *diag.Finding) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, s := range [...]string{f.Code.String(), f.Object.Kind, f.Object.DB, f.Object.Name, f.Object.Partition, f.Summary} {
			h.WriteString(s)
			h.WriteByte(0)
		}
		return h.Sum64()
	}
	seen := make(map[uint64]int32, len(fs))
	var collided map[key]struct{}
	out := fs[:0]
	for i := range fs {
		f := &fs[i]
		h := hash(f)
		if j, ok := seen[h]; ok {
			if keyOf(&out[j]) == keyOf(f) {
				continue
			}
			if collided == nil {
				collided = map[key]struct{}{}
			}
			k := keyOf(f)
			if _, dup := collided[k]; dup {
				continue
			}
			collided[k] = struct{}{}
		} else {
			seen[h] = int32(len(out))
		}
		out = append(out, *f)
	}
	return out
}

func overview(last *snapshot.Snapshot, t *streamsTally, mvs *mv.Result, mr *metrics.Result, opt Options) Overview {
	var o Overview
	now := last.Cluster.Now

	o.Streams = t.o

	o.MVs.ByState = map[mv.FreshnessState]int{}
	for _, st := range mv.FreshnessStates {
		o.MVs.ByState[st] = 0
	}
	window := opt.MVs.WithDefaults().FallbackWindow
	o.Tasks.WindowSeconds = int64(window / time.Second)
	o.Tasks.FallbackReasons = map[string]int{}
	o.Tasks.TasksBounded = true
	for i := range mvs.MVs {
		m := &mvs.MVs[i]
		name := m.DB + "." + m.Name
		o.MVs.Total++
		o.MVs.ByState[m.FreshnessState]++
		if v := m.DataDelay; v.Known() || v.Lower != nil {
			sec, lb := v.Get(0), !v.Known()
			if lb {
				sec = *v.Lower
			}
			if o.MVs.MaxDelay == nil || sec > o.MVs.MaxDelay.Seconds {
				o.MVs.MaxDelay = &ObjectValue{Object: name, Seconds: sec, Precision: v.Precision, LowerBound: lb}
			}
		}
		if m.HasExcludedOutdated() {
			o.MVs.ExcludedOutdated++
		}
		h := &m.History
		// The server's persisted summary when present: the bounded task
		// history does not limit it (seed "ivm_mv_status"), as the findings.
		cf := h.ConsecutiveFailures
		if m.Server != nil && m.Server.ConsecutiveFailures != nil {
			cf = int(*m.Server.ConsecutiveFailures)
		}
		if cf > o.MVs.MaxConsecutiveFailures {
			o.MVs.MaxConsecutiveFailures = cf
		}
		o.Tasks.FallbacksInWindow += h.FallbacksInWindow
		for reason, n := range h.FallbackReasons {
			o.Tasks.FallbackReasons[reason] += n
		}
		// Over every task seen, not only the HistoryLimit newest kept in
		// h.Tasks for display.
		o.Tasks.FailedInWindow += h.FailedInWindowAll
		if t := h.OldestPending; t != nil && t.AgeSeconds != nil {
			if o.Tasks.OldestQueued == nil || *t.AgeSeconds > o.Tasks.OldestQueued.Seconds {
				o.Tasks.OldestQueued = &ObjectValue{Object: name, Seconds: *t.AgeSeconds}
			}
		}
		if t := h.Running; t != nil && t.AgeSeconds != nil {
			if o.Tasks.LongestRunning == nil || *t.AgeSeconds > o.Tasks.LongestRunning.Seconds {
				o.Tasks.LongestRunning = &ObjectValue{Object: name, Seconds: *t.AgeSeconds}
			}
		}
	}

	o.Space = space.Summarize(last, mr)

	// Monitor health: the oldest sample time any sampled row reports.
	var oldest *int64
	consider := func(ms *int64) {
		if ms != nil && (oldest == nil || *ms < *oldest) {
			v := *ms
			oldest = &v
		}
	}
	// A NULL MONITOR_SAMPLE_TIME while the columns exist is stale too (seed:
	// "NULL before the first one"), as MONITOR_STALE judges it.
	cols := sources.HasColumn(last, doris.TableStreams.Rel(), doris.TableStreams.MonitorSampleTime) || sources.HasColumn(last, doris.TableStreams.Rel(), doris.TableStreams.MonitorState)
	nullSample := false
	for _, s := range last.Streams {
		if s.MonitorState != nil || s.MonitorSampleTimeMs != nil {
			cols = true
		}
	}
	for _, s := range last.Streams {
		if cols && s.MonitorSampleTimeMs == nil {
			nullSample = true
		}
		consider(s.MonitorSampleTimeMs)
	}
	o.Monitor.Present = cols
	for _, m := range last.MVStatus {
		o.Monitor.Present = true
		consider(m.SampleTimeMs)
	}
	if oldest != nil {
		age := now.Sub(time.UnixMilli(*oldest)).Seconds()
		o.Monitor.SampleAgeSeconds = &age
		o.Monitor.Stale = age > 2*streams.MonitorInterval.Seconds()
	}
	if nullSample {
		o.Monitor.Stale = true
	}

	for _, g := range last.CouldNotRead {
		if by := sources.SupersededBy(last, g); by != "" {
			o.Sources.Superseded = append(o.Sources.Superseded, SupersededSource{Source: g.Source, By: by})
			continue
		}
		o.Sources.Unreadable++
	}
	o.Sources.Malformed = len(last.Malformed)
	return o
}

// headroomLevel judges a retention headroom against --min-headroom: below
// zero the offset has left the retention (critical), below the threshold it
// is about to (warning), else ok — the same line STREAM_HEADROOM_LOW draws.
func headroomLevel(seconds float64, min time.Duration) string {
	switch {
	case seconds < 0:
		return "critical"
	case seconds < min.Seconds():
		return "warning"
	}
	return "ok"
}
