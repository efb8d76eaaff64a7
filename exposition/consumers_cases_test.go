package exposition

import (
	"bytes"
	"slices"
	"testing"
)

// consumerCase is one problem class of the linter, in its smallest payload,
// with what each consumer does with it: a Prometheus server's scrape (the
// reference in server_ref_test.go) and expfmt (the linter's error rules).
type consumerCase struct {
	name    string
	payload string
	rule    string // the linter's error rule; "" when the linter finds no error
	server  string // ServerKept or ServerDropped
	expfmt  string // ExpfmtAccepted or ExpfmtRejected
}

var consumerCases = []consumerCase{
	{"go-escape-b", "a{b=\"x\\by\"} 1\n", RuleLabelValueBadEscape, ServerKept, ExpfmtRejected},
	{"go-escape-t", "a{b=\"x\\ty\"} 1\n", RuleLabelValueBadEscape, ServerKept, ExpfmtRejected},
	{"go-escape-u", "a{b=\"x\\u00e9\"} 1\n", RuleLabelValueBadEscape, ServerKept, ExpfmtRejected},
	{"doris-user-backslash", "doris_fe_query_total{user=\"a\\b\"} 5\n", RuleLabelValueBadEscape, ServerKept, ExpfmtRejected},
	{"escape-eats-closing-quote", "doris_fe_query_total{user=\"a\\\"} 5\n", RuleLabelValueBadEscape, ServerDropped, ExpfmtRejected},
	{"raw-quote", "a{b=\"x\"y\"} 1\n", RuleLabelValueRawQuote, ServerDropped, ExpfmtRejected},
	{"missing-comma", "a{b=\"c\" d=\"e\"} 1\n", RuleLabelValueRawQuote, ServerKept, ExpfmtRejected},
	{"label-set-two-names", "{\"a\",\"b\"} 1\n", RuleLabelSetSyntax, ServerDropped, ExpfmtRejected},
	{"name-bad-escape", "{\"a\\qb\"} 1\n", RuleNameBadEscape, ServerKept, ExpfmtRejected},
	{"raw-newline", "a{b=\"x\ny\"} 1\n", RuleLabelValueRawNewline, ServerKept, ExpfmtRejected},
	{"unterminated", "a{b=\"c\" 1\n", RuleLabelValueUnterminated, ServerDropped, ExpfmtRejected},
	{"invalid-utf8", "a{b=\"\xff\"} 1\n", RuleLabelValueInvalidUTF8, ServerDropped, ExpfmtRejected},
	{"not-quoted", "a{b=c} 1\n", RuleLabelValueNotQuoted, ServerDropped, ExpfmtRejected},
	{"label-name-invalid", "a{0b=\"c\"} 1\n", RuleLabelNameInvalid, ServerDropped, ExpfmtRejected},
	{"label-name-reserved", "a{__name__=\"x\"} 1\n", RuleLabelNameInvalid, ServerDropped, ExpfmtRejected},
	{"label-name-duplicate", "a{b=\"c\",b=\"d\"} 1\n", RuleLabelNameDuplicate, ServerDropped, ExpfmtRejected},
	{"metric-name-missing", "{b=\"c\"} 1\n", RuleMetricNameInvalid, ServerDropped, ExpfmtRejected},
	{"metric-name-digit", "1a 2\n", RuleMetricNameInvalid, ServerDropped, ExpfmtRejected},
	{"value-hex-float", "a 0x1p3\n", RuleSampleValueInvalid, ServerDropped, ExpfmtRejected},
	{"value-underscore", "a 1_000\n", RuleSampleValueInvalid, ServerDropped, ExpfmtRejected},
	{"value-word", "a b\n", RuleSampleValueInvalid, ServerDropped, ExpfmtRejected},
	{"value-crlf", "a{b=\"c\"} 1\r\n", RuleSampleValueInvalid, ServerDropped, ExpfmtRejected},
	{"timestamp-float", "a 1 1.5\n", RuleTimestampInvalid, ServerDropped, ExpfmtRejected},
	{"trailing-blank", "a 1 \n", RuleTrailingText, ServerKept, ExpfmtRejected},
	{"trailing-blank-after-ts", "a 1 2 \n", RuleTrailingText, ServerKept, ExpfmtRejected},
	{"trailing-token", "a 1 2 3\n", RuleTrailingText, ServerDropped, ExpfmtRejected},
	{"missing-final-newline", "a{b=\"x\"} 1", RuleMissingFinalNewline, ServerKept, ExpfmtRejected},
	{"help-duplicate", "# HELP a x\n# HELP a y\na 1\n", RuleHelpDuplicate, ServerKept, ExpfmtRejected},
	{"help-bad-escape", "# HELP a x\\y\na 1\n", RuleHelpBadEscape, ServerKept, ExpfmtRejected},
	{"type-duplicate", "# TYPE a gauge\n# TYPE a gauge\na 1\n", RuleTypeDuplicate, ServerKept, ExpfmtRejected},
	{"type-after-samples", "a 1\n# TYPE a gauge\na 2\n", RuleTypeAfterSamples, ServerKept, ExpfmtRejected},
	{"type-unknown", "# TYPE a foo\n", RuleTypeUnknown, ServerDropped, ExpfmtRejected},
	{"type-info", "# TYPE a info\na 1\n", RuleTypeUnknown, ServerDropped, ExpfmtRejected},
	{"quantile-invalid", "# TYPE s summary\ns{quantile=\"x\"} 1\n", RuleQuantileInvalid, ServerKept, ExpfmtRejected},
	{"le-bla", "# TYPE h histogram\nh_bucket{le=\"bla\"} 1\n", RuleBucketInvalid, ServerKept, ExpfmtRejected},
	{"histogram-negative-bucket", "# TYPE h histogram\nh_bucket{le=\"1\"} -1.5\n", RuleHistogramNegative, ServerKept, ExpfmtRejected},
	{"histogram-negative-count", "# TYPE h histogram\nh_count -1\n", RuleHistogramNegative, ServerKept, ExpfmtRejected},
	{"parser-crash", "# TYPE s summary\n# TYPE g gauge\n{s,a=\"b\"} 1\n", RuleParserCrash, ServerDropped, ExpfmtRejected},
	{"exemplar", "a_total{x=\"y\"} 0 # {trace_id=\"b\"} 0.5\n", RuleLabelValueRawQuote, ServerDropped, ExpfmtRejected},
	// No error for the linter (expfmt accepts), yet the server drops.
	{"timestamp-negative", "a 1 -5\n", "", ServerDropped, ExpfmtAccepted},
	{"type-gaugehistogram", "# TYPE a gaugehistogram\na 1\n", "", ServerDropped, ExpfmtAccepted},
	{"type-gauge-histogram", "# TYPE a gauge_histogram\na 1\n", "", ServerDropped, ExpfmtAccepted},
	{"help-not-utf8", "# HELP a \xff\n", "", ServerDropped, ExpfmtAccepted},
	{"type-escaped", "# TYPE a coun\\ter\n", "", ServerDropped, ExpfmtAccepted},
	// Warnings only: both keep it.
	{"duplicate-series", "a 1\na 1\n", "", ServerKept, ExpfmtAccepted},
	{"comment-not-utf8", "# x \xff\na 1\n", "", ServerKept, ExpfmtAccepted},
	{"eof-marker", "a 1\n# EOF\n", "", ServerKept, ExpfmtAccepted},
}

// TestConsumerCases: each case's payload gets exactly its rule from the
// linter, expfmt and the real server do what the case says, and
// RuleConsumers says the same (or "depends" where the class holds both).
func TestConsumerCases(t *testing.T) {
	for _, c := range consumerCases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.payload)
			res, err := Lint(bytes.NewReader(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, p := range res.Problems {
				if p.Severity == SeverityError && !slices.Contains(rules, p.Rule) {
					rules = append(rules, p.Rule)
				}
			}
			if c.rule == "" && len(rules) != 0 || c.rule != "" && !slices.Equal(rules, []string{c.rule}) {
				t.Errorf("linter errors %v, want [%s]", rules, c.rule)
			}
			perr, _ := expfmtVerdict(data)
			if got := map[bool]string{true: ExpfmtAccepted, false: ExpfmtRejected}[perr == nil]; got != c.expfmt {
				t.Errorf("expfmt %s (%v), want %s", got, perr, c.expfmt)
			}
			if got := serverKeeps(data); got != c.server {
				t.Errorf("the server %s (%s), want %s", got, serverVerdict(data), c.server)
			}
			pc := PayloadConsumers(res, data)
			if pc.PrometheusServer != c.server || pc.Expfmt != c.expfmt {
				t.Errorf("PayloadConsumers = %+v, want server %s expfmt %s", pc, c.server, c.expfmt)
			}
			if c.rule != "" {
				rc, ok := RuleConsumers(c.rule)
				if !ok || rc.Expfmt != ExpfmtRejected || (rc.Server != c.server && rc.Server != ServerDepends) {
					t.Errorf("RuleConsumers(%s) = %+v, want server %s", c.rule, rc, c.server)
				}
			}
		})
	}
}

// TestEveryErrorRuleIsClassified: no error rule of the linter is without
// the server's verdict, and every one but the two refusals (the line is
// not read) has a case that proves it.
func TestEveryErrorRuleIsClassified(t *testing.T) {
	cased := map[string]bool{}
	for _, c := range consumerCases {
		cased[c.rule] = true
	}
	for _, r := range Rules {
		if r.Severity != SeverityError {
			continue
		}
		if _, ok := ruleServer[r.Name]; !ok {
			t.Errorf("error rule %s has no server verdict in ruleServer", r.Name)
		}
		if !cased[r.Name] && r.Name != RuleLineTooLong && r.Name != RuleLabelLimit {
			t.Errorf("error rule %s has no consumer case", r.Name)
		}
	}
}
