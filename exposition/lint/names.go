package lint

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// Naming rules after prometheus/client_golang promlint, as warnings. What a
// producer is known to do differently is the caller's to say (Options.Note),
// not an exception here.

var unitAbbreviations = map[string]bool{"s": true, "ms": true, "us": true, "ns": true, "sec": true, "b": true,
	"kb": true, "mb": true, "gb": true, "tb": true, "pb": true, "m": true, "h": true, "d": true}

var nonBaseUnits = map[string]string{"milliseconds": "seconds", "microseconds": "seconds", "nanoseconds": "seconds",
	"minutes": "seconds", "hours": "seconds", "days": "seconds", "weeks": "seconds",
	"kilobytes": "bytes", "megabytes": "bytes", "gigabytes": "bytes", "kilograms": "grams",
	"millimeters": "meters", "centimeters": "meters", "kilometers": "meters", "fahrenheit": "celsius"}

var typeWords = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true, "untyped": true}

func isCamelCase(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= 'a' && s[i-1] <= 'z' && s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// finalizeFamilies runs the per-family rules once the whole payload is read.
func (e *engine) finalizeFamilies() {
	for i := range e.fams {
		f := &e.fams[i]
		if f.samples == 0 || int32(i) == e.spare {
			continue
		}
		line := f.firstLine
		if f.typeLine > 0 {
			line = f.typeLine
		}
		add := func(rule, msg, fix string) {
			p := exposition.Problem{Rule: rule, Severity: exposition.SeverityOf(rule), Line: line, Col: 1, Family: f.name, Message: msg, Fix: fix}
			e.note(&p, f.typ)
			e.add(p)
		}
		name := f.name
		if !f.hasHelp && !f.helpEmpty {
			add(exposition.RuleHelpMissing, "no HELP text", "add a # HELP line")
		}
		switch {
		case f.typ == typeCounter && !strings.HasSuffix(name, "_total"):
			add(exposition.RuleCounterWithoutTotal, `counter metrics should have "_total" suffix`, "rename to "+name+"_total")
		case f.typ != typeCounter && strings.HasSuffix(name, "_total"):
			add(exposition.RuleNonCounterWithTotal, `non-counter metrics should not have "_total" suffix`, "drop _total or make it a counter")
		}
		if !f.typ.isHist() && strings.HasSuffix(name, "_bucket") {
			add(exposition.RuleReservedSuffix, `non-histogram metrics should not have "_bucket" suffix`, "rename")
		}
		if !f.typ.isHist() && f.typ != typeSummary {
			for _, suf := range []string{"_count", "_sum"} {
				if strings.HasSuffix(name, suf) {
					add(exposition.RuleReservedSuffix, `non-histogram and non-summary metrics should not have "`+suf+`" suffix`, "rename")
				}
			}
		}
		if f.typ.isHist() && !f.hasLe {
			add(exposition.RuleHistogramAsQuantiles, "histogram without le buckets", "print le buckets, or declare the family a summary")
		}
		if isCamelCase(name) {
			add(exposition.RuleCamelCase, "metric names should be written in 'snake_case' not 'camelCase'", "rename in snake_case")
		}
		if strings.Contains(name, ":") {
			add(exposition.RuleReservedChars, "metric names should not contain ':' (reserved for recording rules)", "")
		}
		for _, tok := range strings.Split(name, "_") {
			if unitAbbreviations[tok] {
				add(exposition.RuleUnitAbbreviation, `metric names should not contain abbreviated units ("_`+tok+`")`, "use the base unit spelled out, e.g. _seconds")
			}
			if base, ok := nonBaseUnits[tok]; ok {
				add(exposition.RuleNonBaseUnit, "use base unit \""+base+"\" instead of \""+tok+"\"", "")
			}
			if typeWords[tok] {
				add(exposition.RuleTypeInName, `metric names should not contain the metric type "`+tok+`"`, "")
			}
		}
	}
}

// labelNameRules runs once per family and label name, where it first appears.
func (e *engine) labelNameRules(f *famState, name string, off int) {
	if e.noMutate {
		return
	}
	w := func(rule, msg, fix string) {
		p := exposition.Problem{Rule: rule, Severity: exposition.SeverityOf(rule), Line: e.lineOf(off), Col: e.colOf(off), Family: f.name, Label: name, Message: msg, Fix: fix}
		e.note(&p, f.typ)
		e.pend = append(e.pend, p)
	}
	if isCamelCase(name) {
		w(exposition.RuleCamelCase, "label names should be written in 'snake_case' not 'camelCase'", "rename the label in snake_case")
	}
	if name == "le" && !f.typ.isHist() {
		w(exposition.RuleReservedLabel, `non-histogram metrics should not have "le" label`, "")
	}
	if name == "quantile" && f.typ != typeSummary {
		w(exposition.RuleReservedLabel, `non-summary metrics should not have "quantile" label`, "")
	}
}

func (e *engine) warnSpaceBefore(f *famState) {
	if e.noMutate || f.spaceWarned {
		return
	}
	f.spaceWarned = true
	p := exposition.Problem{Rule: exposition.RuleSpaceBeforeLabels, Severity: exposition.SeverityOf(exposition.RuleSpaceBeforeLabels), Line: e.line, Col: 1, Family: f.name,
		Message: "blank between the metric name and '{'", Fix: "write name{labels} without a blank"}
	e.note(&p, f.typ)
	e.pend = append(e.pend, p)
}

// defaultFix is the suggested fix of an error when the site gave none.
func defaultFix(rule string) string {
	switch rule {
	case exposition.RuleLabelValueBadEscape:
		return `write a backslash as \\`
	case exposition.RuleLabelValueRawQuote:
		return `write the quote as \"`
	case exposition.RuleLabelValueRawNewline:
		return `write the line feed as \n`
	case exposition.RuleLabelValueUnterminated:
		return `close the value with "`
	case exposition.RuleLabelValueInvalidUTF8:
		return "encode label values as UTF-8"
	case exposition.RuleMissingFinalNewline:
		return "end the payload with a line feed"
	case exposition.RuleHelpDuplicate, exposition.RuleTypeDuplicate:
		return "keep one HELP and one TYPE line per family"
	case exposition.RuleTypeAfterSamples:
		return "print TYPE before the first sample of the family"
	case exposition.RuleTypeUnknown:
		return "use counter, gauge, summary, histogram or untyped"
	case exposition.RuleHelpBadEscape:
		return `write a backslash in HELP as \\`
	case exposition.RuleSampleValueInvalid:
		return "write the value as a Go float (NaN, +Inf, -Inf allowed)"
	case exposition.RuleTimestampInvalid:
		return "write the timestamp as int64 milliseconds, or leave it out"
	case exposition.RuleTrailingText:
		return "end the line after the value or the timestamp"
	case exposition.RuleLabelNameDuplicate:
		return "keep each label name once per sample"
	case exposition.RuleLineTooLong:
		return "end every sample with a line feed"
	case exposition.RuleLabelLimit:
		return "give each sample a handful of labels"
	}
	return ""
}
