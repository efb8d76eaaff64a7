package exposition

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFamilyPolicy: Lint keeps the samples of the families the caller asks
// for, reports NaN where it says so, and asks once per family.
func TestFamilyPolicy(t *testing.T) {
	payload := "# TYPE app_jobs gauge\napp_jobs{queue=\"a\"} 1\napp_jobs{queue=\"b\"} NaN\nother 2\nother_nan NaN\napp_jobs_total 3\n"
	res := lintString(t, payload)
	if len(res.Samples) != 0 || res.SamplesNotKept != 0 {
		t.Fatalf("no policy, yet kept %+v", res.Samples)
	}
	for _, p := range res.Problems {
		if p.Rule == RuleValueNaN {
			t.Fatalf("no policy, yet %+v", p)
		}
	}
	asked := map[string]int{}
	opts := Options{Family: func(name string) FamilyPolicy {
		asked[name]++
		app := strings.HasPrefix(name, "app_")
		return FamilyPolicy{Keep: app, NoNaN: app}
	}}
	res, err := Lint(strings.NewReader(payload), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 3 || res.Samples[1].Labels["queue"] != "b" || res.Samples[2].Name != "app_jobs_total" || res.Samples[2].Line != 6 {
		t.Errorf("kept %+v", res.Samples)
	}
	for name, n := range asked {
		if n != 1 {
			t.Errorf("asked %d times about %s", n, name)
		}
	}
	var nan []Problem
	for _, p := range res.Problems {
		if p.Rule == RuleValueNaN {
			nan = append(nan, p)
		}
	}
	if len(nan) != 1 || nan[0].Line != 3 || nan[0].Col != 21 || nan[0].Family != "app_jobs" || nan[0].Value != "NaN" {
		t.Errorf("value-nan: %+v", nan)
	}
	opts.MaxSamples = 2
	res, _ = Lint(strings.NewReader(payload), opts)
	if len(res.Samples) != 2 || res.SamplesNotKept != 1 {
		t.Errorf("MaxSamples 2: kept %d, not kept %d", len(res.Samples), res.SamplesNotKept)
	}
}

// TestNote: a caller's note rewords the message and the fix of a problem,
// never its rule, severity or place, and a clean payload never calls it.
func TestNote(t *testing.T) {
	calls := 0
	note := func(p Problem, typ string) (string, string) {
		calls++
		if p.Rule == RuleCounterWithoutTotal && typ == "counter" {
			return p.Message + " (the producer's habit)", "leave it"
		}
		return p.Message, p.Fix
	}
	if _, err := Lint(strings.NewReader("# HELP a_total x\n# TYPE a_total counter\na_total 1\n"), Options{Note: note}); err != nil || calls != 0 {
		t.Fatalf("a clean payload called Note %d times (%v)", calls, err)
	}
	plain := lintString(t, "# TYPE jobs counter\njobs 1\n")
	res, err := Lint(strings.NewReader("# TYPE jobs counter\njobs 1\n"), Options{Note: note})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != len(plain.Problems) {
		t.Fatalf("%+v vs %+v", res.Problems, plain.Problems)
	}
	for i, p := range res.Problems {
		q := plain.Problems[i]
		q.Message, q.Fix = p.Message, p.Fix
		if p != q {
			t.Errorf("Note changed more than the message and fix: %+v vs %+v", p, plain.Problems[i])
		}
		if p.Rule == RuleCounterWithoutTotal && (p.Message != `counter metrics should have "_total" suffix (the producer's habit)` || p.Fix != "leave it") {
			t.Errorf("%+v", p)
		}
	}
}

// TestNoProducerKnowledge: the package and the packages under it
// (exposition/fix, exposition/consumers) lint any producer; what one
// producer does is its caller's (diag/metrics for Doris). The module's
// import path is no knowledge of a producer.
func TestNoProducerKnowledge(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, sub...)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(`"github.com/dorisdiag/dorisdiag/`), []byte(`"module/`))
		if i := strings.Index(strings.ToLower(string(b)), "doris"); i >= 0 {
			t.Errorf("%s:%d names a producer: %q", name, strings.Count(string(b[:i]), "\n")+1, lineAt(string(b), i))
		}
	}
}

// TestRootImportsNothingOfTheModule: exposition is the bottom layer —
// grammar, bounded sets, the lint engine — and the packages of the module
// that use it stand above it (exposition/fix, exposition/consumers), so no
// non-test file of it imports a package of the module: issue 19's
// `grep -ril doris exposition/*.go` finds nothing, with no exception for
// the module's import path.
func TestRootImportsNothingOfTheModule(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == path || strings.HasPrefix(p, path+"/") {
				t.Errorf("%s imports %s: exposition imports nothing of the module (a package that needs it stands above it)", fset.Position(imp.Pos()), p)
			}
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(strings.ToLower(string(b)), "doris"); i >= 0 {
			t.Errorf("%s:%d: %q: grep -ril doris exposition/*.go finds it", name, strings.Count(string(b[:i]), "\n")+1, lineAt(string(b), i))
		}
	}
}

func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}
