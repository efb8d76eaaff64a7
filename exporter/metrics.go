package exporter

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/diag/streams"
)

// The series, under the names and labels of apache/doris#69907 §2
// "Reference" → "Metrics" (docs/exporter.md lists each as exact, inferred or
// not available), and the exporter's own series under dorisdiag_exporter_*.
// Values come from diag.ExporterResult; this file only renders them.

var (
	mvLabels     = []string{"db_id", "db_name", "mv_id", "mv_name"}
	streamLabels = []string{"db_id", "db_name", "stream_id", "stream_name"}
)

type descs struct {
	streams, maxPending, minHeadroom, gapCommits, retained                   *prometheus.Desc
	mvs, maxDelay, byDelay, excludedOutdated                                 *prometheus.Desc
	refreshTasks, refreshDuration, fallbacks, failures                       *prometheus.Desc
	oldestPending, oldestRunning                                             *prometheus.Desc
	lastSample, sampleDuration, sampleFailures, notExported                  *prometheus.Desc
	mvDelay, mvState, mvFailures, mvFallbacks, mvLastDuration                *prometheus.Desc
	streamState, streamPending, streamHeadroom, streamGaps                   *prometheus.Desc
	selfRounds, selfFailures, selfSkipped, selfDuration, selfStatements      *prometheus.Desc
	selfLastSuccess, selfDesign, selfPoints, selfPointPartitions, selfMerges *prometheus.Desc
	selfDisagree, selfUnreadable, selfInterval, selfPrecise                  *prometheus.Desc
	lbMaxPending, lbMaxDelay, lbStreamPending, lbMVDelay                     *prometheus.Desc
	selfSourceUnreadable, selfWithheld, finding, ttlEnforcement              *prometheus.Desc
	consumerHeadroom, consumerOffsetAge, consumerPublishAge                  *prometheus.Desc
	names                                                                    []string
}

func newDescs() *descs {
	var names []string
	d := func(name, help string, labels ...string) *prometheus.Desc {
		names = append(names, name)
		return prometheus.NewDesc(name, help, labels, nil)
	}
	out := &descs{
		streams:          d("doris_fe_changelog_streams", "Table streams in each state (computed by dorisdiag exporter).", "kind", "state"),
		maxPending:       d("doris_fe_changelog_stream_max_pending_age_seconds", "The largest known pending age, by stream kind.", "kind"),
		minHeadroom:      d("doris_fe_changelog_stream_min_retention_headroom_seconds", "The smallest known retention headroom, by stream kind; may be negative.", "kind"),
		gapCommits:       d("doris_fe_changelog_stream_gap_commits_total", "Consuming transactions committed after a clipped read, inferred by dorisdiag exporter since its start (an offset that could not resume without a clip moved)."),
		retained:         d("doris_fe_changelog_retained_bytes", "The changelog the tables keep (SHOW DATA BinlogSize summed over the changelog tables).", "scope"),
		mvs:              d("doris_fe_ivm_mvs", "IVM MVs in each freshness state.", "state"),
		maxDelay:         d("doris_fe_ivm_mv_max_data_delay_seconds", "The largest known IVM MV data delay."),
		byDelay:          d("doris_fe_ivm_mvs_by_data_delay", "IVM MVs whose data delay is at most le seconds, cumulative, known values only.", "le"),
		excludedOutdated: d("doris_fe_ivm_mvs_excluded_dependency_outdated", "IVM MVs with an excluded dependency changed and not covered."),
		refreshTasks:     d("doris_fe_ivm_refresh_tasks_total", "Finished IVM refresh tasks, each counted once by task ID since the exporter's start.", "result", "method"),
		refreshDuration:  d("doris_fe_ivm_refresh_duration_seconds_total", "Run time of the refresh tasks that succeeded or failed, since the exporter's start.", "method"),
		fallbacks:        d("doris_fe_ivm_fallbacks_total", "IVM refresh tasks that fell back, since the exporter's start.", "reason"),
		failures:         d("doris_fe_ivm_refresh_failures_total", "IVM refresh tasks that failed, since the exporter's start.", "reason"),
		oldestPending:    d("doris_fe_ivm_task_oldest_pending_age_seconds", "How long the oldest queued refresh task has waited, 0 if none."),
		oldestRunning:    d("doris_fe_ivm_task_oldest_running_age_seconds", "How long the longest running refresh task has run, 0 if none."),
		lastSample:       d("doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds", "Cluster time (physical part of the current TSO) of the latest round that completed."),
		sampleDuration:   d("doris_fe_changelog_ivm_monitor_sample_duration_seconds", "How long the latest completed round took."),
		sampleFailures:   d("doris_fe_changelog_ivm_monitor_sample_failures_total", "Rounds that failed since the exporter's start."),
		notExported:      d("doris_fe_changelog_ivm_monitor_objects_not_exported", "Objects beyond the quota, which have no per-object series.", "type"),
		mvDelay:          d("doris_fe_ivm_mv_data_delay_seconds", "Data delay of an IVM MV, -1 when unknown.", mvLabels...),
		mvState:          d("doris_fe_ivm_mv_freshness_state", "Freshness state of an IVM MV as a number (0 fresh, 1 lagging, 2 rebuild_required, 3 initializing, 4 unknown).", mvLabels...),
		mvFailures:       d("doris_fe_ivm_mv_consecutive_failures", "Consecutive refresh failures of an IVM MV.", mvLabels...),
		mvFallbacks:      d("doris_fe_ivm_mv_fallbacks_total", "Fallbacks of an IVM MV: the server's persisted FALLBACK_COUNT when the build has it, else counted by task ID since the exporter's start.", mvLabels...),
		mvLastDuration:   d("doris_fe_ivm_mv_last_refresh_duration_seconds", "Run time of the latest refresh task of an IVM MV that succeeded or failed.", mvLabels...),
		streamState:      d("doris_fe_changelog_stream_state", "State of a user stream as a number (0 caught_up, 1 lagging, 2 initializing, 3 cannot_resume, 4 unknown, 5 stale, 6 disabled).", streamLabels...),
		streamPending:    d("doris_fe_changelog_stream_pending_age_seconds", "The largest pending age over the partitions of a user stream, -1 when unknown.", streamLabels...),
		streamHeadroom:   d("doris_fe_changelog_stream_retention_headroom_seconds", "The smallest retention headroom over the partitions of a user stream with a TTL.", streamLabels...),
		streamGaps:       d("doris_fe_changelog_stream_gap_events_total", "Committed consumptions of a user stream that skipped expired changes: the server's GAP_EVENTS when the build has it, else inferred since the exporter's start.", streamLabels...),

		selfRounds:          d("dorisdiag_exporter_rounds_total", "Rounds that completed since the exporter's start."),
		selfFailures:        d("dorisdiag_exporter_round_failures_total", "Rounds that failed (collection error or timeout) since the exporter's start; the last result stays served."),
		selfSkipped:         d("dorisdiag_exporter_rounds_skipped_total", "Rounds skipped because the previous one overran the interval (rounds never overlap)."),
		selfDuration:        d("dorisdiag_exporter_round_duration_seconds", "Wall-clock duration of the latest round, completed or failed."),
		selfStatements:      d("dorisdiag_exporter_statements", "Statements the latest completed round sent to the FE (0 for a demo)."),
		selfLastSuccess:     d("dorisdiag_exporter_last_success_timestamp_seconds", "Wall-clock time of the latest completed round."),
		selfDesign:          d("dorisdiag_exporter_design_series", "1 when this exporter serves the design's doris_fe_* series, 0 when the build's own monitor serves them (cross-check only)."),
		selfPoints:          d("dorisdiag_exporter_change_points", "Change points kept in memory."),
		selfPointPartitions: d("dorisdiag_exporter_change_point_partitions", "Consumer partitions tracked for change points."),
		selfMerges:          d("dorisdiag_exporter_change_point_merges_total", "Change points merged because a cap was reached (the bound only widens)."),
		selfDisagree:        d("dorisdiag_exporter_server_client_disagreements", "Server-vs-client cross-check: values on which the build's monitor and dorisdiag disagree, by object kind and field.", "kind", "field"),
		selfUnreadable:      d("dorisdiag_exporter_sources_unreadable", "Sources the latest completed round could not read (its view is partial when > 0)."),
		selfInterval:        d("dorisdiag_exporter_interval_seconds", "The round interval (--interval)."),
		selfPrecise:         d("dorisdiag_exporter_pending_partitions", "Partitions behind, by the precision of their pending age (PRECISE once a change point bounds it).", "precision"),

		finding:              d("dorisdiag_finding", "1 for each finding of check at warning or above in the latest round, by code, severity and object (the series the generated alert rules fire on).", check.AlertingLabels...),
		selfSourceUnreadable: d("dorisdiag_exporter_source_unreadable", "1 for each source the latest round could not read, with the severity check gives it (critical: the round failed).", "source", "severity"),
		ttlEnforcement:       d("dorisdiag_ttl_enforcement", "1, with the verdict of the latest round on whether the build enforces the changelog TTL (yes, no, unknown): check's expiry findings and the cannot_resume state follow it, and design-alerts.yml qualifies DorisStreamCannotResume by it.", "verdict"),
		selfWithheld:         d("dorisdiag_exporter_series_withheld", "1 for each area of series (streams, mvs) absent from the latest round because a critical source it depends on could not be read.", "area", "source"),

		consumerHeadroom:   d("dorisdiag_consumer_retention_headroom_seconds", "Retention headroom of an external consumer's published offset: offset − (now − ttl) of its source table; negative once expired; absent when unknown (docs/consumers.md).", "consumer"),
		consumerOffsetAge:  d("dorisdiag_consumer_offset_age_seconds", "Age of an external consumer's newest published offset (now − offset_timestamp, in the zone it was written in); absent when unknown.", "consumer"),
		consumerPublishAge: d("dorisdiag_consumer_publish_age_seconds", "Age of an external consumer's newest publication (now − MAX(update_time)); absent when unknown.", "consumer"),

		lbMaxPending:    d("dorisdiag_exporter_max_pending_age_lower_bound", "1 when doris_fe_changelog_stream_max_pending_age_seconds of the kind is only a proven lower bound (the worst stream has no upper bound); absent otherwise.", "kind"),
		lbMaxDelay:      d("dorisdiag_exporter_max_data_delay_lower_bound", "1 when doris_fe_ivm_mv_max_data_delay_seconds is only a proven lower bound (the worst MV's delay has no upper bound); absent otherwise."),
		lbStreamPending: d("dorisdiag_exporter_stream_pending_age_lower_bound", "1 when the stream's doris_fe_changelog_stream_pending_age_seconds is only a proven lower bound (a partition with no upper bound, as streams show proves it); absent otherwise.", streamLabels...),
		lbMVDelay:       d("dorisdiag_exporter_mv_data_delay_lower_bound", "1 when the MV's doris_fe_ivm_mv_data_delay_seconds is only a proven lower bound (no upper bound); absent otherwise.", mvLabels...),
	}
	out.names = names
	return out
}

func (d *descs) all() []*prometheus.Desc {
	return []*prometheus.Desc{d.streams, d.maxPending, d.minHeadroom, d.gapCommits, d.retained, d.mvs, d.maxDelay, d.byDelay,
		d.excludedOutdated, d.refreshTasks, d.refreshDuration, d.fallbacks, d.failures, d.oldestPending, d.oldestRunning,
		d.lastSample, d.sampleDuration, d.sampleFailures, d.notExported, d.mvDelay, d.mvState, d.mvFailures, d.mvFallbacks,
		d.mvLastDuration, d.streamState, d.streamPending, d.streamHeadroom, d.streamGaps, d.consumerHeadroom, d.consumerOffsetAge, d.consumerPublishAge, d.selfRounds, d.selfFailures,
		d.selfSkipped, d.selfDuration, d.selfStatements, d.selfLastSuccess, d.selfDesign, d.selfPoints, d.selfPointPartitions,
		d.selfMerges, d.selfDisagree, d.selfUnreadable, d.selfInterval, d.selfPrecise,
		d.lbMaxPending, d.lbMaxDelay, d.lbStreamPending, d.lbMVDelay, d.selfSourceUnreadable, d.selfWithheld, d.finding, d.ttlEnforcement}
}

// collector renders the last published state; it never blocks on a round.
type collector struct {
	e *Exporter
	d *descs
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.d.all() {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	p := c.e.cur.Load()
	d := c.d
	g := func(desc *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, lv...)
	}
	cnt := func(desc *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v, lv...)
	}
	cnt(d.selfRounds, p.rounds)
	cnt(d.selfFailures, p.failures)
	cnt(d.selfSkipped, p.skipped)
	g(d.selfInterval, c.e.opt.Interval.Seconds())
	if p.haveDuration {
		g(d.selfDuration, p.lastDuration)
	}
	r := p.res
	if r == nil {
		return // nothing before the first completed round (the design's absent() alert)
	}
	g(d.selfStatements, p.statements)
	if !p.lastSuccess.IsZero() {
		g(d.selfLastSuccess, float64(p.lastSuccess.UnixMilli())/1000)
	}
	g(d.selfPoints, float64(r.ChangePoints))
	g(d.selfPointPartitions, float64(r.ChangePointPartitions))
	cnt(d.selfMerges, float64(r.ChangePointMerges))
	g(d.selfUnreadable, float64(r.SourcesUnreadable))
	for _, u := range r.Unreadable {
		g(d.selfSourceUnreadable, 1, u.Source, u.Severity.String())
	}
	for _, w := range r.Withheld {
		g(d.selfWithheld, 1, w.Area, w.Source)
	}
	blindStreams, blindMVs := r.Blind(round.AreaStreams), r.Blind(round.AreaMVs)
	for _, a := range r.Alerting {
		g(d.finding, 1, a.Values()...)
	}
	if r.TTLEnforced != "" {
		g(d.ttlEnforcement, 1, r.TTLEnforced)
	}
	g(d.selfPrecise, float64(r.StreamsPendingPrecise), "PRECISE")
	g(d.selfPrecise, float64(r.StreamsPendingUpperBnd), "UPPER_BOUND")
	for _, k := range sortedPairs(r.Disagreements) {
		g(d.selfDisagree, float64(r.Disagreements[k]), k[0], k[1])
	}
	if !p.design {
		g(d.selfDesign, 0)
		return
	}
	g(d.selfDesign, 1)

	if !blindStreams {
		for _, k := range streams.Kinds {
			kind := string(k)
			for _, st := range streams.States {
				g(d.streams, float64(r.StreamsByKindState[kind][st]), kind, string(st))
			}
			if v, ok := r.MaxPendingAge[kind]; ok {
				g(d.maxPending, v, kind)
				if r.MaxPendingLowerBound[kind] {
					g(d.lbMaxPending, 1, kind)
				}
			}
			if v, ok := r.MinHeadroom[kind]; ok {
				g(d.minHeadroom, v, kind)
			}
		}
		cnt(d.gapCommits, r.Counters.GapCommits)
	}
	if r.RetainedBytes != nil {
		g(d.retained, *r.RetainedBytes, "single_replica")
	}
	if !blindMVs {
		for _, st := range mv.StatesByNumber {
			g(d.mvs, float64(r.MVsByState[st]), string(st))
		}
		if r.MaxDataDelay != nil {
			g(d.maxDelay, *r.MaxDataDelay)
			if r.MaxDataDelayLowerBound {
				g(d.lbMaxDelay, 1)
			}
		}
		for i, le := range round.DelayBuckets {
			g(d.byDelay, float64(r.DelayBucketCounts[i]), strconv.FormatFloat(le, 'f', -1, 64))
		}
		g(d.byDelay, float64(r.DelayBucketCounts[len(round.DelayBuckets)]), "+Inf")
		g(d.excludedOutdated, float64(r.ExcludedOutdated))
		g(d.oldestPending, r.OldestPendingSeconds)
		g(d.oldestRunning, r.OldestRunningSeconds)
	}
	// The counters count what finished while the exporter ran; a round that
	// could not read tasks() counts nothing, so they stay true when blind.
	for _, k := range sortedTaskKeys(r.Counters.RefreshTasks) {
		cnt(d.refreshTasks, r.Counters.RefreshTasks[k], string(k.Result), string(k.Method))
	}
	for _, k := range sortedKeys(r.Counters.DurationSeconds) {
		cnt(d.refreshDuration, r.Counters.DurationSeconds[k], string(k))
	}
	for _, k := range sortedKeys(r.Counters.Fallbacks) {
		cnt(d.fallbacks, r.Counters.Fallbacks[k], k)
	}
	for _, k := range sortedKeys(r.Counters.Failures) {
		cnt(d.failures, r.Counters.Failures[k], k)
	}
	// The sample time is the latest completed round's: a failed round is no
	// sample, so the monitor-stale alert sees it age.
	if !p.lastSample.IsZero() {
		g(d.lastSample, float64(p.lastSample.UnixMilli())/1000)
		g(d.sampleDuration, p.lastSuccessDuration)
	}
	cnt(d.sampleFailures, p.failures)
	g(d.notExported, float64(r.NotExported["mv"]), "mv")
	g(d.notExported, float64(r.NotExported["stream"]), "stream")
	if !blindMVs {
		for i := range r.MVs {
			m := &r.MVs[i]
			o := newObjectSeries(ch, mvLabels, m.DBID, m.DB, strconv.FormatInt(m.ID, 10), m.Name)
			o.gauge(d.mvDelay, m.DataDelay)
			if m.LowerBound {
				o.gauge(d.lbMVDelay, 1)
			}
			o.gauge(d.mvState, m.StateNumber)
			o.gauge(d.mvFailures, m.ConsecutiveFailures)
			o.counter(d.mvFallbacks, m.Fallbacks)
			if m.LastRefreshDuration != nil {
				o.gauge(d.mvLastDuration, *m.LastRefreshDuration)
			}
		}
	}
	if !blindStreams {
		for i := range r.Streams {
			s := &r.Streams[i]
			o := newObjectSeries(ch, streamLabels, s.DBID, s.DB, strconv.FormatInt(s.ID, 10), s.Name)
			o.gauge(d.streamState, s.StateNumber)
			o.gauge(d.streamPending, s.PendingAge)
			if s.LowerBound {
				o.gauge(d.lbStreamPending, 1)
			}
			if s.Headroom != nil {
				o.gauge(d.streamHeadroom, *s.Headroom)
			}
			o.counter(d.streamGaps, s.GapEvents)
		}
	}
	for _, c := range r.Consumers {
		for _, x := range []struct {
			d *prometheus.Desc
			v *float64
		}{{d.consumerHeadroom, c.Headroom}, {d.consumerOffsetAge, c.OffsetAge}, {d.consumerPublishAge, c.PublishAge}} {
			if x.v != nil {
				g(x.d, *x.v, c.Name)
			}
		}
	}
}

// objectSeries sends the series of one object (an MV or a stream: up to
// six series with the same four labels). MustNewConstMetric builds and
// validates the label pairs anew for each series — three allocations a
// label, most of a gather's work at the design's scale (docs/performance.md
// "Serving /metrics"); here they are built once per object, and each series
// gets its own slice of the shared pairs (the serving path's label cap
// replaces a pair, never changes one). Values that are not valid UTF-8 go
// through MustNewConstMetric as before.
type objectSeries struct {
	ch     chan<- prometheus.Metric
	lv     []string
	labels []*dto.LabelPair // sorted by name (mvLabels and streamLabels are)
}

func newObjectSeries(ch chan<- prometheus.Metric, names []string, lv ...string) objectSeries {
	o := objectSeries{ch: ch, lv: lv}
	for _, v := range lv {
		if !utf8.ValidString(v) {
			return o
		}
	}
	o.labels = make([]*dto.LabelPair, len(names))
	for i := range names {
		o.labels[i] = &dto.LabelPair{Name: &names[i], Value: &lv[i]}
	}
	return o
}

func (o objectSeries) gauge(d *prometheus.Desc, v float64) {
	if o.labels == nil {
		o.ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, o.lv...)
		return
	}
	o.ch <- &objectMetric{desc: d, v: v, labels: o.labels}
}

func (o objectSeries) counter(d *prometheus.Desc, v float64) {
	if o.labels == nil {
		o.ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, o.lv...)
		return
	}
	o.ch <- &objectMetric{desc: d, v: v, labels: o.labels, counter: true}
}

// objectMetric is one series of an objectSeries.
type objectMetric struct {
	desc    *prometheus.Desc
	v       float64
	counter bool
	labels  []*dto.LabelPair
}

func (m *objectMetric) Desc() *prometheus.Desc { return m.desc }

func (m *objectMetric) Write(out *dto.Metric) error {
	out.Label = append(make([]*dto.LabelPair, 0, len(m.labels)), m.labels...)
	if m.counter {
		out.Counter = &dto.Counter{Value: &m.v}
	} else {
		out.Gauge = &dto.Gauge{Value: &m.v}
	}
	return nil
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func sortedPairs[V any](m map[[2]string]V) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

func sortedTaskKeys[V any](m map[round.TaskKey]V) []round.TaskKey {
	out := make([]round.TaskKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Result != out[j].Result {
			return out[i].Result < out[j].Result
		}
		return out[i].Method < out[j].Method
	})
	return out
}
