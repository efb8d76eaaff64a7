package exporter_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// demoExporter runs n rounds of a snapshot through the demo source.
func demoExporter(t testing.TB, s *snapshot.Snapshot, n int) *exporter.Exporter {
	t.Helper()
	// The wall clock stands at the scenario's cluster time: the demo's
	// sample timestamps are then the scenario's (deterministic).
	clock := &fakeClock{t: s.Cluster.Now}
	e, err := exporter.New(exporter.Options{Interval: interval, Source: exporter.DemoSource(s, interval), Demo: true, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		mustRound(t, e)
	}
	return e
}

// scrapeText GETs the telemetry path as Prometheus would ask for text.
func scrapeText(t testing.TB, e *exporter.Exporter) []byte {
	t.Helper()
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lintDesign runs our own linter and the design conformance rules over a
// payload (the exporter is no FE and exports no node_info: the conformance
// knows it stands in for the Master).
func lintDesign(t testing.TB, body []byte, now time.Time) []exposition.Problem {
	t.Helper()
	res, err := lint.Lint(bytes.NewReader(body), metrics.LintOptions(exposition.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Parseable || res.Errors > 0 {
		t.Fatalf("our linter: not parseable (%d errors): %+v", res.Errors, res.Problems)
	}
	return metrics.Conform(res, metrics.ConformOptions{Now: now})
}

// TestQuotasAtScale: 2,000 MVs give 1,000 per-object MV series and
// objects_not_exported{type="mv"} 1000; the payload parses with expfmt and
// our linter and conforms to the design (budget about 9,100 series).
func TestQuotasAtScale(t *testing.T) {
	s := scenario.Scale(scenario.DefaultScale)
	e := demoExporter(t, s, 1)
	got, _ := gather(t, e)
	if n := got.count("doris_fe_ivm_mv_data_delay_seconds"); n != 1000 {
		t.Errorf("%d per-object MV delay series, want the quota 1000", n)
	}
	if v := got.get(t, "doris_fe_changelog_ivm_monitor_objects_not_exported", "type=mv"); v != 1000 {
		t.Errorf(`objects_not_exported{type="mv"} %v, want 1000`, v)
	}
	if v := got.get(t, "doris_fe_changelog_ivm_monitor_objects_not_exported", "type=stream"); v != 0 {
		t.Errorf(`objects_not_exported{type="stream"} %v, want 0 (1,000 user streams, quota 1,000)`, v)
	}
	if got.get(t, "doris_fe_ivm_mvs", "state=fresh")+got.get(t, "doris_fe_ivm_mvs", "state=lagging") < 1500 {
		t.Error("the cluster-level series must count every MV, beyond the quota too")
	}
	body := scrapeText(t, e)
	if _, err := expfmtParse(body); err != nil {
		t.Fatalf("expfmt: %v", err)
	}
	if probs := lintDesign(t, body, e.Last().ClusterTime); len(probs) > 0 {
		t.Errorf("design conformance: %+v", probs)
	}
	design := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "doris_fe_") {
			design++
		}
	}
	t.Logf("scale payload: %d bytes, %d design series", len(body), design)
	if design > 9200 {
		t.Errorf("%d design series, want about 9,100 at most", design)
	}
}

func expfmtParse(b []byte) (map[string]*dtoFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(b))
}

// TestLabelEscaping (T8): object names with `"`, `\` and a line feed are
// escaped in the label values, and parse back to the names.
func TestLabelEscaping(t *testing.T) {
	s, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	hostile := "s_\"q\\b\nx"
	hostileMV := "mv_\\\"\n"
	s.Streams = append([]snapshot.Stream(nil), s.Streams...)
	s.Consumption = append([]snapshot.Consumption(nil), s.Consumption...)
	s.MVs = append([]snapshot.MVInfo(nil), s.MVs...)
	for i := range s.Streams {
		if s.Streams[i].ID == 61001 {
			s.Streams[i].Name = hostile
		}
	}
	for i := range s.Consumption {
		if s.Consumption[i].StreamID == 61001 {
			s.Consumption[i].StreamName = hostile
		}
	}
	s.MVs[0].Name = hostileMV
	e := demoExporter(t, s, 1)
	body := scrapeText(t, e)
	if !bytes.Contains(body, []byte(`stream_name="s_\"q\\b\nx"`)) {
		t.Errorf("the hostile stream name is not escaped as the exposition format requires:\n%s", grepLines(body, "61001"))
	}
	fams, err := expfmtParse(body)
	if err != nil {
		t.Fatalf("expfmt: %v", err)
	}
	found := map[string]bool{}
	for _, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if l.GetValue() == hostile || l.GetValue() == hostileMV {
					found[l.GetValue()] = true
				}
			}
		}
	}
	if !found[hostile] || !found[hostileMV] {
		t.Errorf("names did not parse back: %v", found)
	}
	lintDesign(t, body, e.Last().ClusterTime)
}

func grepLines(b []byte, sub string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestRenderNeverBlocksOnARound: a scrape while a round hangs answers from
// the last published result.
func TestRenderNeverBlocksOnARound(t *testing.T) {
	base, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	demo := exporter.DemoSource(base, interval)
	src := func(ctx context.Context, round int) (*snapshot.Snapshot, error) {
		if round == 2 {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return demo(ctx, round)
	}
	e, err := exporter.New(exporter.Options{Interval: interval, RoundTimeout: time.Hour, Source: src, Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRound(t, e)
	done := make(chan error, 1)
	go func() { done <- e.Round(context.Background()) }()
	body := scrapeText(t, e) // would hang if rendering waited for the round
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte("dorisdiag_exporter_rounds_total 1")) {
		t.Errorf("the scrape during round 2 did not serve round 1:\n%s", grepLines(body, "rounds_total"))
	}
}
