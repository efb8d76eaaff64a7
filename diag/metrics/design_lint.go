package metrics

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// The lint profile of a Doris FE or BE: what the generic linter keeps, and
// the known quirks of /metrics as Doris renders it today (docs/metrics.md
// "Lint rules"), which keep their warning and say what Doris does.

// LintOptions is o with the Doris profile: the samples of the design's
// families and node_info kept (for Conform, SpaceSignals and IsMaster), NaN
// in them reported, and the FE's and BE's known quirks named. Every lint of
// a Doris payload goes through it; applying it twice changes nothing.
func LintOptions(o exposition.Options) exposition.Options {
	o.Family = familyPolicy
	o.Note = note
	o.Designed = designed
	return o
}

// familyPolicy keeps the design's families: Lint asks once per family.
func familyPolicy(name string) exposition.FamilyPolicy {
	d := isDesignFamily(name)
	return exposition.FamilyPolicy{Keep: d, NoNaN: d}
}

// Texts the profile puts in place of the generic ones.
const (
	nanMessage     = "NaN in a changelog/IVM series; the design exports -1 for an unknown delay or age and nothing for an unknown headroom (apache/doris#69907 \"Unknown values\")"
	duplicateFix   = "make each name and label set unique (the Doris FE overwrites registrations with the same name and labels)"
	lineTooLongFix = "end every sample with a line feed; no Doris metric line comes near 1 MiB"
	labelLimitFix  = "give each sample a handful of labels (the widest series of the monitoring design has 7)"
	designedLe     = " (as apache/doris#69907 designs it: a gauge of MVs by delay bucket)"
)

// quirks is what Doris is known to do, per lint rule; quirkApplies says on
// which families and sites.
var quirks = map[string]string{
	exposition.RuleHelpMissing:          "the BE prints TYPE lines only",
	exposition.RuleCounterWithoutTotal:  "Doris counters such as doris_fe_query_err and doris_be_cpu have no _total",
	exposition.RuleNonCounterWithTotal:  "gauges such as doris_fe_connection_total end in _total",
	exposition.RuleReservedSuffix:       "counters named _count",
	exposition.RuleHistogramAsQuantiles: "the BE prints histogram-typed families as quantiles plus _max/_min/_average",
	exposition.RuleUnitAbbreviation:     "durations in _ms",
	exposition.RuleCamelCase:            "MV metrics carry partitionType",
	exposition.RuleReservedLabel:        "the BE prints histograms as quantiles",
	exposition.RuleSpaceBeforeLabels:    `summaries print "x_sum {} 1"`,
}

// designed is the profile's exposition.Options.Designed: the design's
// bucket gauge carries `le` on purpose (apache/doris#69907 §2 Reference).
func designed(p exposition.Problem) bool {
	return p.Rule == exposition.RuleReservedLabel && p.Label == "le" && p.Family == bucketsFamily
}

// note is the profile's exposition.Options.Note.
func note(p exposition.Problem, typ string) (message, fix string) {
	switch p.Rule {
	case exposition.RuleValueNaN:
		return nanMessage, p.Fix
	case exposition.RuleDuplicateSeries:
		return p.Message, duplicateFix
	case exposition.RuleLineTooLong:
		return p.Message, lineTooLongFix
	case exposition.RuleLabelLimit:
		return p.Message, labelLimitFix
	case exposition.RuleReservedLabel:
		if p.Label == "le" && p.Family == bucketsFamily {
			return p.Message + designedLe, p.Fix
		}
	}
	if q, ok := quirks[p.Rule]; ok && quirkApplies(p, typ) {
		return p.Message + " (known Doris quirk: " + q + ")", p.Fix
	}
	return p.Message, p.Fix
}

// quirkApplies: only a family Doris renders today has a quirk excuse (the
// design's new changelog/IVM families follow the conventions), and only at
// the site the quirk is about.
func quirkApplies(p exposition.Problem, typ string) bool {
	if !dorisLegacy(p.Family) {
		return false
	}
	switch p.Rule {
	case exposition.RuleHelpMissing:
		return strings.HasPrefix(p.Family, "doris_be_")
	case exposition.RuleReservedSuffix:
		return !strings.HasSuffix(p.Family, "_bucket") // _count and _sum
	case exposition.RuleCamelCase:
		return p.Label != "" // the label partitionType, not a metric name
	case exposition.RuleReservedLabel:
		return p.Label == "quantile" && (typ == "histogram" || typ == "gauge_histogram")
	}
	return true
}

// dorisLegacy: a family Doris renders today, not one of the design's new
// changelog/IVM families.
func dorisLegacy(name string) bool {
	if isDesignFamily(name) {
		return false
	}
	return strings.HasPrefix(name, "doris_fe_") || strings.HasPrefix(name, "doris_be_") ||
		strings.HasPrefix(name, "jvm_") || strings.HasPrefix(name, "system_")
}
