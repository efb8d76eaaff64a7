package metrics

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// Conformance to the monitoring design (apache/doris#69907: the "Reference"
// metrics tables, "A bounded number of series" and "Unknown values"), in
// promlint's shape: a problem is small data (an exposition.Problem with its
// rule, severity and place), a rule is a plain function over one picture of
// the payload, the rules are the explicit list conformanceChecks, and the
// output is sorted. Conform works on what Lint kept with LintOptions (family
// stats and the changelog/IVM samples); it never reads the clock — Now is
// passed in.

// Conformance rule names.
const (
	RuleDesignUnknownFamily     = "design-unknown-family"
	RuleDesignWrongType         = "design-wrong-type"
	RuleDesignLabelSet          = "design-label-set"
	RuleDesignUnknownLabelValue = "design-unknown-label-value"
	RuleDesignMissingCluster    = "design-missing-cluster-series"
	RuleDesignPerObjectOver     = "design-per-object-over-limit"
	RuleDesignNotExported       = "design-not-exported-mismatch"
	RuleDesignNegative          = "design-negative-not-allowed"
	RuleDesignNaN               = "design-nan"
	RuleDesignStateValue        = "design-state-value"
	RuleDesignBuckets           = "design-buckets-not-cumulative"
	RuleDesignUnknownNotCounted = "design-unknown-delay-not-counted"
	RuleDesignStateOnFollower   = "design-state-series-on-follower"
	RuleDesignMonitorStale      = "design-monitor-stale"
	RuleDesignSeriesBudget      = "design-series-budget"
	RuleDesignNotChecked        = "design-samples-not-checked"
	RuleTTLCleanupFailed        = "design-ttl-cleanup-failed"
	RuleTTLCleanupStale         = "design-ttl-cleanup-stale"
)

// ConformanceRules document the conformance rules: name, severity and what
// each means (docs/metrics.md "Design conformance rules").
var ConformanceRules = []exposition.Rule{
	{Name: RuleDesignUnknownFamily, Severity: exposition.SeverityInfo, Doc: `a doris_fe_changelog_*, doris_fe_ivm_* or doris_be_changelog_* family that is not in the reference tables of apache/doris#69907`},
	{Name: RuleDesignWrongType, Severity: exposition.SeverityWarning, Doc: `a designed family with another TYPE than the reference table's`},
	{Name: RuleDesignLabelSet, Severity: exposition.SeverityWarning, Doc: `a designed series whose label names differ from the reference table's (a ` + "`cluster`" + ` label on top is allowed: the exporter's ` + "`--cluster`" + `)`},
	{Name: RuleDesignUnknownLabelValue, Severity: exposition.SeverityWarning, Doc: `a label value outside the designed set (kind user|ivm, the 7 stream states, the 5 MV states, le 60|300|900|3600|+Inf, ...); reasons must be lower case`},
	{Name: RuleDesignMissingCluster, Severity: exposition.SeverityWarning, Doc: `per-object series without the cluster-level series that cover every object, or a cluster-level family missing some of its designed series`},
	{Name: RuleDesignPerObjectOver, Severity: exposition.SeverityWarning, Doc: `more objects with per-object series than prom_output_ivm_mv_metrics_limit / prom_output_table_stream_metrics_limit`},
	{Name: RuleDesignNotExported, Severity: exposition.SeverityWarning, Doc: `objects_not_exported{type} disagrees with the objects counted at cluster level minus those exported`},
	{Name: RuleDesignNegative, Severity: exposition.SeverityWarning, Doc: `a negative value where the design allows none (-1 only for an unknown delay or pending age; only headrooms may be negative)`},
	{Name: RuleDesignNaN, Severity: exposition.SeverityWarning, Doc: `NaN in a designed series ("No NaN", apache/doris#69907 "Unknown values")`},
	{Name: RuleDesignStateValue, Severity: exposition.SeverityWarning, Doc: `a per-object state gauge that is not one of the state numbers (streams 0-6, MVs 0-4)`},
	{Name: RuleDesignBuckets, Severity: exposition.SeverityWarning, Doc: `doris_fe_ivm_mvs_by_data_delay is not cumulative, or its le="+Inf" is not the number of MVs with a known delay (doris_fe_ivm_mvs fresh + lagging + rebuild_required)`},
	{Name: RuleDesignUnknownNotCounted, Severity: exposition.SeverityWarning, Doc: `more MVs export doris_fe_ivm_mv_data_delay_seconds -1 (unknown) than doris_fe_ivm_mvs counts as unknown + initializing: an MV without a known delay must count in one of them (apache/doris#69907 "Unknown values")`},
	{Name: RuleDesignStateOnFollower, Severity: exposition.SeverityWarning, Doc: `state series from an FE that is not the Master (no node_info{type="is_master"} 1), or from more than one FE; a dorisdiag exporter payload (its dorisdiag_exporter_design_series) stands in for the Master`},
	{Name: RuleDesignMonitorStale, Severity: exposition.SeverityWarning, Doc: `now - doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds exceeds 2 x the monitor interval, or the Master exports state series without it`},
	{Name: RuleDesignSeriesBudget, Severity: exposition.SeverityWarning, Doc: `more changelog/IVM series than the design's budget (about 9,100 with the default quotas)`},
	{Name: RuleDesignNotChecked, Severity: exposition.SeverityInfo, Doc: `more changelog/IVM samples than the linter keeps (exposition.Options.MaxSamples); the rest were counted, not checked`},
	{Name: RuleTTLCleanupFailed, Severity: exposition.SeverityWarning, Doc: `doris_be_changelog_ttl_cleanup_total{result="failed"} > 0`},
	{Name: RuleTTLCleanupStale, Severity: exposition.SeverityWarning, Doc: `the BE's last successful TTL cleanup is older than ConformOptions.TTLCleanupMaxAge`},
}

var ruleSeverity = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(ConformanceRules))
	for _, r := range ConformanceRules {
		m[r.Name] = r.Severity
	}
	return m
})

// conformanceChecks is every conformance rule, in the order of the
// reference: families, then samples, then what the samples add up to, then
// the monitor's and the BE cleanup's health.
var conformanceChecks = []func(*view){
	checkUnknownFamily,
	checkWrongType,
	checkMissingCombinations,
	checkNotChecked,
	checkStateOnFollower,
	checkSeriesBudget,
	checkLabelSet,
	checkLabelValues,
	checkNaN,
	checkNegative,
	checkStateValue,
	checkClusterForObjects,
	checkPerObjectOver,
	checkNotExported,
	checkBucketsCumulative,
	checkBucketsKnownDelays,
	checkUnknownNotCounted,
	checkMonitorStale,
	checkTTLCleanupStale,
	checkTTLCleanupFailed,
}

// ConformOptions tune Conform.
type ConformOptions struct {
	// Now is the instant to judge staleness against (required for the
	// monitor and TTL cleanup ages; zero skips those checks).
	Now time.Time
	// MonitorInterval is changelog_ivm_monitor_interval_seconds (default 15s).
	MonitorInterval time.Duration
	// MVLimit and StreamLimit are prom_output_ivm_mv_metrics_limit and
	// prom_output_table_stream_metrics_limit (default 1000; negative: 0).
	MVLimit, StreamLimit int
	// SeriesBudget is the design's series budget (default 9100).
	SeriesBudget int
	// TTLCleanupMaxAge: a last successful cleanup older than this is
	// reported (default 1h).
	TTLCleanupMaxAge time.Duration
}

func (o ConformOptions) withDefaults() ConformOptions {
	if o.MonitorInterval <= 0 {
		o.MonitorInterval = 15 * time.Second
	}
	o.MVLimit = quota(o.MVLimit)
	o.StreamLimit = quota(o.StreamLimit)
	if o.SeriesBudget <= 0 {
		o.SeriesBudget = 9100
	}
	if o.TTLCleanupMaxAge <= 0 {
		o.TTLCleanupMaxAge = time.Hour
	}
	return o
}

// quota: 0 is the default 1000, a negative quota is 0.
func quota(n int) int {
	switch {
	case n == 0:
		return 1000
	case n < 0:
		return 0
	}
	return n
}

// limitFor is the per-object quota of kind ("mv" or "stream").
func (o ConformOptions) limitFor(kind string) int {
	if kind == "mv" {
		return o.MVLimit
	}
	return o.StreamLimit
}

// Conform checks the changelog/IVM series of one payload, linted with
// LintOptions, against the design: every rule of conformanceChecks, the
// problems sorted (nil when there are none).
func Conform(res *exposition.Result, opts ConformOptions) []exposition.Problem {
	v := newView(res, opts.withDefaults())
	for _, check := range conformanceChecks {
		check(v)
	}
	exposition.SortProblems(v.out)
	return v.out
}

// view is one payload as the rules read it: the lint result, the options,
// and what one pass over the kept samples adds up (tally).
type view struct {
	res          *exposition.Result
	o            ConformOptions
	fams         map[string]exposition.FamilyStat
	designSeries int // series of the design's families, node_info aside
	master       bool
	state        int // Master-only series

	objects     map[string]map[string]bool // "mv", "stream" → ids with per-object series
	objFamilies map[string]string          // "mv", "stream" → the last per-object family seen
	// sums are the cluster-level totals: "mv" and "stream" (user streams)
	// counted, "mv_known_delay" and "mv_no_delay" by state. A key is
	// present only when a sample added to it.
	sums                            map[string]float64
	notExported                     map[string]float64 // objects_not_exported by type
	notExportedLine                 int
	buckets                         map[string]float64 // doris_fe_ivm_mvs_by_data_delay by le
	bucketLine                      int
	undesignedMVState               bool // a doris_fe_ivm_mvs state outside the design
	unknownDelays, unknownDelayLine int  // per-object delays of -1
	lastSample                      *exposition.Sample

	out []exposition.Problem
}

func newView(res *exposition.Result, o ConformOptions) *view {
	v := &view{res: res, o: o, fams: map[string]exposition.FamilyStat{},
		objects: map[string]map[string]bool{"mv": {}, "stream": {}}, objFamilies: map[string]string{},
		sums: map[string]float64{}, notExported: map[string]float64{}, buckets: map[string]float64{}}
	for _, f := range res.Families {
		v.fams[f.Name] = f
		if f.Series > 0 && isDesignFamily(f.Name) && f.Name != nodeInfoFamily {
			v.designSeries += f.Series
		}
	}
	// A dorisdiag exporter stands in for the Master's monitor: its state
	// series are the Master's (docs/exporter.md), not a follower's.
	v.master, v.state = IsMaster(res) || IsDorisdiagExporter(res), StateSeries(res)
	v.samples(v.tally)
	return v
}

// add records a problem of rule, at column 1 of line.
func (v *view) add(rule string, line int, family, label, value, msg, fix string) {
	p := exposition.Problem{Rule: rule, Severity: ruleSeverity()[rule], Line: line, Col: 1,
		Family: family, Label: label, Message: msg, Fix: fix}
	p.SetValue([]byte(value)) // the payload's text, cut as the linter's
	v.out = append(v.out, p)
}

// families calls f for each design family with series, node_info aside.
func (v *view) families(f func(exposition.FamilyStat)) {
	for _, fam := range v.res.Families {
		if fam.Series > 0 && isDesignFamily(fam.Name) && fam.Name != nodeInfoFamily {
			f(fam)
		}
	}
}

// samples calls f for each kept sample of a family in the reference tables.
func (v *view) samples(f func(s *exposition.Sample, spec famSpec)) {
	for i := range v.res.Samples {
		s := &v.res.Samples[i]
		if s.Name == nodeInfoFamily {
			continue
		}
		// the designed families have no _sum/_count/_bucket forms: a
		// sample's name is its family's
		if spec, ok := designFamilies()[s.Name]; ok {
			f(s, spec)
		}
	}
}

// tally adds one sample to the view's totals. A NaN sample counts as an
// object with series but adds to no total (design-nan reports it).
func (v *view) tally(s *exposition.Sample, spec famSpec) {
	if spec.object != "" {
		v.objects[spec.object][s.Labels[spec.object+"_id"]] = true
		v.objFamilies[spec.object] = s.Name
	}
	val := s.Value
	if math.IsNaN(val) {
		return
	}
	switch s.Name {
	case lastSampleFamily:
		v.lastSample = s
	case mvCountFamily:
		v.sums["mv"] += val
		switch s.Labels["state"] {
		case "fresh", "lagging", "rebuild_required":
			// the states that have a delay: initializing has none, and an
			// MV whose delay is unknown counts in unknown ("Unknown values")
			v.sums["mv_known_delay"] += val
		case "initializing", "unknown":
			v.sums["mv_no_delay"] += val
		default:
			v.undesignedMVState = true // reported by checkLabelValues; no second guess
		}
	case streamCountFamily:
		if s.Labels["kind"] == "user" {
			v.sums["stream"] += val
		}
	case notExportedFamily:
		v.notExported[s.Labels["type"]] = val
		v.notExportedLine = s.Line
	case bucketsFamily:
		v.buckets[s.Labels["le"]] = val
		v.bucketLine = s.Line
	case mvDelayFamily:
		if val == -1 {
			v.unknownDelays++
			if v.unknownDelayLine == 0 {
				v.unknownDelayLine = s.Line
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func ftoa(f float64) string { return exposition.FormatValue(f) }
