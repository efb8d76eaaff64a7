package exporter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// freePort is a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type promAlert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
}

func firingAlerts(t *testing.T, base string) ([]promAlert, error) {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/alerts")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var doc struct {
		Data struct {
			Alerts []promAlert `json:"alerts"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, err
	}
	var out []promAlert
	for _, a := range doc.Data.Alerts {
		if a.State == "firing" {
			out = append(out, a)
		}
	}
	return out, nil
}

// TestShippedRulesOnPrometheusServer (issue 20 items 2 and 3, Done when):
// a real Prometheus server on loopback scrapes `exporter --demo incident`
// with the shipped rules (their for: cut to 2s, the only change, so the test
// waits seconds, not minutes): the (code, object, severity) alerts it fires
// are check's findings on the scenario, with the cluster label; then the
// exporter is stopped and DorisdiagExporterDown fires for its cluster and
// instance. Skipped, with the reason, without a prometheus binary.
func TestShippedRulesOnPrometheusServer(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (Debian package prometheus): the rules are still run through promtool by TestScenarioAlertsAreCheckFindings")
	}
	if testing.Short() {
		t.Skip("-short: starts a Prometheus server")
	}
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	const iv = time.Second
	e, err := exporter.New(exporter.Options{Interval: iv, Source: exporter.DemoSource(s, iv), Demo: true, Cluster: "demo-incident", NoGCAfterRound: true})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := exporter.Listen([]string{"127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	target := ls[0].Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.Serve(ctx, ls, "") }()
	defer func() { stop(); <-served }()

	dir := t.TempDir()
	rules := bytes.ReplaceAll(exporter.AlertRules(), []byte("for: 1m"), []byte("for: 2s"))
	rules = bytes.ReplaceAll(rules, []byte("for: 5m"), []byte("for: 2s"))
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yml]
scrape_configs:
  - job_name: %s
    honor_labels: true
    static_configs:
      - targets: ['%s']
        labels: {cluster: demo-incident}
`, exporter.ExporterJob, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	var logb bytes.Buffer
	cmd := exec.Command(bin, "--config.file=prometheus.yml", "--storage.tsdb.path=data",
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &logb, &logb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	// check's findings on the scenario (the demo's clock moves one second a
	// round: the set is the same for the minute this takes).
	res := check.Run([]*snapshot.Snapshot{s}, check.Options{})
	var want []string
	for _, a := range check.Alertings(res.Findings) {
		want = append(want, a.Code+" "+a.Kind+" "+a.DB+"."+a.Name+" "+a.Partition+" "+a.Severity)
	}
	sort.Strings(want)
	key := func(as []promAlert, only string) []string {
		var out []string
		for _, a := range as {
			if only != "" && a.Labels["alertname"] != only {
				continue
			}
			if only == "" && a.Labels["code"] == "" {
				continue
			}
			if a.Labels["cluster"] != "demo-incident" {
				t.Errorf("alert %v lost its cluster label", a.Labels)
			}
			out = append(out, a.Labels["code"]+" "+a.Labels["kind"]+" "+a.Labels["db"]+"."+a.Labels["name"]+" "+a.Labels["partition"]+" "+a.Labels["severity"])
		}
		sort.Strings(out)
		return out
	}
	// Poll, not time: the condition is the answer; 90s is only a bound.
	var got []string
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if as, err := firingAlerts(t, base); err == nil {
			if got = key(as, ""); strings.Join(got, "\n") == strings.Join(want, "\n") {
				break
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Prometheus fires\n%s\ncheck finds\n%s\nprometheus log:\n%.3000s", strings.Join(got, "\n"), strings.Join(want, "\n"), logb.String())
	}

	// Kill the exporter: up == 0, and DorisdiagExporterDown fires.
	stop()
	<-served
	served <- nil
	deadline = time.Now().Add(90 * time.Second)
	var down []promAlert
	for time.Now().Before(deadline) && len(down) == 0 {
		if as, err := firingAlerts(t, base); err == nil {
			for _, a := range as {
				if a.Labels["alertname"] == "DorisdiagExporterDown" {
					down = append(down, a)
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	if len(down) != 1 || down[0].Labels["cluster"] != "demo-incident" || down[0].Labels["instance"] != target || down[0].Labels["severity"] != "critical" {
		t.Fatalf("after the exporter stopped: DorisdiagExporterDown %v", down)
	}
}
