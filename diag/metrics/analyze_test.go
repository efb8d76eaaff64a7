package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
)

func lintFixture(t *testing.T, name string) *exposition.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "metrics", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Lint(strings.NewReader(string(b)), LintOptions(exposition.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestMasterOnlyOneRule: the one Master-only rule. scrape counted a target
// of unknown kind and check did not; now both count every payload that is
// not a BE's, so two Master payloads, one of unknown kind, are two exporters.
func TestMasterOnlyOneRule(t *testing.T) {
	master := lintFixture(t, "fe_master.prom")
	follower := lintFixture(t, "fe_follower.prom")
	in := []Input{
		{Kind: "fe", Source: "fe1:8030", Lint: master},
		{Kind: "", Source: "10.0.0.9:18030", Lint: master}, // --targets without fe=
		{Kind: "fe", Source: "fe2:8030", Lint: follower},
		{Kind: "be", Source: "be1:8040", Lint: master}, // a BE is never an exporter
	}
	res := AnalyzePayloads(in, Options{NoConform: true})
	var cluster []diag.Finding
	for _, f := range res.Findings {
		if f.Code == CodeStateOnFollower && f.Object.Kind == "cluster" {
			cluster = append(cluster, f)
		}
	}
	if len(cluster) != 1 || cluster[0].Evidence["exporters"] != "10.0.0.9:18030,fe1:8030" {
		t.Fatalf("cluster findings %+v", cluster)
	}
	// The same payloads stored in a snapshot give the same findings.
	if n := len(MasterOnlyFindings(res.Payloads)); n != 1 {
		t.Errorf("MasterOnlyFindings: %d findings, want 1", n)
	}
}

// TestAnalyzeMetricsPayloadsNotFetched: a payload without a body is a
// METRICS_TARGET_UNREACHABLE finding naming the error, never dropped.
func TestAnalyzeMetricsPayloadsNotFetched(t *testing.T) {
	res := AnalyzePayloads([]Input{{Kind: "be", Source: "be1:8040"}}, Options{})
	if res.NotFetched != 1 || len(res.Findings) != 1 || res.Findings[0].Code != CodeTargetUnreachable || !strings.Contains(res.Findings[0].Summary, "no body stored") {
		t.Fatalf("%+v", res.Findings)
	}
}
