package metrics

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden and the rule tables of docs/metrics.md")

// goldenNow is the instant the fixtures were written for (their
// last_sample_timestamp is 10 s before it).
var goldenNow = time.Unix(1796083200, 0).UTC()

// lint lints a payload as every Doris caller does: with LintOptions.
func lint(t testing.TB, payload string) *exposition.Result {
	t.Helper()
	res, err := exposition.Lint(strings.NewReader(payload), LintOptions(exposition.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./diag/metrics -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./diag/metrics -update and review the diff\n--- got\n%s", path, got)
	}
}

// expfmtParses: Prometheus's own parser accepts data (a panic is a no).
func expfmtParses(data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := expfmt.NewTextParser(model.UTF8Validation)
	_, err := p.TextToMetricFamilies(bytes.NewReader(data))
	return err == nil
}

// renderResult is a plain, deterministic dump of a lint, conformance and
// fix run.
func renderResult(name string, res *exposition.Result, conf []exposition.Problem, rep *fix.Report, fixed []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "fixture: %s\n", name)
	fmt.Fprintf(&b, "parseable: %v  series: %d  lines: %d  bytes: %d  errors: %d  warnings: %d  infos: %d\n",
		res.Parseable, res.Series, res.Lines, res.Bytes, res.Errors, res.Warnings, res.Infos)
	b.WriteString("problems:\n")
	for _, p := range append(append([]exposition.Problem(nil), res.Problems...), conf...) {
		fmt.Fprintf(&b, "  %d:%d %s %s", p.Line, p.Col, p.Severity, p.Rule)
		if p.Family != "" {
			fmt.Fprintf(&b, " family=%s", p.Family)
		}
		if p.Label != "" {
			fmt.Fprintf(&b, " label=%s", p.Label)
		}
		if p.Value != "" {
			fmt.Fprintf(&b, " value=\"%s\"", p.DisplayValue())
		}
		fmt.Fprintf(&b, "\n      %s\n", p.Message)
		if p.Fix != "" {
			fmt.Fprintf(&b, "      fix: %s\n", p.Fix)
		}
	}
	b.WriteString("families:\n")
	for _, f := range res.Families {
		fmt.Fprintf(&b, "  %s %s help=%v series=%d line=%d labels=%s\n", f.Name, f.Type, f.Help, f.Series, f.Line, strings.Join(f.Labels, ","))
	}
	fmt.Fprintf(&b, "fix: ok=%v changes=%d unrepaired=%d\n", rep.OK, len(rep.Changes), len(rep.Unrepaired))
	for _, c := range rep.Changes {
		fmt.Fprintf(&b, "  %d label=%s %s: \"%s\" -> \"%s\"\n", c.Line, c.Label, c.What, exposition.DisplayValue([]byte(c.Before)), exposition.DisplayValue([]byte(c.After)))
	}
	for _, p := range rep.Unrepaired {
		fmt.Fprintf(&b, "  unrepaired %d:%d %s\n", p.Line, p.Col, p.Rule)
	}
	fmt.Fprintf(&b, "  fixed output parses with expfmt: %v\n", expfmtParses(fixed))
	return []byte(b.String())
}

// TestGoldenFixtures lints, checks and fixes every Doris /metrics fixture
// with the Doris profile: the known quirks named, the design's rules run.
func TestGoldenFixtures(t *testing.T) {
	files, err := filepath.Glob("../../fixtures/metrics/*.prom")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".prom")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res := lint(t, string(data))
			conf := Conform(res, ConformOptions{Now: goldenNow})
			if expfmtParses(data) != res.Parseable {
				t.Errorf("linter parseable=%v, expfmt disagrees", res.Parseable)
			}
			var out bytes.Buffer
			rep, err := fix.Fix(bytes.NewReader(data), &out, LintOptions(exposition.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			if res.Parseable && !bytes.Equal(out.Bytes(), data) {
				t.Errorf("Fix changed a payload that parses")
			}
			checkGolden(t, name, renderResult(name, res, conf, &rep, out.Bytes()))
		})
	}
}

// lintRuleDocs are the lint rules as a Doris payload meets them: the
// generic rule, and what the FE or BE does that makes it fire. docs/metrics.md
// lists the lint rules so.
var lintRuleDocs = map[string]string{
	exposition.RuleDuplicateSeries:      `the same name and label set appears twice; Prometheus drops one sample (the Doris FE overwrites registrations with the same name and labels)`,
	exposition.RuleValueNaN:             `NaN in a changelog/IVM series, which the design forbids (apache/doris#69907 "Unknown values")`,
	exposition.RuleHelpMissing:          `a family without HELP (the Doris BE prints TYPE lines only)`,
	exposition.RuleHistogramAsQuantiles: `a histogram-typed family has no le buckets (the Doris BE prints histograms as quantiles)`,
	exposition.RuleSpaceBeforeLabels:    `a blank between the metric name and '{' (the Doris FE prints summaries as "x_sum {} 1")`,
}

// TestRulesDocUpToDate: docs/metrics.md carries the rule tables generated
// from exposition.Rules (as a Doris payload meets them) and
// ConformanceRules; -update rewrites them.
func TestRulesDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "metrics.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name := range lintRuleDocs {
		if _, ok := exposition.RuleByName(name); !ok {
			t.Errorf("lintRuleDocs: no lint rule %s", name)
		}
	}
	var lintRules []exposition.Rule
	for _, r := range exposition.Rules {
		if d, ok := lintRuleDocs[r.Name]; ok {
			r.Doc = d
		}
		lintRules = append(lintRules, r)
	}
	table := func(rules []exposition.Rule) string {
		var b strings.Builder
		b.WriteString("| rule | severity | what it means |\n|---|---|---|\n")
		for _, r := range rules {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Name, r.Severity, strings.ReplaceAll(r.Doc, "|", `\|`))
		}
		return b.String()
	}
	got := string(doc)
	for _, sec := range []struct {
		name  string
		rules []exposition.Rule
	}{{"lint", lintRules}, {"design", ConformanceRules}} {
		begin, end := "<!-- rules:"+sec.name+":begin -->\n", "<!-- rules:"+sec.name+":end -->"
		i, j := strings.Index(got, begin), strings.Index(got, end)
		if i < 0 || j < i {
			t.Fatalf("%s: markers for %s missing", path, sec.name)
		}
		got = got[:i+len(begin)] + table(sec.rules) + got[j:]
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(doc) {
		t.Errorf("%s rule tables are out of date: run go test ./diag/metrics -run TestRulesDocUpToDate -update", path)
	}
}

// TestConformanceRulesDocumented: each rule once, with a severity and a doc.
func TestConformanceRulesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range ConformanceRules {
		if seen[r.Name] {
			t.Errorf("duplicate rule %s", r.Name)
		}
		seen[r.Name] = true
		if _, clash := exposition.RuleByName(r.Name); clash {
			t.Errorf("rule %s is also a lint rule", r.Name)
		}
		if r.Doc == "" || (r.Severity != exposition.SeverityWarning && r.Severity != exposition.SeverityInfo) {
			t.Errorf("rule %s: severity %q doc %q", r.Name, r.Severity, r.Doc)
		}
	}
}

// TestProfileNotes: the Doris profile keeps the design's families and
// node_info, reports NaN in them with the design's words, and names a quirk
// only on a family Doris renders today and only at its site.
func TestProfileNotes(t *testing.T) {
	find := func(res *exposition.Result, rule, family string) *exposition.Problem {
		for i := range res.Problems {
			if p := &res.Problems[i]; p.Rule == rule && p.Family == family {
				return p
			}
		}
		return nil
	}
	res := lint(t, "# TYPE doris_be_cpu counter\ndoris_be_cpu 1\n"+
		"# TYPE doris_fe_ivm_mv_thing counter\ndoris_fe_ivm_mv_thing 1\n"+
		"# TYPE doris_fe_ivm_mvs gauge\ndoris_fe_ivm_mvs{state=\"fresh\"} NaN\n"+
		"# TYPE doris_fe_x_bucket gauge\ndoris_fe_x_bucket 1\n"+
		"# TYPE doris_fe_x_count gauge\ndoris_fe_x_count 1\n"+
		"# TYPE doris_be_h histogram\ndoris_be_h{quantile=\"0.5\"} 1\n"+
		"node_info{type=\"is_master\"} 1\nother_metric NaN\n")
	for _, tc := range []struct{ rule, family, want string }{
		{exposition.RuleCounterWithoutTotal, "doris_be_cpu", `counter metrics should have "_total" suffix (known Doris quirk: Doris counters such as doris_fe_query_err and doris_be_cpu have no _total)`},
		{exposition.RuleHelpMissing, "doris_be_cpu", "no HELP text (known Doris quirk: the BE prints TYPE lines only)"},
		{exposition.RuleCounterWithoutTotal, "doris_fe_ivm_mv_thing", `counter metrics should have "_total" suffix`},
		{exposition.RuleHelpMissing, "doris_fe_ivm_mvs", "no HELP text"},
		{exposition.RuleValueNaN, "doris_fe_ivm_mvs", nanMessage},
		{exposition.RuleReservedSuffix, "doris_fe_x_bucket", `non-histogram metrics should not have "_bucket" suffix`},
		{exposition.RuleReservedSuffix, "doris_fe_x_count", `non-histogram and non-summary metrics should not have "_count" suffix (known Doris quirk: counters named _count)`},
		{exposition.RuleReservedLabel, "doris_be_h", `non-summary metrics should not have "quantile" label (known Doris quirk: the BE prints histograms as quantiles)`},
	} {
		p := find(res, tc.rule, tc.family)
		if p == nil || p.Message != tc.want {
			t.Errorf("%s on %s: got %+v, want %q", tc.rule, tc.family, p, tc.want)
		}
	}
	if p := find(res, exposition.RuleValueNaN, "other_metric"); p != nil {
		t.Errorf("NaN outside the design reported: %+v", p)
	}
	if len(res.Samples) != 3 || !IsMaster(res) {
		t.Errorf("kept %+v; want the two doris_fe_ivm_* samples and node_info", res.Samples)
	}
	if again := LintOptions(LintOptions(exposition.Options{MaxProblems: 7})); again.MaxProblems != 7 || again.Family == nil || again.Note == nil {
		t.Error("LintOptions loses the caller's bounds or its own hooks")
	}
}
