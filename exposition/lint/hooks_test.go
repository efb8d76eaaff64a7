package lint

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/exposition"
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
		if p.Rule == exposition.RuleValueNaN {
			t.Fatalf("no policy, yet %+v", p)
		}
	}
	asked := map[string]int{}
	opts := exposition.Options{Family: func(name string) exposition.FamilyPolicy {
		asked[name]++
		app := strings.HasPrefix(name, "app_")
		return exposition.FamilyPolicy{Keep: app, NoNaN: app}
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
	var nan []exposition.Problem
	for _, p := range res.Problems {
		if p.Rule == exposition.RuleValueNaN {
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
	note := func(p exposition.Problem, typ string) (string, string) {
		calls++
		if p.Rule == exposition.RuleCounterWithoutTotal && typ == "counter" {
			return p.Message + " (the producer's habit)", "leave it"
		}
		return p.Message, p.Fix
	}
	if _, err := Lint(strings.NewReader("# HELP a_total x\n# TYPE a_total counter\na_total 1\n"), exposition.Options{Note: note}); err != nil || calls != 0 {
		t.Fatalf("a clean payload called Note %d times (%v)", calls, err)
	}
	plain := lintString(t, "# TYPE jobs counter\njobs 1\n")
	res, err := Lint(strings.NewReader("# TYPE jobs counter\njobs 1\n"), exposition.Options{Note: note})
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
		if p.Rule == exposition.RuleCounterWithoutTotal && (p.Message != `counter metrics should have "_total" suffix (the producer's habit)` || p.Fix != "leave it") {
			t.Errorf("%+v", p)
		}
	}
}
