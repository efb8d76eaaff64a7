package collect_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestCreateTimeZeroIsUnknown: real Doris serves partitions.CREATE_TIME 0
// (the FE writes "NULL" into a BIGINT, the BE stores 0; the emulator serves
// the wire contract's constant whatever the scenario says). The collector
// reads it as unknown, never 1970-01-01, and not as malformed: 0 is Doris's
// "not available". (Another pre-2000 value is malformed: snapshot's
// TestCreateTimeZeroLoadsAsUnknown.)
func TestCreateTimeZeroIsUnknown(t *testing.T) {
	s := emulator.Sample()
	early := int64(86_400_000) // 1970-01-02: still served as 0
	s.Partitions[1].CreateTimeMs = &early
	_, cfg := startEmulator(t, s, emulator.Options{})
	got := collectLive(t, cfg)
	if len(got.Partitions) != 2 {
		t.Fatalf("partitions %+v", got.Partitions)
	}
	for _, p := range got.Partitions {
		if p.CreateTimeMs != nil {
			t.Errorf("%s: create time %d kept", p.Name, *p.CreateTimeMs)
		}
	}
	for _, m := range got.Malformed {
		if m.Column == "CREATE_TIME" {
			t.Errorf("CREATE_TIME 0 recorded as malformed: %+v", m)
		}
	}
}

// TestFallbackGapsAreSuperseded: a source whose fallback gave the same facts
// is recorded with the source that took over, so diag raises no finding.
func TestFallbackGapsAreSuperseded(t *testing.T) {
	_, cfg := startEmulator(t, emulator.Sample(), emulator.Options{NoTSOStatus: true, NoShowTSO: true})
	got := collectLive(t, cfg)
	if got.Cluster.ClockSource != snapshot.SourceHTTPTSO {
		t.Fatalf("clock from %q", got.Cluster.ClockSource)
	}
	found := false
	for _, g := range got.CouldNotRead {
		if g.Source == snapshot.SourceShowTSOStatus {
			found = true
			if g.Superseded != snapshot.SourceHTTPTSO {
				t.Errorf("SHOW TSO STATUS gap superseded by %q, want %q", g.Superseded, snapshot.SourceHTTPTSO)
			}
		} else if g.Superseded != "" {
			t.Errorf("unexpected superseded gap %+v", g)
		}
	}
	if !found {
		t.Errorf("no SHOW TSO STATUS gap: %+v", got.CouldNotRead)
	}
}

// TestNoAdminGaps: without ADMIN/OPERATOR, SHOW FRONTENDS and SHOW BACKENDS
// are gaps with Doris's error, not superseded; everything else lands.
func TestNoAdminGaps(t *testing.T) {
	_, cfg := startEmulator(t, emulator.Sample(), emulator.Options{NoAdmin: true})
	got := collectLive(t, cfg)
	gaps := map[string]snapshot.ReadGap{}
	for _, g := range got.CouldNotRead {
		gaps[g.Source] = g
	}
	for _, src := range []string{snapshot.SourceFrontends, snapshot.SourceBackends} {
		if g, ok := gaps[src]; !ok || g.Superseded != "" {
			t.Errorf("%s: gap %+v", src, g)
		}
	}
	if len(got.Streams) == 0 || len(got.Frontends) != 0 {
		t.Errorf("streams %d, frontends %d", len(got.Streams), len(got.Frontends))
	}
}
