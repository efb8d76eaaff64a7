package collect_test

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/roundtrip"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestRoundTripScenarios serves every bundled scenario from the emulator,
// collects it through the real driver, and compares with the scenario's
// own data: nothing the live path can carry may be lost (emulator.Comparable
// lists the few fields it cannot). Each scenario also runs on the legacy
// schema, where the seed's columns are recorded as absent.
func TestRoundTripScenarios(t *testing.T) {
	for _, name := range scenario.Names() {
		for _, legacy := range []bool{false, true} {
			name, legacy := name, legacy
			t.Run(name+map[bool]string{false: "", true: "/legacy"}[legacy], func(t *testing.T) {
				want, err := scenario.Load(name)
				if err != nil {
					t.Fatal(err)
				}
				if name == "scale" {
					// The same generator at a tenth of the size: 600 base
					// tables still pass the 50 SHOW DATA FROM bound, and
					// every row shape of the full size is there. The full
					// size (50,000 consumption rows, most of this package's
					// time; ~10× slower under -race) runs in BenchmarkCollectScale.
					want = scenario.Scale(scenario.ScaleConfig{MVs: 200, BasePerMV: 3, UserStreams: 100, ConsumptionRows: 5000})
				}
				_, cfg := startEmulator(t, want, emulator.Options{Legacy: legacy})
				got := collectLive(t, cfg)
				bounded := name == "scale" && !legacy
				for _, g := range got.CouldNotRead {
					if bounded && g.Source == snapshot.SourceShowData && strings.Contains(g.Error, "not read (limit 50 SHOW DATA FROM db.tbl)") {
						// Every scale table has a changelog: the per-table
						// statements stop at MaxShowData, and say so.
						continue
					}
					t.Errorf("could not read %s: %s", g.Source, g.Error)
				}
				if bounded {
					sized := 0
					for i := range got.Tables {
						if got.Tables[i].ChangelogSizeBytes != nil {
							sized++
						}
						got.Tables[i].ChangelogSizeBytes, got.Tables[i].ChangelogSizeText = nil, ""
					}
					for i := range want.Tables {
						want.Tables[i].ChangelogSizeBytes = nil
					}
					if sized != len(got.Tables) {
						t.Errorf("scale: %d of %d tables with a changelog size: one SHOW DATA per database sizes them all", sized, len(got.Tables))
					}
				}
				for _, m := range got.Malformed {
					t.Errorf("malformed %s %s %s=%q: %s", m.Source, m.Row, m.Column, m.Value, m.Error)
				}
				wantLegacy := legacy || name == "legacy"
				diffJSON(t, name, roundtrip.Comparable(want, wantLegacy), roundtrip.Comparable(got, wantLegacy))
			})
		}
	}
}

// TestWithMetrics: --with-metrics fetches the FE's /metrics into the
// snapshot; without it nothing is fetched.
func TestWithMetrics(t *testing.T) {
	want, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	var master string
	for _, p := range want.Metrics {
		if p.Kind == "fe" && p.IsMaster {
			master = p.Body
		}
	}
	_, cfg := startEmulator(t, want, emulator.Options{})
	if got := collectLive(t, cfg); len(got.Metrics) != 0 {
		t.Fatalf("metrics fetched without being asked: %d", len(got.Metrics))
	}
	cfg.WithMetrics = true
	got := collectLive(t, cfg)
	if len(got.Metrics) != 1 || got.Metrics[0].Body != master || got.Metrics[0].Error != "" || !got.Metrics[0].IsMaster || master == "" {
		t.Fatalf("metrics: %+v (body equal %v)", got.Metrics, len(got.Metrics) == 1 && got.Metrics[0].Body == master)
	}
}
