package exporter_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"

	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// blindSource is the incident demo whose rounds from blindFrom on cannot
// read the stream offsets (the Why of issue 20: an FE that answers slowly,
// every round timed out with sources unreadable, yet counted as
// completed, and cannot_resume fell from 2 to 0).
func blindSource(t *testing.T, blindFrom int) exporter.Source {
	t.Helper()
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	demo := exporter.DemoSource(s, interval)
	return func(ctx context.Context, round int) (*snapshot.Snapshot, error) {
		snap, err := demo(ctx, round)
		if err != nil || round < blindFrom {
			return snap, err
		}
		c := *snap
		c.Consumption = nil
		c.CouldNotRead = append(append([]snapshot.ReadGap(nil), snap.CouldNotRead...), snapshot.ReadGap{
			Source: snapshot.SourceTableStreamConsumption, Query: "SELECT ... FROM information_schema.table_stream_consumption",
			Error: "read timeout after 10s (--timeout)"})
		return &c, nil
	}
}

// TestBlindRoundIsFailedNotHealthy (issue 20 item 3): a round that cannot
// read a critical source fails — counted, no sample, /readyz 503 after
// exporter.NotReadyAfterFailures of them — and the series that depend on
// the source are absent with a reason series, never "caught up"; the
// SOURCE_UNREACHABLE finding is served critical, as check says.
func TestBlindRoundIsFailedNotHealthy(t *testing.T) {
	clock := newFakeClock()
	e, err := exporter.New(exporter.Options{Interval: interval, Source: blindSource(t, 2), Demo: true, Now: clock.Now,
		Cluster: "prod-a", NoGCAfterRound: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRound(t, e)
	before, _ := gather(t, e)
	if v := before.get(t, "doris_fe_changelog_streams", "kind=user", "state=cannot_resume"); v != 3 {
		t.Fatalf("cannot_resume before: %v", v)
	}
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	for i := 1; i <= exporter.NotReadyAfterFailures; i++ {
		clock.Advance(interval)
		if err := e.Round(context.Background()); err == nil || !strings.Contains(err.Error(), "table_stream_consumption") {
			t.Fatalf("blind round %d: err %v, want the critical source named", i, err)
		}
		code, body := get(t, srv.URL+"/readyz")
		if want := i < exporter.NotReadyAfterFailures; (code == http.StatusOK) != want {
			t.Fatalf("after %d blind round(s): /readyz %d %q", i, code, body)
		}
	}
	s, _ := gather(t, e)
	if s.get(t, "dorisdiag_exporter_round_failures_total") != float64(exporter.NotReadyAfterFailures) ||
		s.get(t, "doris_fe_changelog_ivm_monitor_sample_failures_total") != float64(exporter.NotReadyAfterFailures) ||
		s.get(t, "dorisdiag_exporter_rounds_total") != 1 {
		t.Errorf("failures/rounds not counted: %v", s)
	}
	for _, name := range []string{"doris_fe_changelog_streams", "doris_fe_changelog_stream_state", "doris_fe_changelog_stream_pending_age_seconds",
		"doris_fe_changelog_stream_max_pending_age_seconds", "doris_fe_changelog_stream_min_retention_headroom_seconds"} {
		if n := s.count(name); n != 0 {
			t.Errorf("%s: %d series served from a round that could not read the offsets", name, n)
		}
	}
	if s.get(t, "dorisdiag_exporter_series_withheld", "area=streams", "source=information_schema.table_stream_consumption") != 1 ||
		s.get(t, "dorisdiag_exporter_source_unreadable", "severity=critical", "source=information_schema.table_stream_consumption") != 1 ||
		s.get(t, "dorisdiag_finding", "code=SOURCE_UNREACHABLE", "severity=critical", "cluster=prod-a") != 1 {
		t.Error("no reason series for the withheld streams")
	}
	// The sample time stays the last completed round's: the monitor ages.
	if got, want := s.get(t, "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds"), before.get(t, "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds"); got != want {
		t.Errorf("last sample moved on a failed round: %v → %v", want, got)
	}
}

// TestBlindnessRulesFire (issue 20 item 3, Why: a dead exporter cleared every
// alert of its cluster and nothing fired; a blind one too): in Prometheus's
// rule engine (promtool), an exporter that is down fires
// DorisdiagExporterDown per cluster and instance; one that answers but never
// completes a round fires DorisdiagExporterNoRound; one whose rounds fail
// fires DorisdiagExporterRoundsFailing; a cluster whose series vanish fires
// DorisdiagClusterAbsent.
func TestBlindnessRulesFire(t *testing.T) {
	in := []map[string]string{
		{"series": `up{job="dorisdiag",instance="dd-a:10930",cluster="prod-a"}`, "values": "1x9 0x60"},
		{"series": `up{job="dorisdiag",instance="dd-b:10930",cluster="prod-b"}`, "values": "1x70"},
		// prod-b answers but its rounds stopped completing at 2m15s.
		{"series": `dorisdiag_exporter_last_success_timestamp_seconds{job="dorisdiag",instance="dd-b:10930",cluster="prod-b"}`, "values": "0+15x9 135x60"},
		{"series": `dorisdiag_exporter_interval_seconds{job="dorisdiag",instance="dd-b:10930",cluster="prod-b"}`, "values": "15x70"},
		// prod-c answers and never completed a round.
		{"series": `up{job="dorisdiag",instance="dd-c:10930",cluster="prod-c"}`, "values": "1x70"},
		{"series": `dorisdiag_exporter_interval_seconds{job="dorisdiag",instance="dd-c:10930",cluster="prod-c"}`, "values": "15x70"},
		// prod-a's series end when its exporter dies.
		{"series": `dorisdiag_exporter_interval_seconds{job="dorisdiag",instance="dd-a:10930",cluster="prod-a"}`, "values": "15x9 _x60"},
		{"series": `dorisdiag_exporter_last_success_timestamp_seconds{job="dorisdiag",instance="dd-a:10930",cluster="prod-a"}`, "values": "0+15x9 _x60"},
	}
	lbl := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	var rules struct {
		Groups []struct {
			Rules []rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(exporter.AlertRules(), &rules); err != nil {
		t.Fatal(err)
	}
	byName := map[string]rule{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			byName[r.Alert] = r
		}
	}
	// One expected alert: its labels (the rule's severity, the series'
	// cluster, job and instance) and its annotations as Prometheus expands
	// them with the alert's value.
	one := func(alert string, value float64, kv ...string) map[string]any {
		r := byName[alert]
		ls := lbl(kv...)
		ann := map[string]string{}
		for k, v := range r.Annotations {
			ann[k] = expand(t, v, firing{lbls: labels.FromMap(ls), value: value})
		}
		for k, v := range r.Labels {
			ls[k] = v
		}
		return map[string]any{"eval_time": "15m", "alertname": alert,
			"exp_alerts": []expAlert{{ExpLabels: ls, ExpAnnotations: ann}}}
	}
	tests := []map[string]any{
		one("DorisdiagExporterDown", 0, "job", "dorisdiag", "instance", "dd-a:10930", "cluster", "prod-a"),
		one("DorisdiagExporterNoRound", 1, "job", "dorisdiag", "instance", "dd-c:10930", "cluster", "prod-c"),
		one("DorisdiagExporterRoundsFailing", 900-135, "job", "dorisdiag", "instance", "dd-b:10930", "cluster", "prod-b"),
		one("DorisdiagClusterAbsent", 1, "cluster", "prod-a"),
	}
	doc := map[string]any{
		"rule_files":          []string{"dorisdiag-alerts.yml"},
		"evaluation_interval": "15s",
		"tests":               []map[string]any{{"interval": "15s", "input_series": in, "alert_rule_test": tests}},
	}
	var buf bytes.Buffer
	if err := yaml.NewEncoder(&buf).Encode(doc); err != nil {
		t.Fatal(err)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus): the blindness rules are not run")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dorisdiag-alerts.yml"), exporter.AlertRules(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.yml"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%.6000s", err, out)
	}
}
