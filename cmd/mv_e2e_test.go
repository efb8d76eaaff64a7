package cmd

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// mvVerdicts is what must not change between a saved scenario and the same
// scenario served live: per MV, the state, the lagging reason and the
// finding codes in cause order.
type mvVerdict struct {
	State   string   `json:"freshness_state"`
	Reason  string   `json:"lagging_reason"`
	Codes   []string `json:"codes"`
	Failure int      `json:"consecutive_failures"`
}

func mvVerdicts(t *testing.T, out string) map[string]mvVerdict {
	t.Helper()
	var doc struct {
		MVs []struct {
			DB   string `json:"db"`
			Name string `json:"name"`
			mvVerdict
		} `json:"mvs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	m := map[string]mvVerdict{}
	for _, x := range doc.MVs {
		m[x.DB+"."+x.Name] = x.mvVerdict
	}
	return m
}

// TestMVEndToEndEmulator starts the emulator on 127.0.0.1:0 with each
// scenario and runs `mv list` and `mv explain` over the real MySQL protocol:
// the verdicts must be those of --demo.
func TestMVEndToEndEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	for _, sc := range []string{"incident", "legacy"} {
		t.Run(sc, func(t *testing.T) {
			snap, err := scenario.Load(sc)
			if err != nil {
				t.Fatal(err)
			}
			live := liveArgs(t, snap, emulator.Options{Legacy: sc == "legacy"})

			liveOut, stderr, code := run(t, nil, "", append([]string{"mv", "list", "-o", "json"}, live...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("live mv list: exit %d: %s", code, stderr)
			}
			demoOut, _, _ := run(t, nil, "", "mv", "list", "-o", "json", "--demo="+sc)
			got, want := mvVerdicts(t, liveOut), mvVerdicts(t, demoOut)
			if len(want) == 0 {
				t.Fatal("no MVs in the demo")
			}
			for k, w := range want {
				if gap, ok := knownCollectorGaps[sc+" "+k]; ok {
					// Named, not hidden: the live snapshot lacks the data this
					// verdict needs; everything else about the MV must match.
					t.Logf("%s: known collector gap: %s", k, gap.why)
					w.Codes = without(w.Codes, gap.code)
				}
				if g, ok := got[k]; !ok || !reflect.DeepEqual(g, w) {
					t.Errorf("%s: live %+v, demo %+v", k, g, w)
				}
			}
			for _, mv := range problemMVs {
				out, stderr, code := run(t, nil, "", append([]string{"mv", "explain", "demo." + mv}, live...)...)
				if code != cmdutil.ExitOK {
					t.Errorf("live mv explain %s: exit %d: %s", mv, code, stderr)
					continue
				}
				demo, _, _ := run(t, nil, "", "mv", "explain", "demo."+mv, "--demo="+sc)
				if _, gap := knownCollectorGaps[sc+" demo."+mv]; gap {
					continue
				}
				if verdictLine(out) != verdictLine(demo) {
					t.Errorf("%s verdict:\n live %s\n demo %s", mv, verdictLine(out), verdictLine(demo))
				}
			}
		})
	}
}

func verdictLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "verdict: ") {
			return l
		}
	}
	return ""
}

// knownCollectorGaps are verdicts the live path cannot reach yet because the
// collector does not read the data: on a build without ivm_dependencies the
// coverage of an excluded trigger table is judged from its partitions'
// visible times, and the collector reads partitions only of tables that have
// a stream (reported to the collector's owner).
// (The collector now reads excluded trigger tables named in mv_infos()
// MvProperties, so legacy demo.mv_product_sales needs no entry.)
var knownCollectorGaps = map[string]struct{ code, why string }{}

func without(xs []string, drop string) []string {
	out := []string{}
	for _, x := range xs {
		if x != drop {
			out = append(out, x)
		}
	}
	return out
}
