package consumers

import "github.com/dorisdiag/dorisdiag/exposition"

// What each consumer of a /metrics payload does with it. The linter's error
// rules follow expfmt (prometheus/common), which client libraries and
// promtool use and which stops at the first error; a Prometheus server's
// scrape uses its own parser (PrometheusServer), which is more lenient on
// some problems and stricter on others. "The payload does not parse" is
// therefore two verdicts, and a report says both.
const (
	// ServerKept: a Prometheus server stores the scrape's samples.
	ServerKept = "kept"
	// ServerDropped: the scrape fails as a whole: no sample of it is
	// stored and `up` is 0 for the target.
	ServerDropped = "dropped"
	// ExpfmtAccepted and ExpfmtRejected: whether
	// expfmt.TextParser.TextToMetricFamilies parses the payload.
	ExpfmtAccepted = "accepted"
	ExpfmtRejected = "rejected"
	// ServerDepends: the rule's class holds payloads the server keeps and
	// payloads it drops (RuleConsumers.ServerNote says which).
	ServerDepends = "depends"
	// ServerUnchecked: the linter skipped the text, so nothing is known.
	ServerUnchecked = "unchecked"
)

// Consumers is what each consumer does with a payload.
type Consumers struct {
	// PrometheusServer is ServerKept or ServerDropped.
	PrometheusServer string `json:"prometheus_server"`
	// Expfmt is ExpfmtAccepted or ExpfmtRejected.
	Expfmt string `json:"expfmt"`
	// ServerLine and ServerReason say where and why the server drops the
	// scrape (empty when it keeps it).
	ServerLine   int    `json:"prometheus_server_line,omitempty"`
	ServerReason string `json:"prometheus_server_reason,omitempty"`
}

// PayloadConsumers combines the linter's result (expfmt's verdict: the
// linter agrees with it) with the server's (PrometheusServer over the same
// bytes).
func PayloadConsumers(res *exposition.Result, data []byte) Consumers {
	c := Consumers{Expfmt: ExpfmtAccepted}
	if res != nil && !res.Parseable {
		c.Expfmt = ExpfmtRejected
	}
	s := PrometheusServer(data)
	c.PrometheusServer = s.Verdict
	if s.Verdict == ServerDropped {
		c.ServerLine, c.ServerReason = s.Line, s.Reason
	}
	return c
}

// RuleConsumer is what each consumer does with a payload whose only problem
// is of one rule's class (the reference: consumers_cases_test.go, checked
// against prometheus/prometheus v0.316.0 and expfmt v0.73.1).
type RuleConsumer struct {
	// Server is ServerKept, ServerDropped, ServerDepends or ServerUnchecked.
	Server string
	// ServerNote says why, in the server's terms.
	ServerNote string
	// Expfmt is ExpfmtRejected for every error rule, ExpfmtAccepted for the
	// others.
	Expfmt string
}

// ruleServer is the server's side of RuleConsumers for the error rules.
var ruleServer = map[string]RuleConsumer{
	exposition.RuleLabelValueBadEscape: {ServerDepends, `kept: the server reads any backslash escape and keeps \b, \t, \u00e9 as written; ` +
		`dropped when the backslash escapes the closing quote (a value ending in a lone backslash), which leaves the value open`, ""},
	exposition.RuleLabelValueRawQuote: {ServerDepends, "dropped when the quote ends the value and the rest of the label set does not parse; " +
		`kept when the "raw quote" is the start of the next label after a missing comma (the server allows blanks between labels)`, ""},
	exposition.RuleLabelValueRawNewline:   {ServerKept, "the server's lexer reads a line feed inside quotes as part of the value", ""},
	exposition.RuleLabelValueUnterminated: {ServerDropped, "the label set does not parse", ""},
	exposition.RuleLabelValueInvalidUTF8:  {ServerDropped, "invalid UTF-8 label value", ""},
	exposition.RuleLabelValueNotQuoted:    {ServerDropped, "expected label value", ""},
	exposition.RuleLabelNameInvalid:       {ServerDropped, "an invalid label name does not parse; __name__ duplicates the metric name, which the TSDB refuses", ""},
	exposition.RuleLabelNameDuplicate:     {ServerDropped, `the TSDB refuses it ("label name is not unique"), which fails the scrape`, ""},
	exposition.RuleLabelSetSyntax:         {ServerDropped, "the label set does not parse", ""},
	exposition.RuleMetricNameInvalid:      {ServerDropped, "metric name missing or not valid", ""},
	exposition.RuleNameBadEscape:          {ServerDepends, "as a label value's bad escape: kept unless the escape leaves the name open", ""},
	exposition.RuleSampleValueInvalid:     {ServerDropped, `the value is not a float the server accepts (strconv.ParseFloat without '_', 'p' or 'P')`, ""},
	exposition.RuleTimestampInvalid:       {ServerDropped, "the timestamp is not a base-10 integer", ""},
	exposition.RuleTrailingText: {ServerDepends, "kept when only blanks trail the value or timestamp (the server skips them); " +
		"dropped when a token does", ""},
	exposition.RuleMissingFinalNewline: {ServerKept, "the server adds the final line feed (ensureEndsWithNewline)", ""},
	exposition.RuleHelpDuplicate:       {ServerKept, "the server keeps the last HELP", ""},
	exposition.RuleHelpBadEscape:       {ServerKept, "the server keeps the backslash as written", ""},
	exposition.RuleTypeDuplicate:       {ServerKept, "the server keeps the last TYPE", ""},
	exposition.RuleTypeAfterSamples:    {ServerKept, "the server takes TYPE lines wherever they are", ""},
	exposition.RuleTypeUnknown:         {ServerDropped, `"invalid metric type": the server knows counter, gauge, histogram, summary and untyped only`, ""},
	exposition.RuleQuantileInvalid:     {ServerKept, "the server stores the label as written", ""},
	exposition.RuleBucketInvalid:       {ServerKept, "the server stores the label as written (le=\"bla\")", ""},
	exposition.RuleHistogramNegative:   {ServerKept, "the server does not check classic histogram counts", ""},
	exposition.RuleParserCrash:         {ServerDropped, "a metric name inside braces must be quoted for the server", ""},
	exposition.RuleLineTooLong:         {ServerUnchecked, "the line was not read", ""},
	exposition.RuleLabelLimit:          {ServerUnchecked, "the rest of the line was not read", ""},
}

// ServerOnlyProblems are the problems the server drops a scrape for while
// expfmt (and so the linter's error rules) accepts the payload.
var ServerOnlyProblems = []string{
	"a negative timestamp (the server's lexer reads digits only)",
	"TYPE gaugehistogram or gauge_histogram (the server knows counter, gauge, histogram, summary and untyped only)",
	"HELP text that is not valid UTF-8",
	"a TYPE text with a backslash, more than one blank before it or a blank after it",
	"a metric name inside braces that is not quoted",
}

// RuleConsumers says what each consumer does with a payload whose only
// problem is of this rule's class: expfmt rejects every error rule's payload
// and accepts the others'; a Prometheus server keeps every warning's and
// info's payload (a duplicate series loses its later sample only; a comment
// that is not UTF-8 is skipped) and, for the errors, does what ruleServer
// says.
func RuleConsumers(rule string) (RuleConsumer, bool) {
	r, ok := exposition.RuleByName(rule)
	if !ok {
		return RuleConsumer{}, false
	}
	if r.Severity != exposition.SeverityError {
		c := RuleConsumer{Server: ServerKept, ServerNote: "the server does not check it", Expfmt: ExpfmtAccepted}
		switch rule {
		case exposition.RuleDuplicateSeries:
			c.ServerNote = "the scrape is kept; the later sample of the series is not stored (duplicate sample for timestamp)"
		case exposition.RuleNonUTF8Text:
			c.Server = ServerDepends
			c.ServerNote = "kept for a comment; dropped for HELP text (\"help text is not a valid utf8 string\")"
		}
		return c, true
	}
	c, ok := ruleServer[rule]
	if !ok {
		return RuleConsumer{Server: ServerDropped, ServerNote: "not classified: assumed dropped", Expfmt: ExpfmtRejected}, true
	}
	c.Expfmt = ExpfmtRejected
	return c, true
}
