package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

func payloadFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "payload.prom")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 21 item 7: METRICS_UNPARSEABLE is critical only when a Prometheus
// server drops the scrape; `metrics lint -o json` says, per payload, what the
// server and expfmt do. The payloads are the consumer cases checked against
// prometheus/prometheus's parser (exposition/consumers_cases_test.go).
func TestMetricsLintSaysWhoRejects(t *testing.T) {
	for _, c := range []struct {
		name, body       string
		exit             int
		server, expfmt   string
		severity, phrase string
	}{
		// A Doris user named a\b: expfmt rejects it, the server keeps the scrape.
		{"doris-user-backslash", "# HELP doris_fe_query_total q\n# TYPE doris_fe_query_total counter\ndoris_fe_query_total{user=\"a\\b\"} 5\n", cmdutil.ExitOK, "kept", "rejected", "warning", "a Prometheus server keeps the scrape"},
		{"raw-quote", "# HELP a a\n# TYPE a gauge\na{b=\"x\"y\"} 1\n", cmdutil.ExitFindings, "dropped", "rejected", "critical", "a Prometheus server drops the whole scrape"},
		// expfmt accepts a negative timestamp; the server drops the scrape.
		{"negative-timestamp", "# HELP a a\n# TYPE a gauge\na 1 -5\n", cmdutil.ExitFindings, "dropped", "accepted", "critical", "expfmt accepts the payload"},
	} {
		p := payloadFile(t, c.body)
		out, stderr, code := run(t, nil, "", "metrics", "lint", p, "-o", "json", "--no-conform")
		if code != c.exit {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.exit, out, stderr)
		}
		var doc struct {
			PrometheusServer string `json:"prometheus_server"`
			Expfmt           string `json:"expfmt"`
			Payload          struct {
				PrometheusServer string `json:"prometheus_server"`
				Expfmt           string `json:"expfmt"`
			} `json:"payload"`
			Findings []struct {
				Code     string `json:"code"`
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if doc.PrometheusServer != c.server || doc.Expfmt != c.expfmt {
			t.Errorf("%s: prometheus_server %q expfmt %q, want %q %q\n%s", c.name, doc.PrometheusServer, doc.Expfmt, c.server, c.expfmt, out)
		}
		found := false
		for _, f := range doc.Findings {
			if f.Code == "METRICS_UNPARSEABLE" {
				found = true
				if f.Severity != c.severity || !strings.Contains(f.Summary, c.phrase) {
					t.Errorf("%s: %s %q, want %s with %q", c.name, f.Severity, f.Summary, c.severity, c.phrase)
				}
			}
		}
		if !found {
			t.Errorf("%s: no METRICS_UNPARSEABLE\n%s", c.name, out)
		}
	}
}

// Issue 21 item 8: --fix never changes a sample's value, timestamp or
// exemplar, and says why; an OpenMetrics payload is refused with a clear
// message and exit 2 (docs/cli.md), writing nothing.
func TestMetricsFixRefusesAndOpenMetrics(t *testing.T) {
	p := payloadFile(t, "# HELP a_total a\n# TYPE a_total counter\na_total{x=\"y\"} 0 # {trace_id=\"b\"} 0.5\n")
	out, stderr, code := run(t, nil, "", "metrics", "lint", p, "--fix")
	if strings.Contains(out, "0.5\"}") || strings.Contains(out, "} 0.5") && !strings.Contains(out, "# {trace_id") {
		t.Errorf("--fix rewrote the exemplar's value:\n%s", out)
	}
	if code == cmdutil.ExitOK && !strings.Contains(stderr, "refused") && !strings.Contains(stderr, "OpenMetrics") {
		t.Errorf("--fix of an exemplar: exit %d, no refusal said\nstdout %s\nstderr %s", code, out, stderr)
	}
	om := payloadFile(t, "# TYPE a counter\n# HELP a a\na_total 1\n# EOF\n")
	for _, args := range [][]string{{"metrics", "lint", om}, {"metrics", "lint", om, "--fix"}} {
		out, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, "OpenMetrics") || strings.Contains(out, "a_total 1") {
			t.Errorf("%v: exit %d (want 2)\nstdout %s\nstderr %s", args, code, out, stderr)
		}
	}
	w := filepath.Join(t.TempDir(), "fixed.prom")
	if _, _, code := run(t, nil, "", "metrics", "lint", om, "--fix", "-w", w); code != cmdutil.ExitError {
		t.Errorf("--fix -w of OpenMetrics: exit %d", code)
	}
	if _, err := os.Stat(w); err == nil {
		t.Errorf("--fix -w of OpenMetrics wrote %s", w)
	}
}
