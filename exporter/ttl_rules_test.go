package exporter_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/fixtures/corpus"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Issue 20/21, one truth under unknown TTL enforcement: the design's
// DorisStreamCannotResume was critical on every build while check gives its
// codes (the declarations whose Alert is DorisStreamCannotResume) a warning
// where nothing proves the build expires changes. On the docs' own
// consumption rows (corpus docs-consumption, a binlog.* build with no
// evidence), with the user's yes and with the user's no, the design rules
// run in Prometheus's rule engine (promtool test rules) over the exporter's
// real output, and the severity that fires is check's: critical when
// enforced, the worded warning when unknown, nothing when not enforced.
func TestDesignCannotResumeIsChecksSeverity(t *testing.T) {
	const alert = "DorisStreamCannotResume"
	var rules []rule
	for _, r := range loadRules(t) {
		if strings.HasPrefix(r.Alert, alert) {
			rules = append(rules, r)
		}
	}
	if len(rules) < 2 {
		t.Fatalf("design-alerts.yml has %d %s* rules, want the critical and the conditional warning", len(rules), alert)
	}
	yes, no := true, false
	for _, b := range []struct {
		name    string
		assumed *bool
		want    string // check's severity; "" none
	}{
		{"unknown", nil, "warning"},
		{"enforced", &yes, "critical"},
		{"not-enforced", &no, ""},
	} {
		t.Run(b.name, func(t *testing.T) {
			s, err := corpus.Snapshot("docs-consumption")
			if err != nil {
				t.Fatal(err)
			}
			if b.assumed != nil {
				s.AssumeTTLEnforced(*b.assumed, "test")
			}
			// check's verdict: the worst severity of the codes the design
			// rule carries.
			got := ""
			for _, f := range check.Run([]*snapshot.Snapshot{s}, check.Options{}).Findings {
				if f.Code.Declaration().Alert == alert && f.Severity >= diag.SeverityWarning && (got == "" || f.Severity.String() == "critical") {
					got = f.Severity.String()
				}
			}
			if got != b.want {
				t.Fatalf("check's %s severity on docs-consumption is %q, want %q: the corpus no longer shows the gate", alert, got, b.want)
			}

			const rounds, eval, cluster = 3, 2, "docs"
			tl := snapshotTimeline(t, s, cluster, rounds)
			var tests []alertTest
			fired := 0
			for _, r := range rules {
				at := alertTest{EvalTime: (eval * interval).String(), Alertname: r.Alert, ExpAlerts: []expAlert{}}
				if r.Labels["severity"] == b.want {
					for _, sm := range tl {
						if sm.lbls.Get(model.MetricNameLabel) != "doris_fe_changelog_streams" || sm.lbls.Get("state") != "cannot_resume" || !(sm.vals[eval] > 0) {
							continue
						}
						f := firing{lbls: sm.lbls.MatchLabels(false, model.MetricNameLabel), value: sm.vals[eval]}
						ea := expAlert{ExpLabels: f.lbls.Map(), ExpAnnotations: map[string]string{}}
						ea.ExpLabels["severity"] = r.Labels["severity"]
						for k, v := range r.Annotations {
							ea.ExpAnnotations[k] = expand(t, v, f)
						}
						at.ExpAlerts = append(at.ExpAlerts, ea)
						fired++
					}
				}
				tests = append(tests, at)
			}
			if (b.want != "") != (fired > 0) {
				t.Fatalf("check says %q, the exporter serves %d cannot_resume count(s) > 0", b.want, fired)
			}
			if b.want == "warning" && !strings.Contains(tests[1].ExpAlerts[0].ExpAnnotations["summary"], ttl.Condition("")) {
				t.Errorf("the warning's summary %q does not carry check's wording %q", tests[1].ExpAlerts[0].ExpAnnotations["summary"], ttl.Condition(""))
			}
			runDesignPromtool(t, tl, tests)
		})
	}
}

// runDesignPromtool runs `promtool test rules` on the design's rules with
// tl as input and tests as the expected alerts; skipped (with the reason
// printed) without promtool.
func runDesignPromtool(t *testing.T, tl timeline, tests []alertTest) {
	t.Helper()
	type series struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	var in []series
	for _, sm := range tl {
		var b strings.Builder
		b.WriteString(sm.lbls.Get(model.MetricNameLabel) + "{")
		first := true
		sm.lbls.Range(func(l labels.Label) {
			if l.Name == model.MetricNameLabel {
				return
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(l.Name + "=" + strconv.Quote(l.Value))
		})
		b.WriteString("}")
		in = append(in, series{b.String(), values(sm.vals)})
	}
	doc := map[string]any{
		"rule_files":          []string{rulesFile},
		"evaluation_interval": "15s",
		"tests":               []map[string]any{{"interval": "15s", "input_series": in, "alert_rule_test": tests}},
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus): the expected alerts are computed but not run through Prometheus's rule engine")
	}
	dir := t.TempDir()
	rulesText, err := os.ReadFile(filepath.Join("..", "docs", "alerts", rulesFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{rulesFile: rulesText, "test.yml": buf.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(promtool, "test", "rules", "test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%.6000s", err, out)
	}
}

// Issue 20: rules were generated for every declared code, TSO_* included,
// which no dorisdiag_finding series ever carries (only `tso headroom`
// raises them). The generated finding rules are exactly the codes check can
// raise (check.EmittedCodes, derived from the code): every rule's code can
// be on the series, and every code on the series of every bundled scenario
// and corpus case (check's findings at warning and above, as the exporter
// and `check -o prom` export them) has its rule.
func TestAlertRulesCoverExactlyTheSeriesCodes(t *testing.T) {
	var doc struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(exporter.AlertRules(), &doc); err != nil {
		t.Fatal(err)
	}
	ruled := map[string]bool{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			if code, ok := strings.CutPrefix(r.Expr, `dorisdiag_finding{code="`); ok {
				ruled[code[:strings.IndexByte(code, '"')]] = true
			}
		}
	}
	emitted := map[string]bool{}
	for _, c := range check.EmittedCodes() {
		emitted[c] = true
		if !ruled[c] {
			t.Errorf("check can raise %s (on dorisdiag_finding) and no rule alerts on it", c)
		}
	}
	for c := range ruled {
		if !emitted[c] {
			t.Errorf("rule for %s, which check never raises: no dorisdiag_finding series carries it", c)
		}
	}
	for _, c := range []string{"TSO_OFFSET_EXPIRED", "TSO_HEADROOM_LOW", "NET_STREAM_LOAD_HANG"} {
		if ruled[c] {
			t.Errorf("a rule for %s, which only a calculator or doctor raises", c)
		}
	}
	var snaps []*snapshot.Snapshot
	for _, name := range scenario.Names() {
		if name == "scale" && testing.Short() {
			continue
		}
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	for _, name := range corpus.Names() {
		s, err := corpus.Snapshot(name)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	seen := 0
	for _, s := range snaps {
		for _, a := range check.Alertings(check.Run([]*snapshot.Snapshot{s}, check.Options{}).Findings) {
			seen++
			if !ruled[a.Code] {
				t.Errorf("%s is on dorisdiag_finding and has no rule", a.Code)
			}
			if !emitted[a.Code] {
				t.Errorf("%s is on dorisdiag_finding but not in check.EmittedCodes: the analysis missed a path", a.Code)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no finding on any scenario")
	}
}
