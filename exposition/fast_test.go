package exposition

import (
	"bytes"
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
