package lint_test

import (
	"bytes"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/consumers"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
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
	{"go-escape-b", "a{b=\"x\\by\"} 1\n", exposition.RuleLabelValueBadEscape, consumers.ServerKept, consumers.ExpfmtRejected},
	{"go-escape-t", "a{b=\"x\\ty\"} 1\n", exposition.RuleLabelValueBadEscape, consumers.ServerKept, consumers.ExpfmtRejected},
	{"go-escape-u", "a{b=\"x\\u00e9\"} 1\n", exposition.RuleLabelValueBadEscape, consumers.ServerKept, consumers.ExpfmtRejected},
	{"doris-user-backslash", "doris_fe_query_total{user=\"a\\b\"} 5\n", exposition.RuleLabelValueBadEscape, consumers.ServerKept, consumers.ExpfmtRejected},
	{"escape-eats-closing-quote", "doris_fe_query_total{user=\"a\\\"} 5\n", exposition.RuleLabelValueBadEscape, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"raw-quote", "a{b=\"x\"y\"} 1\n", exposition.RuleLabelValueRawQuote, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"missing-comma", "a{b=\"c\" d=\"e\"} 1\n", exposition.RuleLabelValueRawQuote, consumers.ServerKept, consumers.ExpfmtRejected},
	{"label-set-two-names", "{\"a\",\"b\"} 1\n", exposition.RuleLabelSetSyntax, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"name-bad-escape", "{\"a\\qb\"} 1\n", exposition.RuleNameBadEscape, consumers.ServerKept, consumers.ExpfmtRejected},
	{"raw-newline", "a{b=\"x\ny\"} 1\n", exposition.RuleLabelValueRawNewline, consumers.ServerKept, consumers.ExpfmtRejected},
	{"unterminated", "a{b=\"c\" 1\n", exposition.RuleLabelValueUnterminated, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"invalid-utf8", "a{b=\"\xff\"} 1\n", exposition.RuleLabelValueInvalidUTF8, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"not-quoted", "a{b=c} 1\n", exposition.RuleLabelValueNotQuoted, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"label-name-invalid", "a{0b=\"c\"} 1\n", exposition.RuleLabelNameInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"label-name-reserved", "a{__name__=\"x\"} 1\n", exposition.RuleLabelNameInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"label-name-duplicate", "a{b=\"c\",b=\"d\"} 1\n", exposition.RuleLabelNameDuplicate, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"metric-name-missing", "{b=\"c\"} 1\n", exposition.RuleMetricNameInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"metric-name-digit", "1a 2\n", exposition.RuleMetricNameInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"value-hex-float", "a 0x1p3\n", exposition.RuleSampleValueInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"value-underscore", "a 1_000\n", exposition.RuleSampleValueInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"value-word", "a b\n", exposition.RuleSampleValueInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"value-crlf", "a{b=\"c\"} 1\r\n", exposition.RuleSampleValueInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"timestamp-float", "a 1 1.5\n", exposition.RuleTimestampInvalid, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"trailing-blank", "a 1 \n", exposition.RuleTrailingText, consumers.ServerKept, consumers.ExpfmtRejected},
	{"trailing-blank-after-ts", "a 1 2 \n", exposition.RuleTrailingText, consumers.ServerKept, consumers.ExpfmtRejected},
	{"trailing-token", "a 1 2 3\n", exposition.RuleTrailingText, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"missing-final-newline", "a{b=\"x\"} 1", exposition.RuleMissingFinalNewline, consumers.ServerKept, consumers.ExpfmtRejected},
	{"help-duplicate", "# HELP a x\n# HELP a y\na 1\n", exposition.RuleHelpDuplicate, consumers.ServerKept, consumers.ExpfmtRejected},
	{"help-bad-escape", "# HELP a x\\y\na 1\n", exposition.RuleHelpBadEscape, consumers.ServerKept, consumers.ExpfmtRejected},
	{"type-duplicate", "# TYPE a gauge\n# TYPE a gauge\na 1\n", exposition.RuleTypeDuplicate, consumers.ServerKept, consumers.ExpfmtRejected},
	{"type-after-samples", "a 1\n# TYPE a gauge\na 2\n", exposition.RuleTypeAfterSamples, consumers.ServerKept, consumers.ExpfmtRejected},
	{"type-unknown", "# TYPE a foo\n", exposition.RuleTypeUnknown, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"type-info", "# TYPE a info\na 1\n", exposition.RuleTypeUnknown, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"quantile-invalid", "# TYPE s summary\ns{quantile=\"x\"} 1\n", exposition.RuleQuantileInvalid, consumers.ServerKept, consumers.ExpfmtRejected},
	{"le-bla", "# TYPE h histogram\nh_bucket{le=\"bla\"} 1\n", exposition.RuleBucketInvalid, consumers.ServerKept, consumers.ExpfmtRejected},
	{"histogram-negative-bucket", "# TYPE h histogram\nh_bucket{le=\"1\"} -1.5\n", exposition.RuleHistogramNegative, consumers.ServerKept, consumers.ExpfmtRejected},
	{"histogram-negative-count", "# TYPE h histogram\nh_count -1\n", exposition.RuleHistogramNegative, consumers.ServerKept, consumers.ExpfmtRejected},
	{"parser-crash", "# TYPE s summary\n# TYPE g gauge\n{s,a=\"b\"} 1\n", exposition.RuleParserCrash, consumers.ServerDropped, consumers.ExpfmtRejected},
	{"exemplar", "a_total{x=\"y\"} 0 # {trace_id=\"b\"} 0.5\n", exposition.RuleLabelValueRawQuote, consumers.ServerDropped, consumers.ExpfmtRejected},
	// No error for the linter (expfmt accepts), yet the server drops.
	{"timestamp-negative", "a 1 -5\n", "", consumers.ServerDropped, consumers.ExpfmtAccepted},
	{"type-gaugehistogram", "# TYPE a gaugehistogram\na 1\n", "", consumers.ServerDropped, consumers.ExpfmtAccepted},
	{"type-gauge-histogram", "# TYPE a gauge_histogram\na 1\n", "", consumers.ServerDropped, consumers.ExpfmtAccepted},
	{"help-not-utf8", "# HELP a \xff\n", "", consumers.ServerDropped, consumers.ExpfmtAccepted},
	{"type-escaped", "# TYPE a coun\\ter\n", "", consumers.ServerDropped, consumers.ExpfmtAccepted},
	// Warnings only: both keep it.
	{"duplicate-series", "a 1\na 1\n", "", consumers.ServerKept, consumers.ExpfmtAccepted},
	{"comment-not-utf8", "# x \xff\na 1\n", "", consumers.ServerKept, consumers.ExpfmtAccepted},
	{"eof-marker", "a 1\n# EOF\n", "", consumers.ServerKept, consumers.ExpfmtAccepted},
}

// TestConsumerCases: each case's payload gets exactly its rule from the
// linter, expfmt and the real server do what the case says, and
// RuleConsumers says the same (or "depends" where the class holds both).
func TestConsumerCases(t *testing.T) {
	for _, c := range consumerCases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.payload)
			res, err := lint.Lint(bytes.NewReader(data), exposition.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, p := range res.Problems {
				if p.Severity == exposition.SeverityError && !slices.Contains(rules, p.Rule) {
					rules = append(rules, p.Rule)
				}
			}
			if c.rule == "" && len(rules) != 0 || c.rule != "" && !slices.Equal(rules, []string{c.rule}) {
				t.Errorf("linter errors %v, want [%s]", rules, c.rule)
			}
			perr, _ := lint.ExpfmtVerdict(data)
			if got := map[bool]string{true: consumers.ExpfmtAccepted, false: consumers.ExpfmtRejected}[perr == nil]; got != c.expfmt {
				t.Errorf("expfmt %s (%v), want %s", got, perr, c.expfmt)
			}
			if got := serverKeeps(data); got != c.server {
				t.Errorf("the server %s (%s), want %s", got, serverVerdict(data), c.server)
			}
			pc := consumers.PayloadConsumers(res, data)
			if pc.PrometheusServer != c.server || pc.Expfmt != c.expfmt {
				t.Errorf("PayloadConsumers = %+v, want server %s expfmt %s", pc, c.server, c.expfmt)
			}
			if c.rule != "" {
				rc, ok := consumers.RuleConsumers(c.rule)
				if !ok || rc.Expfmt != consumers.ExpfmtRejected || (rc.Server != c.server && rc.Server != consumers.ServerDepends) {
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
	for _, r := range exposition.Rules {
		if r.Severity != exposition.SeverityError {
			continue
		}
		if c, _ := consumers.RuleConsumers(r.Name); c.ServerNote == "not classified: assumed dropped" { // no entry in ruleServer
			t.Errorf("error rule %s has no server verdict in ruleServer", r.Name)
		}
		if !cased[r.Name] && r.Name != exposition.RuleLineTooLong && r.Name != exposition.RuleLabelLimit {
			t.Errorf("error rule %s has no consumer case", r.Name)
		}
	}
}
