package metrics

import (
	"math"
	"sort"
	"strings"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
)

// The conformance rules, one function each (a few share a function where
// they read the same sample), in the order of conformanceChecks.

// checkUnknownFamily: a family of the design's namespaces that the
// reference tables do not have.
func checkUnknownFamily(v *view) {
	v.families(func(f exposition.FamilyStat) {
		if _, ok := designFamilies()[f.Name]; !ok {
			v.add(RuleDesignUnknownFamily, f.Line, f.Name, "", "", "not in the reference tables of apache/doris#69907 (a renamed or an extra signal?)", "")
		}
	})
}

func checkWrongType(v *view) {
	v.families(func(f exposition.FamilyStat) {
		if spec, ok := designFamilies()[f.Name]; ok && f.Type != spec.typ {
			v.add(RuleDesignWrongType, f.Line, f.Name, "", f.Type, "TYPE is "+f.Type+"; the design says "+spec.typ, "declare # TYPE "+f.Name+" "+spec.typ)
		}
	})
}

// checkMissingCombinations: a cluster-level family carries every label
// combination, 0 included.
func checkMissingCombinations(v *view) {
	v.families(func(f exposition.FamilyStat) {
		if want, ok := expectedCombos()[f.Name]; ok && f.Series < want {
			v.add(RuleDesignMissingCluster, f.Line, f.Name, "", "", itoa(f.Series)+" series; the design has "+itoa(want)+" (every label combination, 0 included)", "export every combination, with 0")
		}
	})
}

// checkNotChecked: samples the linter counted but did not keep — beyond
// its cap, or (a bug, never quiet) because the payload was linted without
// LintOptions.
func checkNotChecked(v *view) {
	res := v.res
	if res.SamplesNotKept > 0 {
		v.add(RuleDesignNotChecked, res.Lines, "", "", "", itoa(res.SamplesNotKept)+" changelog/IVM samples beyond the first "+itoa(len(res.Samples))+" were counted, not checked", "")
	}
	want := 0
	for _, f := range res.Families {
		if isDesignFamily(f.Name) {
			want += f.Series
		}
	}
	if have := len(res.Samples) + res.SamplesNotKept; have < want {
		v.add(RuleDesignNotChecked, res.Lines, "", "", "", itoa(want-have)+" changelog/IVM samples were not kept by the linter (linted without the Doris profile), so not checked", "")
	}
}

func checkStateOnFollower(v *view) {
	if v.state > 0 && !v.master {
		v.add(RuleDesignStateOnFollower, 1, "", "", "", itoa(v.state)+" Master-only series on an FE without node_info{type=\"is_master\"} 1; another FE must export none of them (a 0 from every follower drags min() over the FEs to 0)", "")
	}
}

func checkSeriesBudget(v *view) {
	if v.designSeries > v.o.SeriesBudget {
		v.add(RuleDesignSeriesBudget, 1, "", "", "", itoa(v.designSeries)+" changelog/IVM series; the design budgets about "+itoa(v.o.SeriesBudget)+" (apache/doris#69907 \"A bounded number of series\")", "lower prom_output_ivm_mv_metrics_limit / prom_output_table_stream_metrics_limit")
	}
}

func checkLabelSet(v *view) {
	v.samples(func(s *exposition.Sample, spec famSpec) {
		if !sameLabelNames(s.Labels, spec.labels) {
			have := labelNames(s.Labels)
			v.add(RuleDesignLabelSet, s.Line, s.Name, "", have, "labels are {"+have+"}; the design has {"+strings.Join(spec.labels, ", ")+"}", "")
		}
	})
}

func checkLabelValues(v *view) {
	v.samples(func(s *exposition.Sample, spec famSpec) {
		for lname, lvalue := range s.Labels {
			if allowed, ok := allowedValues()[s.Name][lname]; ok && !contains(allowed, lvalue) {
				v.add(RuleDesignUnknownLabelValue, s.Line, s.Name, lname, fix.LabelValueText(lvalue), lname+"=\""+lvalue+"\" is not one of "+strings.Join(allowed, ", "), "")
			} else if lname == "reason" && lvalue != strings.ToLower(lvalue) {
				v.add(RuleDesignUnknownLabelValue, s.Line, s.Name, lname, fix.LabelValueText(lvalue), "reasons are lower case on metrics (apache/doris#69907 \"Design\")", "")
			}
		}
	})
}

func checkNaN(v *view) {
	v.samples(func(s *exposition.Sample, spec famSpec) {
		if math.IsNaN(s.Value) {
			v.add(RuleDesignNaN, s.Line, s.Name, "", "NaN", "NaN; the design exports -1 for an unknown delay or age and nothing for an unknown headroom", "")
		}
	})
}

// checkNegative: -1 only for an unknown delay or pending age, any negative
// value only for a headroom.
func checkNegative(v *view) {
	v.samples(func(s *exposition.Sample, spec famSpec) {
		val := s.Value
		switch {
		case !(val < 0), spec.neg == negAny, spec.neg == negMinus1 && val == -1:
		case spec.neg == negMinus1:
			v.add(RuleDesignNegative, s.Line, s.Name, "", ftoa(val), "negative value "+ftoa(val)+"; only -1 (unknown) is allowed here", "")
		default:
			v.add(RuleDesignNegative, s.Line, s.Name, "", ftoa(val), "negative value "+ftoa(val)+"; the design allows none here", "")
		}
	})
}

func checkStateValue(v *view) {
	v.samples(func(s *exposition.Sample, spec famSpec) {
		val := s.Value
		if spec.maxState > 0 && !math.IsNaN(val) && (val != math.Trunc(val) || val < 0 || val > float64(spec.maxState)) {
			v.add(RuleDesignStateValue, s.Line, s.Name, "", ftoa(val), "state number "+ftoa(val)+" is not 0.."+itoa(spec.maxState), "")
		}
	})
}

// objectKinds are the kinds with per-object series, in report order.
var objectKinds = []string{"mv", "stream"}

// checkClusterForObjects: per-object series come with the cluster-level
// ones that cover every object.
func checkClusterForObjects(v *view) {
	for _, kind := range objectKinds {
		if len(v.objects[kind]) == 0 {
			continue
		}
		for _, need := range clusterFor()[kind] {
			if v.fams[need].Series == 0 {
				v.add(RuleDesignMissingCluster, v.fams[v.objFamilies[kind]].Line, need, "", "", "per-object "+kind+" series are exported but the cluster-level "+need+" is missing; alerts on it would miss objects beyond the quota", "")
			}
		}
	}
}

func checkPerObjectOver(v *view) {
	for _, kind := range objectKinds {
		if exported, limit := len(v.objects[kind]), v.o.limitFor(kind); exported > 0 && exported > limit {
			v.add(RuleDesignPerObjectOver, v.fams[v.objFamilies[kind]].Line, v.objFamilies[kind], "", "",
				itoa(exported)+" "+kind+"s have per-object series; the quota is "+itoa(limit), "")
		}
	}
}

// checkNotExported: objects_not_exported is the cluster-level count minus
// the objects with per-object series, and stays 0 below the quota.
func checkNotExported(v *view) {
	for _, kind := range objectKinds {
		ne, haveNE := v.notExported[kind]
		total, haveTotal := v.sums[kind]
		if !haveNE || !haveTotal {
			continue
		}
		exported := float64(len(v.objects[kind]))
		if ne != total-exported {
			v.add(RuleDesignNotExported, v.notExportedLine, notExportedFamily, "type", kind,
				"objects_not_exported{type=\""+kind+"\"} is "+ftoa(ne)+" but the cluster-level count is "+ftoa(total)+" and "+ftoa(exported)+" have per-object series", "")
		}
		if limit := v.o.limitFor(kind); ne > 0 && int(exported) < limit {
			v.add(RuleDesignNotExported, v.notExportedLine, notExportedFamily, "type", kind,
				ftoa(ne)+" "+kind+"s not exported while only "+ftoa(exported)+" of the quota of "+itoa(limit)+" are used", "")
		}
	}
}

func checkBucketsCumulative(v *view) {
	prev := -1.0
	for _, le := range delayBuckets {
		n, ok := v.buckets[le]
		if !ok {
			continue
		}
		if n < prev {
			v.add(RuleDesignBuckets, v.bucketLine, bucketsFamily, "le", le, "le=\""+le+"\" counts "+ftoa(n)+" MVs, fewer than a smaller bucket ("+ftoa(prev)+")", "")
		}
		prev = n
	}
}

// checkBucketsKnownDelays: "known values only": le="+Inf" is every MV with
// a delay, which are exactly the fresh, lagging and rebuild_required ones.
func checkBucketsKnownDelays(v *view) {
	inf, ok := v.buckets["+Inf"]
	total, counted := v.sums["mv"]
	if !ok || !counted || v.undesignedMVState || inf == v.sums["mv_known_delay"] {
		return
	}
	v.add(RuleDesignBuckets, v.bucketLine, bucketsFamily, "le", "+Inf", "le=\"+Inf\" counts "+ftoa(inf)+" MVs but doris_fe_ivm_mvs has "+ftoa(v.sums["mv_known_delay"])+
		" with a known delay (fresh, lagging, rebuild_required) of "+ftoa(total)+"; the buckets count known delays only, and an MV with an unknown delay counts in state=\"unknown\"", "")
}

// checkUnknownNotCounted ("Unknown values"): a per-object -1 delay is an MV
// in state unknown or initializing, and the per-object MVs are a subset of
// the counted ones.
func checkUnknownNotCounted(v *view) {
	_, counted := v.sums["mv"]
	if !counted || v.undesignedMVState || v.unknownDelays == 0 || !(float64(v.unknownDelays) > v.sums["mv_no_delay"]) {
		return
	}
	v.add(RuleDesignUnknownNotCounted, v.unknownDelayLine, mvDelayFamily, "", "-1",
		itoa(v.unknownDelays)+" MV(s) export an unknown delay (-1) but doris_fe_ivm_mvs counts only "+ftoa(v.sums["mv_no_delay"])+
			" as unknown or initializing; the alert on state=~\"rebuild_required|unknown\" would miss them", "")
}

// checkMonitorStale: the monitor's own health, judged against Now.
func checkMonitorStale(v *view) {
	if v.o.Now.IsZero() {
		return
	}
	if s := v.lastSample; s != nil {
		age := float64(v.o.Now.UnixNano())/1e9 - s.Value
		if age > 2*v.o.MonitorInterval.Seconds() {
			v.add(RuleDesignMonitorStale, s.Line, lastSampleFamily, "", ftoa(s.Value),
				"the latest monitor round completed "+ftoa(math.Round(age))+" s ago, over 2 x the interval ("+v.o.MonitorInterval.String()+"): the state series are stale",
				"check the Master FE's ChangelogIvmMonitor (sample_failures_total, fe.log)")
		}
	} else if v.master && v.state > 0 {
		v.add(RuleDesignMonitorStale, 1, lastSampleFamily, "", "", "the Master exports state series but no "+lastSampleFamily, "")
	}
}

func checkTTLCleanupStale(v *view) {
	if v.o.Now.IsZero() {
		return
	}
	for i := range v.res.Samples {
		s := &v.res.Samples[i]
		if s.Name != ttlLastSuccess || math.IsNaN(s.Value) {
			continue
		}
		if age := float64(v.o.Now.UnixNano())/1e9 - s.Value; age > v.o.TTLCleanupMaxAge.Seconds() {
			v.add(RuleTTLCleanupStale, s.Line, s.Name, "", ftoa(s.Value), "the last successful changelog TTL cleanup was "+ftoa(math.Round(age))+" s ago (over "+v.o.TTLCleanupMaxAge.String()+")", "check the BE's be.INFO for TTL cleanup errors")
		}
	}
}

func checkTTLCleanupFailed(v *view) {
	for i := range v.res.Samples {
		s := &v.res.Samples[i]
		if s.Name == ttlCleanupFamily && s.Labels["result"] == "failed" && s.Value > 0 {
			v.add(RuleTTLCleanupFailed, s.Line, s.Name, "result", "failed", ftoa(s.Value)+" changelog TTL cleanups failed on this BE since it started", "check the BE's be.INFO for TTL cleanup errors")
		}
	}
}

// sameLabelNames compares a sample's label names with the design's; a
// `cluster` label is allowed on top (the multi-cluster label of
// `dorisdiag exporter --cluster`, docs/exporter.md "Many clusters").
func sameLabelNames(have map[string]string, want []string) bool {
	n := len(have)
	if _, ok := have["cluster"]; ok {
		n--
	}
	if n != len(want) {
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
