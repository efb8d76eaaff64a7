package exposition

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Conformance to the monitoring design: the seed's section 2 "Reference"
// metrics tables and section 3 "A bounded number of series" and "Unknown
// values". Conform works on what Lint collected (family stats and the
// changelog/IVM samples); it never reads the clock — Now is passed in.

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

// ConformanceRules are the design conformance checks of Conform.
var ConformanceRules = []Rule{
	{RuleDesignUnknownFamily, SeverityInfo, `a doris_fe_changelog_*, doris_fe_ivm_* or doris_be_changelog_* family that is not in the reference tables of apache/doris#69907`},
	{RuleDesignWrongType, SeverityWarning, `a designed family with another TYPE than the reference table's`},
	{RuleDesignLabelSet, SeverityWarning, `a designed series whose label names differ from the reference table's`},
	{RuleDesignUnknownLabelValue, SeverityWarning, `a label value outside the designed set (kind user|ivm, the 7 stream states, the 5 MV states, le 60|300|900|3600|+Inf, ...); reasons must be lower case`},
	{RuleDesignMissingCluster, SeverityWarning, `per-object series without the cluster-level series that cover every object, or a cluster-level family missing some of its designed series`},
	{RuleDesignPerObjectOver, SeverityWarning, `more objects with per-object series than prom_output_ivm_mv_metrics_limit / prom_output_table_stream_metrics_limit`},
	{RuleDesignNotExported, SeverityWarning, `objects_not_exported{type} disagrees with the objects counted at cluster level minus those exported`},
	{RuleDesignNegative, SeverityWarning, `a negative value where the design allows none (-1 only for an unknown delay or pending age; only headrooms may be negative)`},
	{RuleDesignNaN, SeverityWarning, `NaN in a designed series ("No NaN", apache/doris#69907 "Unknown values")`},
	{RuleDesignStateValue, SeverityWarning, `a per-object state gauge that is not one of the state numbers (streams 0-6, MVs 0-4)`},
	{RuleDesignBuckets, SeverityWarning, `doris_fe_ivm_mvs_by_data_delay is not cumulative, or its le="+Inf" is not the number of MVs with a known delay (doris_fe_ivm_mvs fresh + lagging + rebuild_required)`},
	{RuleDesignUnknownNotCounted, SeverityWarning, `more MVs export doris_fe_ivm_mv_data_delay_seconds -1 (unknown) than doris_fe_ivm_mvs counts as unknown + initializing: an MV without a known delay must count in one of them (apache/doris#69907 "Unknown values")`},
	{RuleDesignStateOnFollower, SeverityWarning, `state series from an FE that is not the Master (no node_info{type="is_master"} 1), or from more than one FE`},
	{RuleDesignMonitorStale, SeverityWarning, `now - doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds exceeds 2 x the monitor interval, or the Master exports state series without it`},
	{RuleDesignSeriesBudget, SeverityWarning, `more changelog/IVM series than the design's budget (about 9,100 with the default quotas)`},
	{RuleDesignNotChecked, SeverityInfo, `more changelog/IVM samples than Options.MaxDesignSamples; the rest were counted, not checked`},
	{RuleTTLCleanupFailed, SeverityWarning, `doris_be_changelog_ttl_cleanup_total{result="failed"} > 0`},
	{RuleTTLCleanupStale, SeverityWarning, `the BE's last successful TTL cleanup is older than ConformOptions.TTLCleanupMaxAge`},
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
	if o.MVLimit == 0 {
		o.MVLimit = 1000
	} else if o.MVLimit < 0 {
		o.MVLimit = 0
	}
	if o.StreamLimit == 0 {
		o.StreamLimit = 1000
	} else if o.StreamLimit < 0 {
		o.StreamLimit = 0
	}
	if o.SeriesBudget <= 0 {
		o.SeriesBudget = 9100
	}
	if o.TTLCleanupMaxAge <= 0 {
		o.TTLCleanupMaxAge = time.Hour
	}
	return o
}

// IsMaster reports node_info{type="is_master"} 1 in the payload.
func IsMaster(res *Result) bool {
	for _, s := range res.DesignSamples {
		if s.Name == "node_info" && s.Labels["type"] == "is_master" && s.Value == 1 {
			return true
		}
	}
	return false
}

// StateSeries counts the Master-only series in the payload.
func StateSeries(res *Result) int {
	n := 0
	for _, f := range res.Families {
		if spec, ok := designFamilies[f.Name]; ok && spec.masterOnly {
			n += f.Series
		}
	}
	return n
}

// Conform checks the changelog/IVM series of one payload against the design.
func Conform(res *Result, opts ConformOptions) []Problem {
	o := opts.withDefaults()
	var out []Problem
	add := func(rule string, line int, family, label, value, msg, fix string) {
		out = append(out, Problem{Rule: rule, Severity: severityOf(rule), Line: line, Col: 1, Family: family, Label: label, Value: value, Message: msg, Fix: fix})
	}
	fams := map[string]FamilyStat{}
	designSeries := 0
	for _, f := range res.Families {
		fams[f.Name] = f
		if f.Series == 0 || !isDesignFamily(f.Name) || f.Name == "node_info" {
			continue
		}
		designSeries += f.Series
		spec, ok := designFamilies[f.Name]
		if !ok {
			add(RuleDesignUnknownFamily, f.Line, f.Name, "", "", "not in the reference tables of apache/doris#69907 (a renamed or an extra signal?)", "")
			continue
		}
		if f.Type != spec.typ {
			add(RuleDesignWrongType, f.Line, f.Name, "", f.Type, "TYPE is "+f.Type+"; the design says "+spec.typ, "declare # TYPE "+f.Name+" "+spec.typ)
		}
		if want, ok := expectedCombos[f.Name]; ok && f.Series < want {
			add(RuleDesignMissingCluster, f.Line, f.Name, "", "", strconv.Itoa(f.Series)+" series; the design has "+strconv.Itoa(want)+" (every label combination, 0 included)", "export every combination, with 0")
		}
	}
	if res.DesignSamplesDropped > 0 {
		add(RuleDesignNotChecked, res.Lines, "", "", "", strconv.Itoa(res.DesignSamplesDropped)+" changelog/IVM samples beyond the first "+strconv.Itoa(len(res.DesignSamples))+" were counted, not checked", "")
	}
	master := IsMaster(res)
	state := StateSeries(res)
	if state > 0 && !master {
		add(RuleDesignStateOnFollower, 1, "", "", "", strconv.Itoa(state)+" Master-only series on an FE without node_info{type=\"is_master\"} 1; another FE must export none of them (a 0 from every follower drags min() over the FEs to 0)", "")
	}
	if designSeries > o.SeriesBudget {
		add(RuleDesignSeriesBudget, 1, "", "", "", strconv.Itoa(designSeries)+" changelog/IVM series; the design budgets about "+strconv.Itoa(o.SeriesBudget)+" (apache/doris#69907 \"A bounded number of series\")", "lower prom_output_ivm_mv_metrics_limit / prom_output_table_stream_metrics_limit")
	}

	objects := map[string]map[string]bool{"mv": {}, "stream": {}}
	objFamilies := map[string]string{}
	var lastSample *Sample
	sums := map[string]float64{} // derived totals
	notExported := map[string]float64{}
	notExportedLine := 0
	buckets := map[string]float64{}
	bucketLine := 0
	undesignedMVState := false
	unknownDelays, unknownDelayLine := 0, 0
	for i := range res.DesignSamples {
		s := &res.DesignSamples[i]
		if s.Name == "node_info" {
			continue
		}
		fam := familyOfSample(s.Name)
		spec, ok := designFamilies[fam]
		if !ok {
			continue
		}
		// label names
		if !sameLabelNames(s.Labels, spec.labels) {
			add(RuleDesignLabelSet, s.Line, fam, "", labelNames(s.Labels), "labels are {"+labelNames(s.Labels)+"}; the design has {"+strings.Join(spec.labels, ", ")+"}", "")
		}
		for lname, lvalue := range s.Labels {
			if allowed, ok := allowedValues[fam][lname]; ok && !contains(allowed, lvalue) {
				add(RuleDesignUnknownLabelValue, s.Line, fam, lname, DisplayValue([]byte(lvalue)), lname+"=\""+lvalue+"\" is not one of "+strings.Join(allowed, ", "), "")
			} else if lname == "reason" && lvalue != strings.ToLower(lvalue) {
				add(RuleDesignUnknownLabelValue, s.Line, fam, lname, DisplayValue([]byte(lvalue)), "reasons are lower case on metrics (apache/doris#69907 \"Design\")", "")
			}
		}
		if spec.object != "" {
			id := s.Labels[spec.object+"_id"]
			objects[spec.object][id] = true
			objFamilies[spec.object] = fam
		}
		v := s.Value
		if math.IsNaN(v) {
			add(RuleDesignNaN, s.Line, fam, "", "NaN", "NaN; the design exports -1 for an unknown delay or age and nothing for an unknown headroom", "")
			continue
		}
		if v < 0 {
			switch {
			case spec.neg == negAny:
			case spec.neg == negMinus1 && v == -1:
			case spec.neg == negMinus1:
				add(RuleDesignNegative, s.Line, fam, "", formatFloat(v), "negative value "+formatFloat(v)+"; only -1 (unknown) is allowed here", "")
			default:
				add(RuleDesignNegative, s.Line, fam, "", formatFloat(v), "negative value "+formatFloat(v)+"; the design allows none here", "")
			}
		}
		if spec.maxState > 0 && (v != math.Trunc(v) || v < 0 || v > float64(spec.maxState)) {
			add(RuleDesignStateValue, s.Line, fam, "", formatFloat(v), "state number "+formatFloat(v)+" is not 0.."+strconv.Itoa(spec.maxState), "")
		}
		switch fam {
		case lastSampleFamily:
			lastSample = s
		case "doris_fe_ivm_mvs":
			sums["mv"] += v
			switch s.Labels["state"] {
			case "fresh", "lagging", "rebuild_required":
				// the states that have a delay: initializing has none, and
				// an MV whose delay is unknown counts in unknown (seed §3)
				sums["mv_known_delay"] += v
			case "initializing", "unknown":
				sums["mv_no_delay"] += v
			default:
				undesignedMVState = true // reported above; no second guess
			}
		case "doris_fe_changelog_streams":
			if s.Labels["kind"] == "user" {
				sums["stream"] += v
			}
		case "doris_fe_changelog_ivm_monitor_objects_not_exported":
			notExported[s.Labels["type"]] = v
			notExportedLine = s.Line
		case "doris_fe_ivm_mvs_by_data_delay":
			buckets[s.Labels["le"]] = v
			bucketLine = s.Line
		case "doris_fe_ivm_mv_data_delay_seconds":
			if v == -1 {
				unknownDelays++
				if unknownDelayLine == 0 {
					unknownDelayLine = s.Line
				}
			}
		}
	}
	// cluster-level series whenever per-object ones are present
	for _, kind := range []string{"mv", "stream"} {
		if len(objects[kind]) == 0 {
			continue
		}
		for _, need := range clusterFor[kind] {
			if fams[need].Series == 0 {
				add(RuleDesignMissingCluster, fams[objFamilies[kind]].Line, need, "", "", "per-object "+kind+" series are exported but the cluster-level "+need+" is missing; alerts on it would miss objects beyond the quota", "")
			}
		}
		limit := o.MVLimit
		if kind == "stream" {
			limit = o.StreamLimit
		}
		exported := len(objects[kind])
		if exported > limit {
			add(RuleDesignPerObjectOver, fams[objFamilies[kind]].Line, objFamilies[kind], "", "",
				strconv.Itoa(exported)+" "+kind+"s have per-object series; the quota is "+strconv.Itoa(limit), "")
		}
	}
	for _, kind := range []string{"mv", "stream"} {
		ne, haveNE := notExported[kind]
		total, haveTotal := sums[kind]
		if !haveNE || !haveTotal {
			continue
		}
		exported := float64(len(objects[kind]))
		if ne != total-exported {
			add(RuleDesignNotExported, notExportedLine, "doris_fe_changelog_ivm_monitor_objects_not_exported", "type", kind,
				"objects_not_exported{type=\""+kind+"\"} is "+formatFloat(ne)+" but the cluster-level count is "+formatFloat(total)+" and "+formatFloat(exported)+" have per-object series", "")
		}
		if ne > 0 && int(exported) < limitFor(kind, o) {
			add(RuleDesignNotExported, notExportedLine, "doris_fe_changelog_ivm_monitor_objects_not_exported", "type", kind,
				formatFloat(ne)+" "+kind+"s not exported while only "+formatFloat(exported)+" of the quota of "+strconv.Itoa(limitFor(kind, o))+" are used", "")
		}
	}
	if len(buckets) > 0 {
		prev := -1.0
		for _, le := range DelayBuckets {
			v, ok := buckets[le]
			if !ok {
				continue
			}
			if v < prev {
				add(RuleDesignBuckets, bucketLine, "doris_fe_ivm_mvs_by_data_delay", "le", le, "le=\""+le+"\" counts "+formatFloat(v)+" MVs, fewer than a smaller bucket ("+formatFloat(prev)+")", "")
			}
			prev = v
		}
		// "known values only": le="+Inf" is every MV with a delay, which
		// are exactly the fresh, lagging and rebuild_required ones.
		if inf, ok := buckets["+Inf"]; ok {
			if total, ok := sums["mv"]; ok && !undesignedMVState && inf != sums["mv_known_delay"] {
				add(RuleDesignBuckets, bucketLine, "doris_fe_ivm_mvs_by_data_delay", "le", "+Inf", "le=\"+Inf\" counts "+formatFloat(inf)+" MVs but doris_fe_ivm_mvs has "+formatFloat(sums["mv_known_delay"])+
					" with a known delay (fresh, lagging, rebuild_required) of "+formatFloat(total)+"; the buckets count known delays only, and an MV with an unknown delay counts in state=\"unknown\"", "")
			}
		}
	}
	// "Unknown values": a per-object -1 delay is an MV in state unknown or
	// initializing, and the per-object MVs are a subset of the counted ones.
	if _, ok := sums["mv"]; ok && !undesignedMVState && unknownDelays > 0 && float64(unknownDelays) > sums["mv_no_delay"] {
		add(RuleDesignUnknownNotCounted, unknownDelayLine, "doris_fe_ivm_mv_data_delay_seconds", "", "-1",
			strconv.Itoa(unknownDelays)+" MV(s) export an unknown delay (-1) but doris_fe_ivm_mvs counts only "+formatFloat(sums["mv_no_delay"])+
				" as unknown or initializing; the alert on state=~\"rebuild_required|unknown\" would miss them", "")
	}
	// the monitor's own health
	if !o.Now.IsZero() {
		if lastSample != nil {
			age := float64(o.Now.UnixNano())/1e9 - lastSample.Value
			if age > 2*o.MonitorInterval.Seconds() {
				add(RuleDesignMonitorStale, lastSample.Line, lastSampleFamily, "", formatFloat(lastSample.Value),
					"the latest monitor round completed "+formatFloat(math.Round(age))+" s ago, over 2 x the interval ("+o.MonitorInterval.String()+"): the state series are stale",
					"check the Master FE's ChangelogIvmMonitor (sample_failures_total, fe.log)")
			}
		} else if master && state > 0 {
			add(RuleDesignMonitorStale, 1, lastSampleFamily, "", "", "the Master exports state series but no "+lastSampleFamily, "")
		}
		for i := range res.DesignSamples {
			s := &res.DesignSamples[i]
			if s.Name == "doris_be_changelog_ttl_last_success_timestamp_seconds" && !math.IsNaN(s.Value) {
				age := float64(o.Now.UnixNano())/1e9 - s.Value
				if age > o.TTLCleanupMaxAge.Seconds() {
					add(RuleTTLCleanupStale, s.Line, s.Name, "", formatFloat(s.Value), "the last successful changelog TTL cleanup was "+formatFloat(math.Round(age))+" s ago (over "+o.TTLCleanupMaxAge.String()+")", "check the BE's be.INFO for TTL cleanup errors")
				}
			}
		}
	}
	for i := range res.DesignSamples {
		s := &res.DesignSamples[i]
		if s.Name == "doris_be_changelog_ttl_cleanup_total" && s.Labels["result"] == "failed" && s.Value > 0 {
			add(RuleTTLCleanupFailed, s.Line, s.Name, "result", "failed", formatFloat(s.Value)+" changelog TTL cleanups failed on this BE since it started", "check the BE's be.INFO for TTL cleanup errors")
		}
	}
	sortProblems(out)
	return out
}

func limitFor(kind string, o ConformOptions) int {
	if kind == "mv" {
		return o.MVLimit
	}
	return o.StreamLimit
}

// familyOfSample maps a sample name to its designed family (they have no
// _sum/_count/_bucket forms, so it is the name itself).
func familyOfSample(name string) string { return name }

func sameLabelNames(have map[string]string, want []string) bool {
	if len(have) != len(want) {
		return false
	}
	for _, w := range want {
		if _, ok := have[w]; !ok {
			return false
		}
	}
	return true
}

func labelNames(m map[string]string) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// S5 is the changelog space picture from one payload (seed S5).
type S5 struct {
	RetainedBytesSingleReplica *float64 `json:"retained_bytes_single_replica,omitempty"`
	RetainedBytesAllReplicas   *float64 `json:"retained_bytes_all_replicas,omitempty"`
	TTLCleanupSuccess          *float64 `json:"ttl_cleanup_success,omitempty"`
	TTLCleanupFailed           *float64 `json:"ttl_cleanup_failed,omitempty"`
	TTLReclaimedBytes          *float64 `json:"ttl_reclaimed_bytes,omitempty"`
	TTLLastSuccessTimestamp    *float64 `json:"ttl_last_success_timestamp_seconds,omitempty"`
}

// Empty reports that the payload carried no S5 series.
func (s S5) Empty() bool {
	return s.RetainedBytesSingleReplica == nil && s.RetainedBytesAllReplicas == nil && s.TTLCleanupSuccess == nil &&
		s.TTLCleanupFailed == nil && s.TTLReclaimedBytes == nil && s.TTLLastSuccessTimestamp == nil
}

// SpaceSignals extracts S5 from the collected samples.
func SpaceSignals(res *Result) S5 {
	var out S5
	p := func(v float64) *float64 { return &v }
	for _, s := range res.DesignSamples {
		switch s.Name {
		case "doris_fe_changelog_retained_bytes":
			switch s.Labels["scope"] {
			case "single_replica":
				out.RetainedBytesSingleReplica = p(s.Value)
			case "all_replicas":
				out.RetainedBytesAllReplicas = p(s.Value)
			}
		case "doris_be_changelog_ttl_cleanup_total":
			switch s.Labels["result"] {
			case "success":
				out.TTLCleanupSuccess = p(s.Value)
			case "failed":
				out.TTLCleanupFailed = p(s.Value)
			}
		case "doris_be_changelog_ttl_reclaimed_bytes_total":
			out.TTLReclaimedBytes = p(s.Value)
		case "doris_be_changelog_ttl_last_success_timestamp_seconds":
			out.TTLLastSuccessTimestamp = p(s.Value)
		}
	}
	return out
}

// FormatValue prints a sample value without exponent for ordinary numbers.
func FormatValue(v float64) string { return formatFloat(v) }
