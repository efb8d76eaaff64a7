package cmd

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

const mvHand = "testdata/mv_handmade.snapshot.json"

func TestMVFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"mv", "list", "--snapshot", mvHand, "--state", "sleepy"},
		{"mv", "list", "--snapshot", mvHand, "--max-delay", "0s"},
		{"mv", "list", "--snapshot", mvHand, "--max-failures", "0"},
		{"mv", "list", "--snapshot", mvHand, "-o", "prom"},
		{"mv", "explain", "--snapshot", mvHand},
		{"mv", "explain", "nodot", "--snapshot", mvHand},
		{"mv", "explain", "demo.no_such_mv", "--snapshot", mvHand},
		{"mv", "explain", "demo.mv_fresh", "--snapshot", mvHand, "-o", "prom"},
		{"mv", "list"},
	} {
		_, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError || !strings.HasPrefix(stderr, "dorisdiag: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

func TestMVHandmade(t *testing.T) {
	out, _, code := run(t, nil, "", "mv", "list", "--snapshot", mvHand)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	golden(t, "mv_list_handmade.golden", out)
	out, _, _ = run(t, nil, "", "mv", "explain", "demo.mv_orders_daily", "--snapshot", mvHand)
	golden(t, "mv_explain_handmade.golden", out)
	if _, _, code := run(t, nil, "", "mv", "list", "--snapshot", mvHand, "--fail-on", "critical"); code != cmdutil.ExitFindings {
		t.Errorf("--fail-on critical with 4 failures in a row: exit %d, want 1", code)
	}
	if _, _, code := run(t, nil, "", "mv", "explain", "demo.mv_fresh", "--snapshot", mvHand, "--fail-on", "warning"); code != cmdutil.ExitOK {
		t.Errorf("fresh MV, --fail-on warning: exit %d, want 0", code)
	}
	out, _, _ = run(t, nil, "", "mv", "list", "--snapshot", mvHand, "--state", "fresh", "-o", "wide")
	if strings.Contains(out, "mv_orders_daily") || !strings.Contains(out, "mv_fresh") {
		t.Errorf("--state fresh:\n%s", out)
	}
}

// TestMVJSONFields pins the field set of both JSON documents (docs/mv.md).
func TestMVJSONFields(t *testing.T) {
	keys := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, ",")
	}
	out, _, _ := run(t, nil, "", "mv", "list", "--snapshot", mvHand, "-o", "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if got := keys(doc); got != "capabilities,findings,kind,mvs,not_ivm,now,schema_version,thresholds" {
		t.Errorf("mv list fields: %s", got)
	}
	if doc["kind"] != "mv_list" {
		t.Errorf("kind %v", doc["kind"])
	}
	row := doc["mvs"].([]any)[0].(map[string]any)
	if got := keys(row); got != "codes,consecutive_failures,consecutive_failures_at_least,data_delay,db,fallbacks_in_window,freshness_state,headline,id,job_status,lagging_reason,last_method,last_method_inferred,min_headroom_seconds,name,severity,state_source" {
		t.Errorf("mv list row fields: %s", got)
	}
	out, _, _ = run(t, nil, "", "mv", "explain", "demo.mv_orders_daily", "--snapshot", mvHand, "-o", "json")
	doc = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if got := keys(doc); got != "capabilities,findings,kind,mv,now,schema_version,thresholds" {
		t.Errorf("mv explain fields: %s", got)
	}
	mv := doc["mv"].(map[string]any)
	for _, k := range []string{"freshness_state", "data_delay", "lagging_reason", "dependencies", "worst_partitions", "history", "headline", "causes", "next"} {
		if _, ok := mv[k]; !ok {
			t.Errorf("mv explain: no %s", k)
		}
	}
}

// problemMVs are the MVs the incident scenario plants a problem on.
var problemMVs = []string{"mv_orders_daily", "mv_customer_ltv", "mv_revenue", "mv_items_summary", "mv_payments_rollup",
	"mv_inventory", "mv_product_sales", "mv_events_hourly", "mv_sales_rebuild", "mv_big_join"}

func TestMVGoldenScenarios(t *testing.T) {
	for _, sc := range []string{"healthy", "incident", "legacy"} {
		out, stderr, code := run(t, nil, "", "mv", "list", "--demo="+sc)
		if code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d: %s", sc, code, stderr)
		}
		golden(t, "mv_list_"+sc+".golden", out)
		out, _, _ = run(t, nil, "", "mv", "list", "--demo="+sc, "-o", "wide")
		golden(t, "mv_list_"+sc+"_wide.golden", out)
		if sc == "healthy" {
			if _, _, code := run(t, nil, "", "mv", "list", "--demo="+sc, "--fail-on", "warning"); code != cmdutil.ExitOK {
				t.Errorf("healthy --fail-on warning: exit %d", code)
			}
			continue
		}
		for _, mv := range problemMVs {
			out, _, _ := run(t, nil, "", "mv", "explain", "demo."+mv, "--demo="+sc)
			golden(t, "mv_explain_"+sc+"_"+mv+".golden", out)
		}
	}
	out, _, _ := run(t, nil, "", "mv", "explain", "demo.mv_orders_daily", "--demo=incident", "-o", "json")
	golden(t, "mv_explain_incident_mv_orders_daily.json", out)
	out, _, _ = run(t, nil, "", "mv", "list", "--demo=incident", "-o", "json")
	golden(t, "mv_list_incident.json", out)
	out, _, _ = run(t, nil, "", "mv", "explain", "demo.mv_orders_daily", "--demo=legacy", "-o", "markdown")
	golden(t, "mv_explain_legacy_mv_orders_daily.md", out)
	out, _, _ = run(t, nil, "", "mv", "list", "--demo=incident", "--db", "demo", "--state", "lagging", "-o", "markdown")
	golden(t, "mv_list_incident_lagging.md", out)
}

func TestMVHealthyAllFresh(t *testing.T) {
	out, _, _ := run(t, nil, "", "mv", "list", "--demo=healthy", "-o", "json")
	var doc struct {
		MVs []struct {
			State string `json:"freshness_state"`
		} `json:"mvs"`
		Findings []any `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.MVs) == 0 || len(doc.Findings) != 0 {
		t.Fatalf("healthy: %d MVs, %d findings", len(doc.MVs), len(doc.Findings))
	}
	for _, m := range doc.MVs {
		if m.State != "fresh" {
			t.Errorf("healthy: an MV is %s", m.State)
		}
	}
}

func TestMVWatchRounds(t *testing.T) {
	out, _, code := run(t, nil, "", "mv", "list", "--demo=healthy", "--watch=1ms", "--watch-rounds", "2")
	if code != cmdutil.ExitOK || strings.Count(out, "# round") != 2 {
		t.Errorf("watch: exit %d, %d rounds:\n%s", code, strings.Count(out, "# round"), out)
	}
}
