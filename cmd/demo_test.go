package cmd

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

func TestDemoGolden(t *testing.T) {
	out, stderr, code := run(t, nil, "", "demo")
	if code != cmdutil.ExitOK {
		t.Fatalf("demo: exit %d (stderr %q): the README's first command must succeed", code, stderr)
	}
	golden(t, "demo_incident.txt", out)
	for _, want := range []string{"dorisdiag mv explain demo.mv_payments_rollup", "dorisdiag streams show demo.s_orders_audit", "Against a real cluster"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	out, _, code = run(t, nil, "", "demo", "--scenario", "healthy")
	if code != cmdutil.ExitOK || !strings.Contains(out, "Findings: 0 critical, 0 warning, 0 info") {
		t.Errorf("demo --scenario healthy: exit %d\n%s", code, out)
	}
	if _, _, code := run(t, nil, "", "demo", "--scenario", "nope"); code != cmdutil.ExitError {
		t.Errorf("unknown scenario: exit %d, want 2", code)
	}
	out, _, code = run(t, nil, "", "demo", "--demo", "healthy")
	if code != cmdutil.ExitOK || !strings.Contains(out, "demo scenario healthy") {
		t.Errorf("demo --demo healthy must run the healthy scenario: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"demo", "--snapshot", "x.json"}, {"demo", "--host", "fe1"}, {"demo", "--demo", "legacy", "--scenario", "healthy"}} {
		if _, _, code := run(t, nil, "", args...); code != cmdutil.ExitError {
			t.Errorf("%v: exit %d, want 2 (a source flag demo cannot use must not be ignored)", args, code)
		}
	}
	if _, _, code := run(t, nil, "", "demo", "--fail-on", "critical"); code != cmdutil.ExitFindings {
		t.Errorf("demo --fail-on critical: exit %d, want 1", code)
	}
}
