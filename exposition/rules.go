package exposition

// Rule is one check of the linter: a stable name, a default severity and a
// one-line description (promlint's shape, plus names and severities).
type Rule struct {
	Name     string
	Severity string
	Doc      string
}

// Rule names. They are stable: scripts and docs refer to them.
const (
	// Errors: expfmt rejects the payload.
	RuleLabelValueBadEscape    = "label-value-bad-escape"
	RuleLabelValueRawQuote     = "label-value-raw-quote"
	RuleLabelValueRawNewline   = "label-value-raw-newline"
	RuleLabelValueUnterminated = "label-value-unterminated"
	RuleLabelValueInvalidUTF8  = "label-value-invalid-utf8"
	RuleLabelValueNotQuoted    = "label-value-not-quoted"
	RuleLabelNameInvalid       = "label-name-invalid"
	RuleLabelNameDuplicate     = "label-name-duplicate"
	RuleLabelSetSyntax         = "label-set-syntax"
	RuleMetricNameInvalid      = "metric-name-invalid"
	RuleNameBadEscape          = "name-bad-escape"
	RuleSampleValueInvalid     = "sample-value-invalid"
	RuleTimestampInvalid       = "timestamp-invalid"
	RuleTrailingText           = "trailing-text"
	RuleMissingFinalNewline    = "missing-final-newline"
	RuleHelpDuplicate          = "help-duplicate"
	RuleHelpBadEscape          = "help-bad-escape"
	RuleTypeDuplicate          = "type-duplicate"
	RuleTypeAfterSamples       = "type-after-samples"
	RuleTypeUnknown            = "type-unknown"
	RuleQuantileInvalid        = "quantile-invalid"
	RuleBucketInvalid          = "bucket-le-invalid"
	RuleHistogramNegative      = "histogram-negative-count"
	RuleParserCrash            = "parser-crash"
	RuleLineTooLong            = "line-too-long"
	RuleLabelLimit             = "label-limit-exceeded"

	// Warnings: Prometheus accepts the payload, but it hurts.
	RuleDuplicateSeries      = "duplicate-series"
	RuleNonContiguousFamily  = "non-contiguous-family"
	RuleValueNaN             = "value-nan"
	RuleHelpEmpty            = "help-empty"
	RuleHelpMissing          = "help-missing"
	RuleNonUTF8Text          = "non-utf8-text"
	RuleCounterWithoutTotal  = "naming-counter-without-total"
	RuleNonCounterWithTotal  = "naming-non-counter-with-total"
	RuleCamelCase            = "naming-camel-case"
	RuleUnitAbbreviation     = "naming-unit-abbreviation"
	RuleNonBaseUnit          = "naming-non-base-unit"
	RuleTypeInName           = "naming-type-in-name"
	RuleReservedChars        = "naming-reserved-chars"
	RuleReservedSuffix       = "naming-reserved-suffix"
	RuleReservedLabel        = "naming-reserved-label"
	RuleHistogramAsQuantiles = "histogram-without-buckets"
	RuleSpaceBeforeLabels    = "space-before-labels"
	RuleProblemsSuppressed   = "problems-suppressed"
	RuleFamiliesNotTracked   = "families-not-tracked"
)

// Rules is every lint rule, in documentation order.
var Rules = []Rule{
	{RuleLabelValueBadEscape, SeverityError, `a label value holds a backslash escape other than \\, \" and \n (Go %q escapes such as \t, \xNN, \u00e9 included, and a raw backslash as in user "a\b")`},
	{RuleLabelValueRawQuote, SeverityError, `a label value holds an unescaped double quote`},
	{RuleLabelValueRawNewline, SeverityError, `a raw line feed splits a label value, and with it the sample, over two lines`},
	{RuleLabelValueUnterminated, SeverityError, `a label value has no closing quote on its line`},
	{RuleLabelValueInvalidUTF8, SeverityError, `a label value is not valid UTF-8`},
	{RuleLabelValueNotQuoted, SeverityError, `a label value does not start with a double quote`},
	{RuleLabelNameInvalid, SeverityError, `a label name is empty, not valid, reserved (__name__) or not followed by '='`},
	{RuleLabelNameDuplicate, SeverityError, `a label name appears twice in one label set`},
	{RuleLabelSetSyntax, SeverityError, `the label set is malformed (no ',' or '}' after a value, a name missing inside braces, two names)`},
	{RuleMetricNameInvalid, SeverityError, `a metric name is missing or not valid`},
	{RuleNameBadEscape, SeverityError, `a quoted metric or label name holds a bad escape or a raw line feed`},
	{RuleSampleValueInvalid, SeverityError, `a sample value is not a float that Go's strconv.ParseFloat accepts (no '_', no hex 'p' exponents)`},
	{RuleTimestampInvalid, SeverityError, `a timestamp is not a base-10 int64 (milliseconds)`},
	{RuleTrailingText, SeverityError, `text (even a blank) after the timestamp, or a blank after the value`},
	{RuleMissingFinalNewline, SeverityError, `the last line does not end in a line feed`},
	{RuleHelpDuplicate, SeverityError, `a second HELP line for a family`},
	{RuleHelpBadEscape, SeverityError, `HELP text holds a backslash escape other than \\, \n and \"`},
	{RuleTypeDuplicate, SeverityError, `a second TYPE line for a family`},
	{RuleTypeAfterSamples, SeverityError, `a TYPE line after samples of its family`},
	{RuleTypeUnknown, SeverityError, `a TYPE that is not counter, gauge, summary, untyped, histogram or gauge_histogram`},
	{RuleQuantileInvalid, SeverityError, `a summary's quantile label is not a float`},
	{RuleBucketInvalid, SeverityError, `a histogram's le label is not a float`},
	{RuleHistogramNegative, SeverityError, `a histogram bucket or count is negative and not an integer`},
	{RuleLineTooLong, SeverityError, `a line is longer than Options.MaxLineBytes (1 MiB): it is skipped unread, so the payload cannot be vouched for`},
	{RuleLabelLimit, SeverityError, `a sample has more than Options.MaxLabels (256) labels: the rest of its line is not checked`},
	{RuleParserCrash, SeverityError, `the line makes expfmt v0.73.1 panic (a metric name inside braces switching to a summary or histogram before any summary or histogram was parsed)`},

	{RuleDuplicateSeries, SeverityWarning, `the same name and label set appears twice; Prometheus drops one sample`},
	{RuleNonContiguousFamily, SeverityWarning, `a family's lines are split by another family`},
	{RuleValueNaN, SeverityWarning, `NaN in a family whose producer allows none (Options.Family says NoNaN)`},
	{RuleHelpEmpty, SeverityWarning, `a HELP line without text`},
	{RuleHelpMissing, SeverityInfo, `a family without HELP`},
	{RuleNonUTF8Text, SeverityWarning, `a comment or HELP text is not valid UTF-8`},
	{RuleCounterWithoutTotal, SeverityWarning, `promlint: counter metrics should have "_total" suffix`},
	{RuleNonCounterWithTotal, SeverityWarning, `promlint: non-counter metrics should not have "_total" suffix`},
	{RuleCamelCase, SeverityWarning, `promlint: metric and label names should be snake_case, not camelCase`},
	{RuleUnitAbbreviation, SeverityWarning, `promlint: metric names should not use abbreviated units (_ms, _s, _kb, ...)`},
	{RuleNonBaseUnit, SeverityWarning, `promlint: metric names should use base units (seconds, bytes), not milliseconds, minutes, ...`},
	{RuleTypeInName, SeverityWarning, `promlint: metric names should not contain the metric type (_gauge, _counter, ...)`},
	{RuleReservedChars, SeverityWarning, `promlint: metric names should not contain ':' (reserved for recording rules)`},
	{RuleReservedSuffix, SeverityWarning, `promlint: _count, _sum and _bucket suffixes belong to summaries and histograms`},
	{RuleReservedLabel, SeverityWarning, `promlint: "le" belongs to histograms and "quantile" to summaries`},
	{RuleHistogramAsQuantiles, SeverityWarning, `a histogram-typed family has no le buckets`},
	{RuleSpaceBeforeLabels, SeverityInfo, `a blank between the metric name and '{'`},
	{RuleProblemsSuppressed, SeverityWarning, `more problems than Options.MaxProblems; the rest are counted per rule, not listed`},
	{RuleFamiliesNotTracked, SeverityWarning, `more families than Options.MaxFamilies (10,000); the rest are parsed and counted, not listed nor checked by the per-family rules`},
}

var ruleIndex = func() map[string]Rule {
	m := make(map[string]Rule, len(Rules))
	for _, r := range Rules {
		m[r.Name] = r
	}
	return m
}()

// RuleByName returns the rule with that name.
func RuleByName(name string) (Rule, bool) {
	r, ok := ruleIndex[name]
	return r, ok
}

// SeverityOf is the severity of the rule named rule (the Rules table's).
func SeverityOf(rule string) string {
	if r, ok := ruleIndex[rule]; ok {
		return r.Severity
	}
	return SeverityError
}
