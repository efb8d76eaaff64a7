package round_test

import (
	"math"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/scenario"
)

func TestExporterStateQuotas(t *testing.T) {
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	st := round.NewState(round.Options{MVQuota: 2, StreamQuota: 1, KeepCheck: true})
	r := st.Round(s)
	if len(r.MVs) != 2 || len(r.Streams) != 1 {
		t.Fatalf("%d MVs, %d streams exported; want the quotas 2 and 1", len(r.MVs), len(r.Streams))
	}
	if r.MVs[0].ID > r.MVs[1].ID {
		t.Error("MVs beyond the quota must be the highest IDs: the lowest are exported")
	}
	if r.NotExported["mv"] != len(r.Check.MVs.MVs)-2 {
		t.Errorf("objects_not_exported mv %d, want %d", r.NotExported["mv"], len(r.Check.MVs.MVs)-2)
	}
}

// TestExporterStateNoNaN: every per-object value is a number (-1 when
// unknown), never NaN, on every bundled scenario.
func TestExporterStateNoNaN(t *testing.T) {
	for _, name := range []string{"healthy", "incident", "legacy"} {
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		r := round.NewState(round.Options{}).Round(s)
		for _, m := range r.MVs {
			for _, v := range []float64{m.DataDelay, m.StateNumber, m.ConsecutiveFailures, m.Fallbacks} {
				if math.IsNaN(v) {
					t.Errorf("%s: MV %s has NaN", name, m.Name)
				}
			}
			if m.DataDelay < 0 && m.DataDelay != -1 {
				t.Errorf("%s: MV %s delay %v: an unknown delay is -1", name, m.Name, m.DataDelay)
			}
		}
		for _, st := range r.Streams {
			if math.IsNaN(st.PendingAge) || (st.PendingAge < 0 && st.PendingAge != -1) {
				t.Errorf("%s: stream %s pending age %v", name, st.Name, st.PendingAge)
			}
		}
	}
}
