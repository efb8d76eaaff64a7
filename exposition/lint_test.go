package exposition

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func lintString(t *testing.T, s string) *Result {
	t.Helper()
	res, err := Lint(strings.NewReader(s), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rulesAt(res *Result) []string {
	var out []string
	for _, p := range res.Problems {
		if p.Severity == SeverityError {
			out = append(out, p.Rule+"@"+strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Col)+"/"+p.Label)
		}
	}
	return out
}

func TestRawQuoteHeuristic(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// The quote after x is not followed by ',' or '}': it is inside the value.
		{"a{a=\"x\"y\", b=\"z\"} 1\n", []string{"label-value-raw-quote@1:7/a"}},
		// The ambiguous case: "x", y" could close after x; the rest (` y", b="z"}`)
		// does not parse, so the value runs to the quote before ", b=".
		{"a{a=\"x\", y\", b=\"z\"} 1\n", []string{"label-value-raw-quote@1:7/a"}},
		// A raw quote in a later value does not move the blame to an earlier one.
		{"a{d=\"demo\", t=\"cust\"omer\"} 1\n", []string{"label-value-raw-quote@1:20/t"}},
		// Doris user "a\" written raw: the backslash belongs to the value.
		{"a{user=\"a\\\"} 1\n", []string{"label-value-bad-escape@1:10/user"}},
		// Five escaping errors on one line, all reported.
		{"a{u=\"a\\b\", t=\"x\"y\", q=\"\\t\", x=\"\\x41\", e=\"\\u00e9\"} 1\n",
			[]string{"label-value-bad-escape@1:7/u", "label-value-raw-quote@1:16/t", "label-value-bad-escape@1:24/q", "label-value-bad-escape@1:32/x", "label-value-bad-escape@1:42/e"}},
	}
	for _, tc := range tests {
		res := lintString(t, tc.in)
		got := rulesAt(res)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q:\n got  %v\n want %v", tc.in, got, tc.want)
		}
	}
}

func TestLineFeedRejoined(t *testing.T) {
	in := "# TYPE a gauge\na{mv=\"x\ny\", b=\"c\"} 1\nb 2\n"
	res := lintString(t, in)
	if got := rulesAt(res); len(got) != 1 || got[0] != "label-value-raw-newline@2:8/mv" {
		t.Fatalf("%v", got)
	}
	if res.Series != 2 {
		t.Errorf("series %d, want 2 (the split sample and b)", res.Series)
	}
}

func TestKeepsGoingAfterErrors(t *testing.T) {
	in := "a{u=\"a\\b\"} 1\nb{ 2\nc 1_0\n# TYPE d nope\nd{x=\"y\"} 1\ne 1 2 3\n"
	res := lintString(t, in)
	lines := map[int]bool{}
	for _, p := range res.Problems {
		if p.Severity == SeverityError {
			lines[p.Line] = true
		}
	}
	for _, l := range []int{1, 2, 3, 4, 6} {
		if !lines[l] {
			t.Errorf("no error on line %d: %v", l, rulesAt(res))
		}
	}
	if lines[5] {
		t.Errorf("line 5 is fine: %v", rulesAt(res))
	}
}

func TestHostileLinesStayFast(t *testing.T) {
	for _, in := range []string{
		"a{" + strings.Repeat(`b="\",",`, 20000) + "} x\n",
		"a{b=\"" + strings.Repeat(`",`, 50000) + "\n",
		strings.Repeat("a{b=\"x\ny\"} 1\n", 5000),
	} {
		start := time.Now()
		lintString(t, in)
		t.Logf("%d bytes: %v", len(in), time.Since(start))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%d bytes took %v", len(in), d)
		}
	}
}

func TestNonUTF8AndLimits(t *testing.T) {
	res := lintString(t, "# HELP a caf\xe9\na{b=\"caf\xe9\"} 1\n")
	var rules []string
	for _, p := range res.Problems {
		rules = append(rules, p.Rule)
	}
	if !strings.Contains(strings.Join(rules, " "), RuleNonUTF8Text) || !strings.Contains(strings.Join(rules, " "), RuleLabelValueInvalidUTF8) {
		t.Errorf("%v", rules)
	}
	if _, err := Lint(strings.NewReader(strings.Repeat("a 1\n", 1000)), Options{MaxBytes: 100}); err == nil {
		t.Error("want a size limit error")
	}
	var many strings.Builder
	for i := 0; i < 50; i++ {
		many.WriteString("a{i=\"" + strconv.Itoa(i) + "\", b=\"\\q\"} 1\n")
	}
	res, _ = Lint(strings.NewReader(many.String()), Options{MaxProblems: 10})
	if len(res.Problems) != 11 || res.Suppressed[RuleLabelValueBadEscape]+res.Suppressed[RuleHelpMissing] != 41 || res.Errors != 50 {
		t.Errorf("suppression: %d problems, %v, errors %d", len(res.Problems), res.Suppressed, res.Errors)
	}
}

func TestRulesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.Name] {
			t.Errorf("duplicate rule %s", r.Name)
		}
		seen[r.Name] = true
		if r.Doc == "" || (r.Severity != SeverityError && r.Severity != SeverityWarning && r.Severity != SeverityInfo) {
			t.Errorf("rule %s: severity %q doc %q", r.Name, r.Severity, r.Doc)
		}
	}
}

func TestInvalidUTF8Escaped(t *testing.T) {
	// An invalid byte after an escape must still be caught (the ASCII fast
	// path must not carry over from a previous value).
	res := lintString(t, "a{x=\"ok\", y=\"\\\\\xff\"} 1\n")
	if got := rulesAt(res); len(got) != 1 || !strings.HasPrefix(got[0], RuleLabelValueInvalidUTF8) {
		t.Fatalf("%v", got)
	}
	res = lintString(t, "{\"caf\xe9\"} 1\n")
	if res.Parseable {
		t.Fatal("invalid UTF-8 quoted name accepted")
	}
}
