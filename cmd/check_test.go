package cmd

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"github.com/dorisdiag/dorisdiag/fixtures"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// checkDocOf runs check with -o json and decodes the findings.
type checkJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"`
	Passed        bool   `json:"passed"`
	FailOn        string `json:"fail_on"`
	Findings      []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Object   struct {
			Kind, DB, Name, Partition string
		} `json:"object"`
	} `json:"findings"`
	Suppressed []struct {
		Reason string `json:"reason"`
	} `json:"suppressed"`
	Overview struct {
		Findings struct{ Critical, Warning, Info, Suppressed int } `json:"findings"`
	} `json:"overview"`
}

func runCheckJSON(t *testing.T, args ...string) (checkJSON, int) {
	t.Helper()
	out, stderr, code := run(t, nil, "", append([]string{"check", "-o", "json"}, args...)...)
	var doc checkJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("check %v: exit %d, stderr %q, not JSON: %v", args, code, stderr, err)
	}
	return doc, code
}

func TestCheckGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"check_incident.txt", []string{"--demo", "incident"}, cmdutil.ExitFindings},
		{"check_healthy.txt", []string{"--demo", "healthy"}, cmdutil.ExitOK},
		{"check_legacy.txt", []string{"--demo", "legacy"}, cmdutil.ExitFindings},
		{"check_incident.json", []string{"--demo", "incident", "-o", "json"}, cmdutil.ExitFindings},
		{"check_healthy.json", []string{"--demo", "healthy", "-o", "json"}, cmdutil.ExitOK},
		{"check_incident.md", []string{"--demo", "incident", "-o", "markdown"}, cmdutil.ExitFindings},
		{"check_incident.prom", []string{"--demo", "incident", "-o", "prom"}, cmdutil.ExitFindings},
		{"check_healthy.prom", []string{"--demo", "healthy", "-o", "prom"}, cmdutil.ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, nil, "", append([]string{"check"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			golden(t, tc.name, out)
		})
	}
}

// Every planted problem of incident and legacy is reported by check (all
// areas together), and healthy reports nothing.
func TestCheckFindsEveryPlantedProblem(t *testing.T) {
	for _, name := range []string{"incident", "legacy", "healthy"} {
		doc, _ := runCheckJSON(t, "--demo", name)
		exp, err := fixtures.Expectations(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exp {
			found := false
			for _, f := range doc.Findings {
				if e.Matches(f.Code, f.Object.Kind, f.Object.DB, f.Object.Name, f.Object.Partition) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: planted %s on %s %s.%s [%s] not reported by check", name, e.Code, e.Kind, e.DB, e.Name, e.Partition)
			}
		}
		if name == "healthy" && len(doc.Findings) != 0 {
			t.Errorf("healthy: %d findings, want none: %+v", len(doc.Findings), doc.Findings)
		}
	}
}

func TestCheckFailOn(t *testing.T) {
	// A config that ignores every critical finding of incident leaves
	// warnings only: --fail-on critical passes, --fail-on warning fails.
	doc, _ := runCheckJSON(t, "--demo", "incident")
	crit := map[string]bool{}
	for _, f := range doc.Findings {
		if f.Severity == "critical" {
			crit[f.Code] = true
		}
	}
	var b strings.Builder
	b.WriteString("ignore:\n")
	codes := make([]string, 0, len(crit))
	for c := range crit {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		b.WriteString("  - code: " + c + "\n    reason: test\n")
	}
	cfg := filepath.Join(t.TempDir(), "dorisdiag.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--demo", "incident"}, cmdutil.ExitFindings},
		{[]string{"--demo", "incident", "--fail-on", "none"}, cmdutil.ExitOK},
		{[]string{"--demo", "incident", "--config", cfg}, cmdutil.ExitOK},
		{[]string{"--demo", "incident", "--config", cfg, "--fail-on", "warning"}, cmdutil.ExitFindings},
		{[]string{"--demo", "healthy", "--fail-on", "warning"}, cmdutil.ExitOK},
		{[]string{"--demo", "incident", "-o", "yaml"}, cmdutil.ExitError},
		{[]string{"--demo", "incident", "--max-delay", "0s"}, cmdutil.ExitError},
		{[]string{"--demo", "incident", "--config", filepath.Join(t.TempDir(), "missing.yaml")}, cmdutil.ExitError},
	} {
		_, stderr, code := run(t, nil, "", append([]string{"check"}, tc.args...)...)
		if code != tc.want {
			t.Errorf("check %v: exit %d, want %d (stderr %q)", tc.args, code, tc.want, stderr)
		}
	}
}

// The config file's ignore and override work, flags beat the file, and what
// was ignored is reported with its reason, not dropped.
func TestCheckConfigIgnoreAndOverride(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "dorisdiag.yaml")
	os.WriteFile(cfg, []byte(`
fail_on: warning
thresholds:
  max_delay: 2h
severity:
  MV_CONSECUTIVE_FAILURES: warning
ignore:
  - code: MV_JOB_PAUSED
    object: demo.mv_inventory
    reason: paused on purpose during the migration
`), 0o644)
	doc, code := runCheckJSON(t, "--demo", "incident", "--config", cfg)
	if code != cmdutil.ExitFindings || doc.FailOn != "warning" {
		t.Errorf("exit %d fail_on %q, want 1 and warning from the file", code, doc.FailOn)
	}
	delays := 0
	for _, f := range doc.Findings {
		switch f.Code {
		case "MV_JOB_PAUSED":
			t.Errorf("MV_JOB_PAUSED on %s.%s was not ignored", f.Object.DB, f.Object.Name)
		case "MV_CONSECUTIVE_FAILURES":
			if f.Severity != "warning" {
				t.Errorf("MV_CONSECUTIVE_FAILURES severity %s, want the override warning", f.Severity)
			}
		case "MV_DELAY_HIGH":
			delays++
		}
	}
	if len(doc.Suppressed) != 1 || doc.Suppressed[0].Reason != "paused on purpose during the migration" || doc.Overview.Findings.Suppressed != 1 {
		t.Errorf("suppressed = %+v", doc.Suppressed)
	}
	// max_delay 2h leaves only the MVs more than 2h behind; --max-delay on
	// the command line wins over the file.
	withFlag, _ := runCheckJSON(t, "--demo", "incident", "--config", cfg, "--max-delay", "5m")
	flagDelays := 0
	for _, f := range withFlag.Findings {
		if f.Code == "MV_DELAY_HIGH" {
			flagDelays++
		}
	}
	if delays >= flagDelays {
		t.Errorf("MV_DELAY_HIGH: %d with max_delay 2h from the file, %d with --max-delay 5m: the flag must win and find more", delays, flagDelays)
	}
}

// -o prom parses with prometheus/common's parser and passes dorisdiag's own
// linter with no error, and every series the alert rules use is written.
func TestCheckPromOutput(t *testing.T) {
	for _, name := range []string{"incident", "healthy", "legacy"} {
		out, _, _ := run(t, nil, "", "check", "--demo", name, "-o", "prom")
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%s: expfmt rejects -o prom: %v", name, err)
		}
		res, err := lint.Lint(strings.NewReader(out), exposition.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range res.Problems {
			if pr.Severity != exposition.SeverityInfo {
				t.Errorf("%s: dorisdiag metrics lint on -o prom: %s:%d: %s %s", name, pr.Rule, pr.Line, pr.Severity, pr.Message)
			}
		}
		if name == "incident" {
			for _, series := range alertSeries(t) {
				// The blindness rules read the exporter's own series.
				if fams[series] == nil && !strings.HasPrefix(series, "dorisdiag_exporter_") {
					t.Errorf("alert rules use %s, which check -o prom does not write", series)
				}
			}
		}
	}
}

var seriesRE = regexp.MustCompile(`\bdorisdiag_[a-z_]+`)

// alertSeries parses docs/alerts/dorisdiag-alerts.yml and returns the
// dorisdiag_* series its expressions use.
func alertSeries(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "alerts", "dorisdiag-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("alert rules: %v", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" {
				t.Errorf("group %s: rule %q lacks alert, expr or summary", g.Name, r.Alert)
			}
			if r.For != "" {
				if _, err := model.ParseDuration(r.For); err != nil {
					t.Errorf("rule %s: for %q: %v", r.Alert, r.For, err)
				}
			}
			// A finding rule takes the severity of the finding
			// (dorisdiag_finding's severity label): it sets none.
			if s := r.Labels["severity"]; !(s == "" && strings.HasPrefix(r.Expr, "dorisdiag_finding{")) && s != "critical" && s != "warning" && s != "info" {
				t.Errorf("rule %s: severity label %q", r.Alert, s)
			}
			for _, m := range seriesRE.FindAllString(r.Expr, -1) {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
	}
	if len(rules.Groups) != 2 || len(out) == 0 {
		t.Fatalf("alert rules: %d groups, %d dorisdiag series", len(rules.Groups), len(out))
	}
	return out
}

// promtool, when installed, validates the rules file as Prometheus does.
func TestAlertRulesPromtool(t *testing.T) {
	alertSeries(t)
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus); the YAML structure is still checked by alertSeries")
	}
	out, err := exec.Command(promtool, "check", "rules", filepath.Join("..", "docs", "alerts", "dorisdiag-alerts.yml")).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

// End to end over the emulator (real MySQL protocol and HTTP): check gates
// incident (exit 1) and healthy (exit 0) with the same findings as --demo,
// in all three machine formats; an unreachable host is exit 2 in time.
func TestCheckE2EEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	for _, tc := range []struct {
		scenario string
		legacy   bool
		code     int
	}{
		{"incident", false, cmdutil.ExitFindings},
		{"healthy", false, cmdutil.ExitOK},
		{"legacy", true, cmdutil.ExitFindings},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			snap, err := scenario.Load(tc.scenario)
			if err != nil {
				t.Fatal(err)
			}
			live := liveArgs(t, snap, emulator.Options{Legacy: tc.legacy})
			// The scenario's BEs advertise addresses that do not exist here:
			// point /metrics at the emulator's FE only.
			hport := live[5]
			live = append(live, "--metrics-targets", "fe=127.0.0.1:"+hport, "--timeout", "5s")
			// The scenario's external consumers, declared as a user would:
			// the live run reads their offset tables from the emulator.
			if cfg := consumersConfig(t, snap); cfg != "" {
				live = append(live, "--config", cfg)
			}
			demo, _ := runCheckJSON(t, "--demo", tc.scenario)
			got, code := runCheckJSON(t, live...)
			if code != tc.code {
				t.Fatalf("live check exit %d, want %d", code, tc.code)
			}
			key := func(d checkJSON, skipMetrics bool) []string {
				var out []string
				for _, f := range d.Findings {
					if skipMetrics && (strings.HasPrefix(f.Code, "METRICS_") || f.Code == "CHANGELOG_TTL_CLEANUP_FAILED") {
						continue
					}
					out = append(out, f.Severity+" "+f.Code+" "+f.Object.DB+"."+f.Object.Name+" "+f.Object.Partition)
				}
				sort.Strings(out)
				return out
			}
			// /metrics differ by design: live fetches the FE only.
			if a, b := strings.Join(key(demo, true), "\n"), strings.Join(key(got, true), "\n"); a != b {
				t.Errorf("live findings differ from --demo:\n--- demo ---\n%s\n--- live ---\n%s", a, b)
			}
			for _, f := range []string{"table", "markdown", "prom"} {
				_, stderr, code := run(t, nil, "", append([]string{"check", "-o", f}, live...)...)
				if code != tc.code {
					t.Errorf("-o %s: exit %d, want %d (stderr %q)", f, code, tc.code, stderr)
				}
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		// Accept and never answer: the MySQL handshake must time out.
		addr := testnet.SilentListener(t)
		host, port, _ := net.SplitHostPort(addr)
		start := time.Now()
		_, stderr, code := run(t, nil, "", "check", "--host", host, "--port", port, "--timeout", "1s")
		if code != cmdutil.ExitError || !strings.Contains(stderr, addr) {
			t.Fatalf("exit %d, stderr %q: want 2 with the host named", code, stderr)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("took %s: the timeout did not fire", d)
		}
	})
}

// --watch on a pipe appends rounds under a header; with a series the
// second round's analysis narrows pending ages (two snapshots).
func TestCheckWatchAppendsRounds(t *testing.T) {
	out, stderr, code := run(t, nil, "", "check", "--demo", "incident", "--watch", "10ms", "--watch-rounds", "2")
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d (stderr %q)", code, stderr)
	}
	if strings.Count(out, "# round ") != 2 || !strings.Contains(out, "2 snapshots in the series") {
		t.Errorf("want two appended rounds, the second over 2 snapshots:\n%s", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("a pipe must get no ANSI (no redraw, no colour)")
	}
}

func TestDiffFindings(t *testing.T) {
	a := diag.Finding{Code: mv.CodeDelayHigh, Object: diag.Object{Kind: "mv", DB: "d", Name: "x"}}
	b := diag.Finding{Code: mv.CodeJobPaused, Object: diag.Object{Kind: "mv", DB: "d", Name: "y"}}
	c := diag.Finding{Code: streams.CodeStale, Object: diag.Object{Kind: "stream", DB: "d", Name: "z"}}
	ch := diffFindings([]diag.Finding{a, b}, []diag.Finding{b, c})
	if !ch.New[report.FindingKey(c)] || ch.New[report.FindingKey(b)] || len(ch.Resolved) != 1 || ch.Resolved[0].Code != mv.CodeDelayHigh {
		t.Errorf("changes = %+v", ch)
	}
	var buf strings.Builder
	doc := report.CheckDoc{Result: &check.Result{Findings: []diag.Finding{b, c}}, Changes: ch}
	if err := report.Emit(&buf, report.Style{}, report.FormatTable, doc); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "New since the last round (1)") || !strings.Contains(out, "Resolved since the last round (1)") || strings.Index(out, " STREAM_STALE ") > strings.Index(out, " MV_JOB_PAUSED ") {
		t.Errorf("watch rendering:\n%s", out)
	}
}

// TestCheckGateSaysWhatPassedMeans: `passed: true` next to critical
// findings under --fail-on none read as a contradiction; the gate object
// says the gate was not enforced and how many findings are critical, and
// under an enforced threshold how many findings fail the run.
func TestCheckGateSaysWhatPassedMeans(t *testing.T) {
	type gate struct {
		FailOn          string `json:"fail_on"`
		Enforced        bool   `json:"enforced"`
		Passed          bool   `json:"passed"`
		AtOrAboveFailOn int    `json:"at_or_above_fail_on"`
		Critical        int    `json:"critical"`
	}
	for _, tc := range []struct {
		args []string
		code int
		want func(g gate, crit, warn int) gate
	}{
		{[]string{"--demo", "incident", "--fail-on", "none"}, cmdutil.ExitOK, func(_ gate, crit, _ int) gate {
			return gate{FailOn: "none", Enforced: false, Passed: true, AtOrAboveFailOn: 0, Critical: crit}
		}},
		{[]string{"--demo", "incident"}, cmdutil.ExitFindings, func(_ gate, crit, _ int) gate {
			return gate{FailOn: "critical", Enforced: true, Passed: false, AtOrAboveFailOn: crit, Critical: crit}
		}},
		{[]string{"--demo", "incident", "--fail-on", "warning"}, cmdutil.ExitFindings, func(_ gate, crit, warn int) gate {
			return gate{FailOn: "warning", Enforced: true, Passed: false, AtOrAboveFailOn: crit + warn, Critical: crit}
		}},
		{[]string{"--demo", "healthy"}, cmdutil.ExitOK, func(_ gate, _, _ int) gate {
			return gate{FailOn: "critical", Enforced: true, Passed: true}
		}},
	} {
		out, stderr, code := run(t, nil, "", append([]string{"check", "-o", "json"}, tc.args...)...)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.code, stderr)
		}
		var doc struct {
			FailOn   string `json:"fail_on"`
			Passed   bool   `json:"passed"`
			Gate     *gate  `json:"gate"`
			Overview struct {
				Findings struct{ Critical, Warning int } `json:"findings"`
			} `json:"overview"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Gate == nil {
			t.Fatalf("%v: no gate: %v", tc.args, err)
		}
		f := doc.Overview.Findings
		if want := tc.want(*doc.Gate, f.Critical, f.Warning); *doc.Gate != want {
			t.Errorf("%v: gate %+v, want %+v", tc.args, *doc.Gate, want)
		}
		if doc.FailOn != doc.Gate.FailOn || doc.Passed != doc.Gate.Passed {
			t.Errorf("%v: the earlier fields fail_on %q passed %v disagree with the gate %+v", tc.args, doc.FailOn, doc.Passed, *doc.Gate)
		}
		if doc.Gate.Passed != (code == cmdutil.ExitOK) {
			t.Errorf("%v: passed %v with exit %d", tc.args, doc.Gate.Passed, code)
		}
	}
	if doc, _ := runCheckJSON(t, "--demo", "incident", "--fail-on", "none"); doc.Overview.Findings.Critical == 0 {
		t.Fatal("incident has no critical finding: the test proves nothing")
	}
}
