package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestCheckHealthyWithoutAdminPasses: a least-privilege user is denied
// SHOW FRONTENDS and SHOW BACKENDS (they need ADMIN or OPERATOR:
// ShowFrontendsCommand, ShowBackendsCommand). On a healthy cluster that is
// a warning naming what is not diagnosed, never a red gate: check exits 0.
func TestCheckHealthyWithoutAdminPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	base := liveArgs(t, snap, emulator.Options{NoAdmin: true})
	live := localMetrics(base)
	got, code := runCheckJSON(t, live...)
	if code != cmdutil.ExitOK {
		t.Fatalf("healthy without ADMIN: exit %d, want 0; findings %+v", code, got.Findings)
	}
	denied := map[string]string{}
	for _, f := range got.Findings {
		if f.Code == "SOURCE_UNREACHABLE" {
			denied[f.Object.Name] = f.Severity
		}
	}
	for _, src := range []string{snapshot.SourceFrontends, snapshot.SourceBackends} {
		if denied[src] != "warning" {
			t.Errorf("%s denied: want a SOURCE_UNREACHABLE warning, got %q (findings %+v)", src, denied[src], got.Findings)
		}
	}
	// The denial is Doris's text, and --fail-on warning still sees it.
	sum, _, _ := run(t, nil, "", append([]string{"snapshot", "--summary"}, base...)...)
	if !strings.Contains(sum, "Access denied; you need (at least one of) the (ADMIN/OPERATOR) privilege(s)") {
		t.Errorf("summary does not show the denial:\n%s", sum)
	}
	if _, code := runCheckJSON(t, append(live, "--fail-on", "warning")...); code != cmdutil.ExitFindings {
		t.Errorf("--fail-on warning: exit %d, want 1", code)
	}
}

// TestCheckSupersededClockIsNoFinding: SHOW TSO STATUS fails, GET /api/tso
// gives the clock: no finding, only a line in the sources.
func TestCheckSupersededClockIsNoFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	base := liveArgs(t, snap, emulator.Options{NoTSOStatus: true, NoShowTSO: true})
	live := localMetrics(base)
	got, code := runCheckJSON(t, live...)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, want 0; findings %+v", code, got.Findings)
	}
	for _, f := range got.Findings {
		if f.Code == "SOURCE_UNREACHABLE" {
			t.Errorf("a superseded fallback raised %+v", f)
		}
	}
	out, _, _ := run(t, nil, "", append([]string{"check", "-o", "json"}, live...)...)
	var doc struct {
		Overview struct {
			Sources struct {
				Unreadable int `json:"unreadable"`
				Superseded []struct{ Source, By string }
			} `json:"sources"`
		} `json:"overview"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Overview.Sources
	if s.Unreadable != 0 || len(s.Superseded) != 1 || s.Superseded[0].Source != snapshot.SourceShowTSOStatus || s.Superseded[0].By != snapshot.SourceHTTPTSO {
		t.Errorf("overview sources %+v, want SHOW TSO STATUS superseded by GET /api/tso", s)
	}
	table, _, _ := run(t, nil, "", append([]string{"check"}, live...)...)
	if !strings.Contains(table, "superseded: SHOW TSO STATUS failed, GET /api/tso used") {
		t.Errorf("check table does not list the fallback:\n%s", table)
	}
	sum, _, _ := run(t, nil, "", append([]string{"snapshot", "--summary"}, base...)...)
	if !strings.Contains(sum, "superseded by GET /api/tso") {
		t.Errorf("summary does not mark the fallback:\n%s", sum)
	}
}

// localMetrics points /metrics at the emulator's FE only: the scenario's
// nodes advertise addresses that do not exist here (no traffic leaves
// 127.0.0.0/8).
func localMetrics(live []string) []string {
	return append(append([]string(nil), live...), "--metrics-targets", "fe=127.0.0.1:"+live[5], "--timeout", "5s")
}
