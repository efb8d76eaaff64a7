package exposition

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 24 ("Fast and lean"): the linter's faster paths keep its verdicts.
// Speed itself is measured by the benchmarks (docs/performance.md), never
// asserted here.

func dupLines(res *Result) []string {
	var out []string
	for _, p := range res.Problems {
		if p.Rule == RuleDuplicateSeries {
			out = append(out, strconv.Itoa(p.Line)+":"+p.Message)
		}
	}
	return out
}

// A duplicate series is found whatever the label order or escaping, in the
// family's run and across its runs (a family that comes back).
func TestDuplicateSeriesFound(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"same line", "a{x=\"1\"} 1\na{x=\"1\"} 2\n", "2:line 1"},
		{"label order", "a{x=\"1\",y=\"2\"} 1\na{y=\"2\",x=\"1\"} 2\n", "2:line 1"},
		{"blanks", "a{x=\"1\"} 1\na{ x = \"1\" } 2\n", "2:line 1"},
		{"escaped value", "a{x=\"p\\\\q\\\"r\\n\"} 1\na{x=\"p\\\\q\\\"r\\n\"} 2\n", "2:line 1"},
		{"quoted label name", "a{x=\"1\"} 1\na{\"x\"=\"1\"} 2\n", "2:line 1"},
		{"after another family", "a{x=\"1\"} 1\nb 1\na{x=\"1\"} 2\n", "3:line 1"},
		{"after two runs", "a{x=\"1\"} 1\nb 1\na{x=\"2\"} 1\nc 1\na{x=\"1\"} 2\n", "5:line 1"},
		{"histogram parts", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\nh_sum 2\n", "5:line 3"},
		{"none", "a{x=\"1\"} 1\na{x=\"2\"} 1\na{y=\"1\"} 1\nb{x=\"1\"} 1\n", ""},
		{"value differs, not the series", "a{x=\"ab\"} 1\na{x=\"a\",b=\"\"} 1\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := dupLines(lintString(t, c.in))
			if c.want == "" {
				if len(got) > 0 {
					t.Fatalf("found %v, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], strings.Split(c.want, ":")[0]+":") || !strings.Contains(got[0], strings.Split(c.want, ":")[1]) {
				t.Fatalf("found %v, want one at %s", got, c.want)
			}
		})
	}
}

// A payload that alternates families makes the set of the current run
// re-read earlier runs; past a budget it turns into one table of all series,
// and still finds the duplicate.
func TestDuplicateSeriesAlternatingFamilies(t *testing.T) {
	var b bytes.Buffer
	const n = 40000
	for i := 0; i < n; i++ {
		fam := "a"
		if i%2 == 1 {
			fam = "b"
		}
		b.WriteString(fam + `{i="` + strconv.Itoa(i) + "\"} 1\n")
	}
	b.WriteString("a{i=\"6\"} 2\nb{i=\"7\"} 2\n")
	res, err := Lint(&b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := dupLines(res)
	if len(got) != 2 || !strings.Contains(got[0], "line 7") || !strings.Contains(got[1], "line 8") {
		t.Fatalf("duplicates %v, want lines %d and %d (of lines 7 and 8)", got, n+1, n+2)
	}
}

// The linter allocates nothing per line: twice the lines, the same
// allocations but for the tables that grow by doubling.
func TestLintAllocatesNothingPerLine(t *testing.T) {
	gen := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("# HELP m_seconds m\n# TYPE m_seconds gauge\n")
		for i := 0; i < n; i++ {
			b.WriteString(`m_seconds{db="d` + strconv.Itoa(i%7) + `",mv="mv_` + strconv.Itoa(i) + `",q="a\\b"} ` + strconv.Itoa(i) + "\n")
		}
		return b.Bytes()
	}
	allocs := func(data []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := Lint(bytes.NewReader(data), Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(gen(20000)), allocs(gen(80000))
	if large > small+20 {
		t.Fatalf("%v allocations for 20,000 lines, %v for 80,000: something allocates per line", small, large)
	}
}

// lineProblems are the problems a line rule raises: what stays the same
// whether a family is tracked or not (the per-family rules and the notice
// are not line rules).
func lineProblems(res *Result) []string {
	perFamily := map[string]bool{RuleHelpMissing: true, RuleCounterWithoutTotal: true, RuleNonCounterWithTotal: true,
		RuleCamelCase: true, RuleUnitAbbreviation: true, RuleNonBaseUnit: true, RuleTypeInName: true, RuleReservedChars: true,
		RuleReservedSuffix: true, RuleHistogramAsQuantiles: true, RuleFamiliesNotTracked: true, RuleReservedLabel: true}
	var out []string
	for _, p := range res.Problems {
		if !perFamily[p.Rule] {
			out = append(out, strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Col)+" "+p.Rule+" "+p.Family)
		}
	}
	return out
}

// Families beyond Options.MaxFamilies are parsed exactly as tracked ones:
// the same verdict and the same line problems on every seed and fixture,
// with a cap of one family (everything but the first untracked).
func TestUntrackedFamiliesKeepTheVerdict(t *testing.T) {
	inputs := append([]string{}, fuzzSeeds...)
	inputs = append(inputs,
		"# HELP a x\n# TYPE a gauge\na 1\n# HELP b y\n# TYPE b summary\nb{quantile=\"0.5\"} 1\nb_sum 1\nb_count 1\n# HELP b z\n",
		"# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\n# TYPE b counter\n",
		"# TYPE a gauge\na 1\nb 1\nc 1\nb{x=\"1\"} 2\n# TYPE b gauge\n",
		"# TYPE h histogram\n# TYPE g histogram\ng_bucket{le=\"1\"} 1\ng_sum 1\ng_count -1\n{g_bucket,le=\"x\"} 1\n",
		"a 1\nb{x=\"1\"} 1\nb{x=\"1\"} 1\nc 1\n{b, x=\"\\q\"} 1\n")
	files, _ := filepath.Glob("../fixtures/metrics/*.prom")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(data))
	}
	for _, in := range inputs {
		full, err := Lint(strings.NewReader(in), Options{})
		if err != nil {
			t.Fatal(err)
		}
		capped, err := Lint(strings.NewReader(in), Options{MaxFamilies: 1})
		if err != nil {
			t.Fatal(err)
		}
		if full.Parseable != capped.Parseable || full.Errors != capped.Errors || full.Series != capped.Series {
			t.Errorf("%.80q: parseable %v/%v, errors %d/%d, series %d/%d (tracked/capped)", in,
				full.Parseable, capped.Parseable, full.Errors, capped.Errors, full.Series, capped.Series)
			continue
		}
		if a, b := strings.Join(lineProblems(full), "\n"), strings.Join(lineProblems(capped), "\n"); a != b {
			t.Errorf("%.80q: line problems differ\ntracked:\n%s\ncapped:\n%s", in, a, b)
		}
		if n := len(full.Families); n > 1 && (capped.FamiliesNotTracked != n-1 || len(capped.Families) != 1) {
			t.Errorf("%.80q: %d families, capped lists %d and counts %d untracked", in, n, len(capped.Families), capped.FamiliesNotTracked)
		}
	}
}

func TestFamiliesNotTrackedSaysSo(t *testing.T) {
	res, err := Lint(bytes.NewReader(genFamilyPayload(50)), Options{MaxFamilies: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.FamiliesNotTracked != 30 || len(res.Families) != 20 || res.Series != 50 {
		t.Fatalf("%d families listed, %d not tracked, %d series", len(res.Families), res.FamiliesNotTracked, res.Series)
	}
	var notice *Problem
	for i := range res.Problems {
		if res.Problems[i].Rule == RuleFamiliesNotTracked {
			notice = &res.Problems[i]
		}
	}
	if notice == nil || notice.Line != 41 || !strings.Contains(notice.Message, "30 families") {
		t.Fatalf("notice %+v", notice)
	}
}

// Issue 24: 10^6 distinct families (one TYPE and one sample each, 53 MB)
// took 749 MB; the families beyond the cap cost a hash and 2 bytes. The
// bytes allocated bound the peak heap.
func TestMillionFamiliesBounded(t *testing.T) {
	data := familiesPayload(t)
	var res *Result
	alloc := allocatedBy(func() {
		var err error
		res, err = Lint(bytes.NewReader(data), callerOptions)
		if err != nil {
			t.Fatal(err)
		}
	})
	if alloc > 128<<20 {
		t.Errorf("linting 10^6 families allocated %d MB, budget 128 MB", alloc>>20)
	}
	if res.Series != manyFamilies || res.FamiliesNotTracked != manyFamilies-10000 || !res.Parseable {
		t.Errorf("%d series, %d families not tracked, parseable %v", res.Series, res.FamiliesNotTracked, res.Parseable)
	}
}

// TestDuplicateSeriesInLargeRuns: a duplicate is found after the run's
// table grew many times over and after hundreds of runs (the run table's
// generation wraps every 255 runs), and none is invented.
func TestDuplicateSeriesInLargeRuns(t *testing.T) {
	var b bytes.Buffer
	line := 0
	var want []int
	for f := 0; f < 600; f++ {
		n := 3
		if f%100 == 0 {
			n = 5000
		}
		name := "f" + strconv.Itoa(f)
		for i := 0; i < n; i++ {
			b.WriteString(name + `{i="` + strconv.Itoa(i) + "\"} 1\n")
			line++
		}
		b.WriteString(name + `{i="1"} 2` + "\n") // a duplicate of the run's second line
		line++
		want = append(want, line)
	}
	got := dupLines(lintString(t, b.String()))
	if len(got) != len(want) {
		t.Fatalf("found %d duplicates, want %d: %v", len(got), len(want), got[:min(len(got), 5)])
	}
	for k, g := range got {
		if !strings.HasPrefix(g, strconv.Itoa(want[k])+":") {
			t.Fatalf("duplicate %d at %s, want line %d", k, g, want[k])
		}
	}
}

// TestSkipPlainASCII: the word-at-a-time skip never passes a quote, a
// backslash, a line feed or a non-ASCII byte, and stops only in the word
// that holds one (or in the last 7 bytes).
func TestSkipPlainASCII(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c == '\n' || c >= 0x80 }
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab_09=, {}\"\\\n\x7f\x80\xff\x01!#")
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(6) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		from := rng.IntN(len(b) + 1)
		got := skipPlainASCII(b, from)
		first := from
		for first < len(b) && !special(b[first]) {
			first++
		}
		if got < from || got > first || (first-got >= 8 && got+8 <= len(b)) {
			t.Fatalf("skipPlainASCII(%q, %d) = %d; the first byte to look at is %d", b, from, got, first)
		}
	}
}

// TestDuplicateLabelAcrossANameInBraces: a line that names its family
// inside the braces, after a label, is checked for duplicate label names
// against its own labels, not against the label order of the family of
// the line before (which the first label matched).
func TestDuplicateLabelAcrossANameInBraces(t *testing.T) {
	in := "p{a=\"1\",c=\"1\"} 1\nq{z=\"1\",a=\"1\"} 1\np{a=\"2\",c=\"2\"} 1\n{a=\"3\",q,a=\"4\"} 1\n"
	for _, got := range rulesAt(lintString(t, in)) {
		if strings.HasPrefix(got, RuleLabelNameDuplicate+"@4:") {
			return
		}
	}
	t.Fatalf("no %s on line 4: %v", RuleLabelNameDuplicate, rulesAt(lintString(t, in)))
}
