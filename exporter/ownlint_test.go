package exporter_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// TestOwnOutputPassesMetricsLint (issue 20 item 6, Why: `curl …/metrics |
// dorisdiag metrics lint -` exited 1 on the exporter's own output, a false
// "Master-only series on a follower"; and --demo started two days stale):
// on every bundled scenario the exporter's /metrics, with its cluster label,
// has no finding at warning or above under `metrics lint --fail-on
// warning`'s analysis, judged at the wall-clock time of the scrape.
func TestOwnOutputPassesMetricsLint(t *testing.T) {
	for _, name := range scenario.Names() {
		t.Run(name, func(t *testing.T) {
			if name == "scale" && testing.Short() {
				t.Skip("scale: -short")
			}
			s, err := scenario.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			// A wall clock two days after the scenario, as when a user runs
			// the demo today: nothing may read stale.
			clock := &fakeClock{t: s.Cluster.Now.Add(48 * time.Hour)}
			e, err := exporter.New(exporter.Options{Interval: interval, Source: exporter.DemoSource(s, interval), Demo: true,
				Cluster: "demo-" + name, Now: clock.Now, NoGCAfterRound: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				mustRound(t, e)
				clock.Advance(interval)
			}
			body := scrapeText(t, e)
			// --cluster labels every series, go_* and process_* included
			// (issue 20 item 4).
			for _, line := range strings.Split(string(body), "\n") {
				if line != "" && !strings.HasPrefix(line, "#") && !strings.Contains(line, `cluster="demo-`+name+`"`) {
					t.Fatalf("a series without the cluster label: %s", line)
				}
			}
			res, err := lint.Lint(bytes.NewReader(body), metrics.LintOptions(exposition.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			a := metrics.AnalyzePayloads([]metrics.Input{{Source: "exporter", Lint: res}},
				metrics.Options{Conform: metrics.ConformOptions{Now: clock.Now()}, IncludeStyle: true})
			for _, f := range a.Findings {
				if f.Severity >= diag.SeverityWarning {
					t.Errorf("%s %s: %s", f.Severity, f.Code, f.Summary)
				}
			}
		})
	}
}
