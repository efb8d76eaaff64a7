package exporter_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// knownSeries is what the PromQL of the dashboards and alert rules may
// name: what the exporter serves, what the design's FE and BE serve, and
// the `check -o prom` textfile series (the rules' second group).
func knownSeries(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range exporter.SeriesNames() {
		out[n] = "exporter"
	}
	for _, n := range metrics.DesignFamilyNames() {
		if _, ok := out[n]; !ok {
			out[n] = "FE/BE only"
		}
	}
	for _, name := range []string{"incident", "healthy"} {
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range report.CheckProm(check.Run([]*snapshot.Snapshot{s}, check.Options{})) {
			out[f.Name] = "check -o prom"
		}
	}
	return out
}

var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$cluster", ".*", "$db", "demo",
	"$mv", "mv_orders", "$stream_id", "61001", "$stream", "s_orders")

type promExpr struct{ where, expr string }

// dashboardExprs collects every Prometheus query of the dashboards: panel
// targets and variable queries (label_values(SELECTOR, label)).
func dashboardExprs(t *testing.T) []promExpr {
	t.Helper()
	labelValues := regexp.MustCompile(`^label_values\((.*),\s*[a-z_]+\)$`)
	var out []promExpr
	for _, d := range dashboards() {
		_, raw := buildDashboard(t, d.b)
		var doc struct {
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
			Templating struct {
				List []struct {
					Name  string `json:"name"`
					Type  string `json:"type"`
					Query any    `json:"query"`
				} `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, p := range doc.Panels {
			for _, tg := range p.Targets {
				if tg.Expr != "" {
					out = append(out, promExpr{d.file + ": " + p.Title, tg.Expr})
				}
			}
		}
		for _, v := range doc.Templating.List {
			q, _ := v.Query.(string)
			if v.Type != "query" || q == "" {
				continue
			}
			m := labelValues.FindStringSubmatch(q)
			if m == nil {
				t.Errorf("%s: variable %s: not a label_values(SELECTOR, label) query: %q", d.file, v.Name, q)
				continue
			}
			out = append(out, promExpr{d.file + ": variable " + v.Name, m[1]})
		}
	}
	return out
}

// alertExprs collects every expr of the alert rules in docs/alerts/.
func alertExprs(t *testing.T) []promExpr {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "docs", "alerts", "*.yml"))
	var out []promExpr
	for _, f := range files {
		if strings.HasSuffix(f, "_test.yml") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Groups []struct {
				Rules []struct {
					Alert string `yaml:"alert"`
					Expr  string `yaml:"expr"`
				} `yaml:"rules"`
			} `yaml:"groups"`
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range doc.Groups {
			for _, r := range g.Rules {
				out = append(out, promExpr{filepath.Base(f) + ": " + r.Alert, r.Expr})
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no alert rules found in docs/alerts/")
	}
	return out
}

// TestPromQLParsesAndNamesKnownSeries: every PromQL expression of the
// dashboards and the alert rules parses (the Prometheus parser itself) and
// names only series the exporter or the FE/BE exports.
func TestPromQLParsesAndNamesKnownSeries(t *testing.T) {
	known := knownSeries(t)
	p := parser.NewParser(parser.Options{})
	exprs := append(dashboardExprs(t), alertExprs(t)...)
	used := map[string]bool{}
	for _, e := range exprs {
		expr, err := p.ParseExpr(grafanaVars.Replace(e.expr))
		if err != nil {
			t.Errorf("%s: %q does not parse: %v", e.where, e.expr, err)
			continue
		}
		names := 0
		parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
			vs, ok := n.(*parser.VectorSelector)
			if !ok {
				return nil
			}
			names++
			used[vs.Name] = true
			if _, ok := known[vs.Name]; !ok {
				t.Errorf("%s: %q names %s, which neither the exporter nor the FE exports", e.where, e.expr, vs.Name)
			}
			return nil
		})
		if names == 0 {
			t.Errorf("%s: %q names no series", e.where, e.expr)
		}
	}
	// The dashboards cover what the design's Overview asks for.
	var missing []string
	for _, want := range []string{"doris_fe_ivm_mvs", "doris_fe_changelog_streams", "doris_fe_ivm_mvs_by_data_delay",
		"doris_fe_changelog_stream_min_retention_headroom_seconds", "doris_fe_ivm_fallbacks_total",
		"doris_fe_ivm_refresh_failures_total", "doris_fe_ivm_task_oldest_pending_age_seconds",
		"doris_fe_changelog_retained_bytes", "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds"} {
		if !used[want] {
			missing = append(missing, want)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no dashboard or rule uses %v", missing)
	}
	t.Logf("%d expressions checked", len(exprs))
}
