package streams_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/fixtures"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// streamArea reports whether this package declares a code.
func streamArea(t *testing.T, code string) bool {
	t.Helper()
	ds, err := diagtest.DeclaredIn(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

// TestScenarioStreamExpectations: every expected stream-area code of
// incident and legacy is found; healthy raises none.
func TestScenarioStreamExpectations(t *testing.T) {
	for _, name := range []string{"healthy", "incident", "legacy"} {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			exp, err := fixtures.Expectations(name)
			if err != nil {
				t.Fatal(err)
			}
			res := streams.Analyze([]*snapshot.Snapshot{s}, streams.Options{})
			for _, e := range exp {
				if !streamArea(t, e.Code) {
					continue
				}
				found := false
				for _, f := range res.Findings {
					if e.Matches(f.Code.String(), f.Object.Kind, f.Object.DB, f.Object.Name, f.Object.Partition) {
						found = true
					}
				}
				if !found {
					t.Errorf("expected %s on %s.%s %s: not found", e.Code, e.DB, e.Name, e.Partition)
				}
			}
			if name == "healthy" && len(res.Findings) != 0 {
				for _, f := range res.Findings {
					t.Errorf("healthy: unexpected %s %s: %s", f.Code, f.Object, f.Summary)
				}
			}
		})
	}
}

// TestScenarioStates pins the state of each planted stream.
func TestScenarioStates(t *testing.T) {
	want := map[string]streams.State{
		"s_orders_cdc": streams.StateCannotResume, "s_orders_audit": streams.StateCannotResume, "s_payments_etl": streams.StateLagging,
		"s_events_dup": streams.StateLagging, "s_customers_idle": streams.StateCannotResume, "s_items_slow": streams.StateLagging,
		"s_dropped": streams.StateStale, "s_paused": streams.StateDisabled, "s_orders_ok": streams.StateCaughtUp,
		"__doris_ivm_stream_mv_customer_ltv_144i_vnq": streams.StateCannotResume,
	}
	for _, name := range []string{"incident", "legacy"} {
		s, _ := scenario.Load(name)
		res := streams.Analyze([]*snapshot.Snapshot{s}, streams.Options{})
		for n, st := range want {
			sr := res.ByName("demo", n)
			if sr == nil {
				t.Errorf("%s: %s missing", name, n)
				continue
			}
			if sr.State != st {
				t.Errorf("%s: %s state %s, want %s", name, n, sr.State, st)
			}
		}
		iv := res.ByName("demo", "__doris_ivm_stream_mv_customer_ltv_144i_vnq")
		if iv.Kind != streams.KindIVM || iv.MVName != "mv_customer_ltv" || iv.MVID == nil || *iv.MVID != 52002 {
			t.Errorf("%s: internal stream identity %+v", name, iv)
		}
	}
}

func BenchmarkAnalyzeStreamsScale(b *testing.B) {
	s := scenario.Scale(scenario.DefaultScale)
	series := []*snapshot.Snapshot{s}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := streams.Analyze(series, streams.Options{})
		if len(res.Streams) == 0 {
			b.Fatal("no streams")
		}
	}
}
