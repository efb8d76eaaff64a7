package exposition

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenNow is the instant the fixtures were written for (their
// last_sample_timestamp is 10 s before it).
var goldenNow = time.Unix(1796083200, 0).UTC()

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
		t.Fatalf("%v (run go test ./exposition -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./exposition -update and review the diff\n--- got\n%s", path, got)
	}
}

// renderResult is a plain, deterministic dump of a lint and fix run.
func renderResult(name string, res *Result, conf []Problem, rep *FixReport, fixed []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "fixture: %s\n", name)
	fmt.Fprintf(&b, "parseable: %v  series: %d  lines: %d  bytes: %d  errors: %d  warnings: %d  infos: %d\n",
		res.Parseable, res.Series, res.Lines, res.Bytes, res.Errors, res.Warnings, res.Infos)
	b.WriteString("problems:\n")
	for _, p := range append(append([]Problem(nil), res.Problems...), conf...) {
		fmt.Fprintf(&b, "  %d:%d %s %s", p.Line, p.Col, p.Severity, p.Rule)
		if p.Family != "" {
			fmt.Fprintf(&b, " family=%s", p.Family)
		}
		if p.Label != "" {
			fmt.Fprintf(&b, " label=%s", p.Label)
		}
		if p.Value != "" {
			fmt.Fprintf(&b, " value=\"%s\"", p.Value)
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
	if rep != nil {
		fmt.Fprintf(&b, "fix: ok=%v changes=%d unrepaired=%d\n", rep.OK, len(rep.Changes), len(rep.Unrepaired))
		for _, c := range rep.Changes {
			fmt.Fprintf(&b, "  %d label=%s %s: \"%s\" -> \"%s\"\n", c.Line, c.Label, c.What, c.Before, c.After)
		}
		for _, p := range rep.Unrepaired {
			fmt.Fprintf(&b, "  unrepaired %d:%d %s\n", p.Line, p.Col, p.Rule)
		}
		perr, _ := expfmtVerdict(fixed)
		fmt.Fprintf(&b, "  fixed output parses with expfmt: %v\n", perr == nil)
	}
	return []byte(b.String())
}

func TestGoldenFixtures(t *testing.T) {
	files, err := filepath.Glob("../fixtures/metrics/*.prom")
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
			res, err := Lint(bytes.NewReader(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			conf := Conform(res, ConformOptions{Now: goldenNow})
			// The verdict agrees with expfmt on every fixture.
			perr, _ := expfmtVerdict(data)
			if (perr == nil) != res.Parseable {
				t.Errorf("linter parseable=%v, expfmt error=%v", res.Parseable, perr)
			}
			var out bytes.Buffer
			rep, err := Fix(bytes.NewReader(data), &out, Options{})
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

// docs/metrics.md carries the rule tables generated from Rules and
// ConformanceRules; -update rewrites them.
func TestRulesDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "docs", "metrics.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	table := func(rules []Rule) string {
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
		rules []Rule
	}{{"lint", Rules}, {"design", ConformanceRules}} {
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
		t.Errorf("%s rule tables are out of date: run go test ./exposition -run TestRulesDocUpToDate -update", path)
	}
}
