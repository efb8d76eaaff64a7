package mv_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/fixtures"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// trueCause is the problem each incident MV was built with (BRIEF.md scenario
// plan, scenario/scenarios/EXPECTED.md): `mv explain` must name it first.
var trueCause = map[string]string{
	"mv_orders_daily":    "MV_CONSECUTIVE_FAILURES",
	"mv_customer_ltv":    "MV_NEXT_REFRESH_RECOMPUTES",
	"mv_revenue":         "MV_FALLBACKS_REPEATED",
	"mv_items_summary":   "MV_TASK_QUEUED_LONG",
	"mv_payments_rollup": "MV_CHANGELOG_BROKEN",
	"mv_inventory":       "MV_JOB_PAUSED",
	"mv_product_sales":   "MV_EXCLUDED_DEPENDENCY_OUTDATED",
	"mv_events_hourly":   "MV_ROWS_MAY_BE_MISSED",
	"mv_sales_rebuild":   "MV_REBUILD_REQUIRED", // incident only: legacy cannot see a dirty partition
	"mv_big_join":        "MV_TASK_STUCK_RUNNING",
}

func scenarioMVs(t *testing.T, name string) *mv.Result {
	t.Helper()
	s, err := scenario.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return mv.Analyze([]*snapshot.Snapshot{s}, nil, mv.Options{})
}

// TestScenarioMVExpectations: every MV-area code a scenario plants is found.
func TestScenarioMVExpectations(t *testing.T) {
	for _, name := range []string{"incident", "legacy"} {
		r := scenarioMVs(t, name)
		exps, err := fixtures.Expectations(name)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range exps {
			if e.Kind != "mv" {
				continue
			}
			n++
			found := false
			for _, f := range r.Findings {
				if e.Matches(f.Code.String(), f.Object.Kind, f.Object.DB, f.Object.Name, f.Object.Partition) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: expected %s on %s.%s not found", name, e.Code, e.DB, e.Name)
			}
		}
		if n == 0 {
			t.Errorf("%s: no MV expectations", name)
		}
	}
}

func TestScenarioHealthyMVsFresh(t *testing.T) {
	r := scenarioMVs(t, "healthy")
	if len(r.MVs) == 0 {
		t.Fatal("healthy: no MVs")
	}
	for _, m := range r.MVs {
		if m.FreshnessState != mv.FreshFresh {
			t.Errorf("healthy %s: %s (%s)", m.Name, m.FreshnessState, m.StateReason)
		}
	}
	if len(r.Findings) != 0 {
		t.Errorf("healthy: %d MV findings, first %s %s", len(r.Findings), r.Findings[0].Code, r.Findings[0].Summary)
	}
}

// TestScenarioTrueCauseFirst: the headline names the planted cause first,
// on the build with the seed's tables and on the legacy one.
func TestScenarioTrueCauseFirst(t *testing.T) {
	for _, name := range []string{"incident", "legacy"} {
		r := scenarioMVs(t, name)
		for mv, code := range trueCause {
			if name == "legacy" && code == "MV_REBUILD_REQUIRED" {
				m := r.ByName("demo", mv)
				if m == nil || len(m.Undetectable) == 0 {
					t.Errorf("legacy %s: must say a dirty partition cannot be seen", mv)
				}
				continue
			}
			fs := r.FindingsFor("demo", mv)
			if len(fs) == 0 || fs[0].Code.String() != code {
				var got []string
				for _, f := range fs {
					got = append(got, f.Code.String())
				}
				t.Errorf("%s %s: causes %v, want %s first", name, mv, got, code)
				continue
			}
			m := r.ByName("demo", mv)
			if m.Headline == "" || len(m.Next) == 0 || len(m.Causes) == 0 || m.Causes[0][:len(code)] != code {
				t.Errorf("%s %s: headline %q causes %v next %v", name, mv, m.Headline, m.Causes, m.Next)
			}
		}
	}
}

// TestScenarioLegacyPrecision: without the server's tables the same MVs lag,
// with delays that are client UPPER_BOUNDs; with them, the server's PRECISE.
func TestScenarioLegacyPrecision(t *testing.T) {
	inc, leg := scenarioMVs(t, "incident"), scenarioMVs(t, "legacy")
	for _, m := range inc.MVs {
		l := leg.ByName(m.DB, m.Name)
		if l == nil {
			t.Fatalf("legacy lacks %s", m.Name)
		}
		if m.FreshnessState == mv.FreshRebuildRequired {
			continue
		}
		if l.FreshnessState != m.FreshnessState {
			// A partition with data and no offset has no upper bound on a
			// build without the server's columns: information_schema
			// .partitions.CREATE_TIME is always 0. The delay is unknown, with
			// its proven lower bound.
			if l.FreshnessState == mv.FreshUnknown && m.FreshnessState == mv.FreshLagging && l.DataDelay.Lower != nil {
				continue
			}
			t.Errorf("%s: legacy %s, incident %s", m.Name, l.FreshnessState, m.FreshnessState)
		}
		if l.FreshnessState == mv.FreshLagging {
			if l.DataDelay.Precision != diag.PrecisionUpperBound || l.DataDelay.Source != diag.SourceClient {
				t.Errorf("legacy %s: delay %+v, want a client UPPER_BOUND", m.Name, l.DataDelay)
			}
			if m.DataDelay.Source != diag.SourceServer || l.DataDelay.Get(0) < m.DataDelay.Get(0) {
				t.Errorf("%s: the legacy upper bound %v is below the server's %v", m.Name, l.DataDelay.Get(0), m.DataDelay.Get(0))
			}
		}
		if l.LaggingReason != m.LaggingReason {
			t.Errorf("%s: lagging reason legacy %s, incident %s", m.Name, l.LaggingReason, m.LaggingReason)
		}
	}
}

func BenchmarkAnalyzeMVsScale(b *testing.B) {
	s := scenario.Scale(scenario.DefaultScale)
	series := []*snapshot.Snapshot{s}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sa := streams.Analyze(series, streams.Options{})
		r := mv.Analyze(series, sa, mv.Options{})
		if len(r.MVs) == 0 {
			b.Fatal("no MVs")
		}
	}
}

// BenchmarkAnalyzeMVsOnlyScale is the MV part alone, over a stream analysis
// computed once (to tell the two costs apart in docs/performance.md).
func BenchmarkAnalyzeMVsOnlyScale(b *testing.B) {
	s := scenario.Scale(scenario.DefaultScale)
	series := []*snapshot.Snapshot{s}
	sa := streams.Analyze(series, streams.Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mv.Analyze(series, sa, mv.Options{})
	}
}
