package exporter_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/prometheus/common/helpers/templates"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/scenario"
)

// The promtool rules test of docs/alerts/ (docs/exporter.md "Alert rules"):
// its input series are the exporter's real output, round by round, on the
// incident scenario with the demo's simulated clock; its expected alerts are
// computed here from that output and the rules. `-update` rewrites the file;
// where promtool is installed, `promtool test rules` must pass on it.

const (
	rulesTestRounds = 61 // 15 minutes at 15 s: longer than every `for:` of the rules
	rulesFile       = "design-alerts.yml"
	rulesTestFile   = "design-alerts_test.yml"
)

type sample struct {
	lbls labels.Labels
	vals []float64
}

// incidentTimeline runs the exporter's rounds over the incident demo and
// returns every doris_fe_* and dorisdiag_exporter_* series, one value per round.
func incidentTimeline(t *testing.T) map[string]*sample {
	t.Helper()
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	e := demoExporter(t, s, 0)
	out := map[string]*sample{}
	for r := 0; r < rulesTestRounds; r++ {
		mustRound(t, e)
		_, fams := gather(t, e)
		for _, f := range fams {
			name := f.GetName()
			if !strings.HasPrefix(name, "doris_fe_") && !strings.HasPrefix(name, "dorisdiag_exporter_") {
				continue
			}
			// Wall-clock self-series differ from run to run: not rule inputs.
			if name == "dorisdiag_exporter_round_duration_seconds" || name == "dorisdiag_exporter_last_success_timestamp_seconds" ||
				name == "doris_fe_changelog_ivm_monitor_sample_duration_seconds" {
				continue
			}
			for _, m := range f.Metric {
				b := labels.NewBuilder(labels.EmptyLabels()).Set(model.MetricNameLabel, name)
				for _, l := range m.Label {
					b.Set(l.GetName(), l.GetValue())
				}
				ls := b.Labels()
				k := ls.String()
				if out[k] == nil {
					out[k] = &sample{lbls: ls, vals: make([]float64, rulesTestRounds)}
					for i := range out[k].vals {
						out[k].vals[i] = math.NaN() // absent in that round: "_"
					}
				}
				v := m.GetGauge().GetValue()
				if m.Counter != nil {
					v = m.Counter.GetValue()
				}
				out[k].vals[r] = v
			}
		}
	}
	return out
}

// values writes a promtool values string: "a+bxn" for an arithmetic run,
// else the values.
func values(v []float64) string {
	f := func(x float64) string {
		if math.IsNaN(x) {
			return "_"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	step := v[1] - v[0]
	arith := !math.IsNaN(step)
	for i := 1; i < len(v); i++ {
		if v[i] != v[0]+float64(i)*step {
			arith = false
			break
		}
	}
	if arith {
		if step == 0 {
			return fmt.Sprintf("%sx%d", f(v[0]), len(v)-1)
		}
		sign := "+"
		if step < 0 {
			sign = "-"
		}
		return fmt.Sprintf("%s%s%sx%d", f(v[0]), sign, f(math.Abs(step)), len(v)-1)
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = f(x)
	}
	return strings.Join(parts, " ")
}

type rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func loadRules(t *testing.T) []rule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "alerts", rulesFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Rules []rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []rule
	for _, g := range doc.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

type firing struct {
	lbls  labels.Labels // the series' labels without __name__
	value float64
}

// evaluate computes, for one round, the result of the two shapes the rules'
// instant conditions take — `SELECTOR op NUMBER` and `SELECTOR - ignoring(l)
// SELECTOR op NUMBER` — over the timeline. ok is false for another shape.
func evaluate(expr parser.Expr, tl map[string]*sample, round int) (out []firing, ok bool) {
	be, isBin := expr.(*parser.BinaryExpr)
	if isBin && (be.Op == parser.LAND || be.Op == parser.LUNLESS) {
		// `COND and|unless on (l...) SELECTOR`: the condition's elements
		// with (and) or without (unless) a right-hand element that has the
		// same values of l.
		rs, isSel := be.RHS.(*parser.VectorSelector)
		if !isSel || be.VectorMatching == nil || !be.VectorMatching.On {
			return nil, false
		}
		left, ok := evaluate(be.LHS, tl, round)
		if !ok {
			return nil, false
		}
		on := func(ls labels.Labels) string {
			return ls.MatchLabels(true, be.VectorMatching.MatchingLabels...).String()
		}
		right := map[string]bool{}
		for _, f := range selectAt(rs, tl, round) {
			right[on(f.lbls)] = true
		}
		for _, f := range left {
			if right[on(f.lbls)] == (be.Op == parser.LAND) {
				out = append(out, f)
			}
		}
		return out, true
	}
	if !isBin || !be.Op.IsComparisonOperator() || be.ReturnBool {
		return nil, false
	}
	num, isNum := be.RHS.(*parser.NumberLiteral)
	if !isNum {
		return nil, false
	}
	cmp := func(v float64) bool {
		switch be.Op {
		case parser.GTR:
			return v > num.Val
		case parser.GTE:
			return v >= num.Val
		case parser.LSS:
			return v < num.Val
		case parser.LTE:
			return v <= num.Val
		case parser.EQLC:
			return v == num.Val
		case parser.NEQ:
			return v != num.Val
		}
		return false
	}
	selectFrom := func(vs *parser.VectorSelector) []firing { return selectAt(vs, tl, round) }
	lhs := be.LHS
	for {
		pe, isParen := lhs.(*parser.ParenExpr)
		if !isParen {
			break
		}
		lhs = pe.Expr
	}
	switch l := lhs.(type) {
	case *parser.BinaryExpr:
		// A chained comparison, `X < a >= b`: the first filter, then this.
		if l.Op.IsComparisonOperator() {
			inner, ok := evaluate(l, tl, round)
			if !ok {
				return nil, false
			}
			for _, f := range inner {
				if cmp(f.value) {
					out = append(out, f)
				}
			}
			return out, true
		}
	}
	switch l := lhs.(type) {
	case *parser.VectorSelector:
		for _, f := range selectFrom(l) {
			if cmp(f.value) {
				out = append(out, f)
			}
		}
		return out, true
	case *parser.BinaryExpr:
		a, okA := l.LHS.(*parser.VectorSelector)
		b, okB := l.RHS.(*parser.VectorSelector)
		if l.Op != parser.SUB || !okA || !okB || l.VectorMatching == nil || l.VectorMatching.On {
			return nil, false
		}
		drop := func(ls labels.Labels) string {
			return labels.NewBuilder(ls).Del(l.VectorMatching.MatchingLabels...).Labels().String()
		}
		right := map[string]float64{}
		for _, f := range selectFrom(b) {
			right[drop(f.lbls)] = f.value
		}
		for _, f := range selectFrom(a) {
			if rv, ok := right[drop(f.lbls)]; ok {
				v := f.value - rv
				// A binary operation drops the metric name and the ignored labels.
				if cmp(v) {
					out = append(out, firing{labels.NewBuilder(f.lbls).Del(l.VectorMatching.MatchingLabels...).Labels(), v})
				}
			}
		}
		return out, true
	}
	return nil, false
}

// selectAt is the instant vector of vs at round, without the metric name.
func selectAt(vs *parser.VectorSelector, tl map[string]*sample, round int) []firing {
	var res []firing
	keys := make([]string, 0, len(tl))
	for k := range tl {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := tl[k]
		if vs.Name != "" && s.lbls.Get(model.MetricNameLabel) != vs.Name {
			continue
		}
		match := true
		for _, m := range vs.LabelMatchers {
			if !m.Matches(s.lbls.Get(m.Name)) {
				match = false
			}
		}
		if match && !math.IsNaN(s.vals[round]) {
			res = append(res, firing{labels.NewBuilder(s.lbls).Del(model.MetricNameLabel).Labels(), s.vals[round]})
		}
	}
	return res
}

// expand renders an annotation as Prometheus does (rules/alerting.go: the
// $labels/$value preamble, text/template, humanizeDuration).
func expand(t *testing.T, text string, f firing) string {
	t.Helper()
	tmpl, err := template.New("a").Option("missingkey=zero").Funcs(template.FuncMap{
		"humanizeDuration": templates.HumanizeDuration,
	}).Parse("{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}" + text)
	if err != nil {
		t.Fatalf("annotation %q: %v", text, err)
	}
	var b bytes.Buffer
	data := struct {
		Labels, ExternalLabels map[string]string
		ExternalURL            string
		Value                  any
	}{f.lbls.Map(), map[string]string{}, "", f.value}
	if err := tmpl.Execute(&b, data); err != nil {
		t.Fatalf("annotation %q: %v", text, err)
	}
	return b.String()
}

// silentBecause says why a rule of another shape cannot fire on the demo
// timeline, checked against it; "" when it might.
func silentBecause(expr parser.Expr, tl map[string]*sample) string {
	names := map[string]bool{}
	increase, absent, timeMinus := false, false, false
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		switch x := n.(type) {
		case *parser.VectorSelector:
			names[x.Name] = true
		case *parser.Call:
			switch x.Func.Name {
			case "increase":
				increase = true
			case "absent":
				absent = true
			case "time":
				timeMinus = true
			}
		}
		return nil
	})
	present := func(name string) (bool, bool) { // present, constant
		any, constant := false, true
		for _, s := range tl {
			if s.lbls.Get(model.MetricNameLabel) == name {
				any = true
				for _, v := range s.vals {
					if v != s.vals[0] {
						constant = false
					}
				}
			}
		}
		return any, constant
	}
	all := make([]string, 0, len(names))
	for n := range names {
		all = append(all, n)
	}
	sort.Strings(all)
	for _, n := range all {
		p, constant := present(n)
		switch {
		case !p && !absent:
			return n + " is not in the exporter's output"
		case increase && constant:
			return "increase() of " + n + ", constant on the timeline (no task finishes in the demo)"
		case absent && p:
			return n + " is present"
		case timeMinus && p:
			return "time() in the test starts at 0: " + n + " (cluster time) is in the future of it"
		}
	}
	return ""
}

type expAlert struct {
	ExpLabels      map[string]string `yaml:"exp_labels,omitempty"`
	ExpAnnotations map[string]string `yaml:"exp_annotations,omitempty"`
}

type alertTest struct {
	EvalTime  string     `yaml:"eval_time"`
	Alertname string     `yaml:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts"`
}

// TestDesignAlertsTestFile: docs/alerts/design-alerts_test.yml is the
// promtool test of the design's rules on the exporter's incident output; the
// design's alerts fire on the incident.
func TestDesignAlertsTestFile(t *testing.T) {
	tl := incidentTimeline(t)
	rules := loadRules(t)
	p := parser.NewParser(parser.Options{})
	last := rulesTestRounds - 1
	evalTime := time.Duration(last) * interval
	var tests []alertTest
	fired := map[string]int{}
	for _, r := range rules {
		expr, err := p.ParseExpr(r.Expr)
		if err != nil {
			t.Fatalf("%s: %v", r.Alert, err)
		}
		var forDur time.Duration
		if r.For != "" {
			if forDur, err = time.ParseDuration(r.For); err != nil {
				t.Fatalf("%s: for %q: %v", r.Alert, r.For, err)
			}
		}
		now, ok := evaluate(expr, tl, last)
		if !ok {
			if why := silentBecause(expr, tl); why == "" {
				t.Errorf("%s: %q: this test cannot evaluate it and cannot show it silent", r.Alert, r.Expr)
			}
			tests = append(tests, alertTest{EvalTime: evalTime.String(), Alertname: r.Alert, ExpAlerts: []expAlert{}})
			continue
		}
		// Pending for `for`: the condition held at every round since.
		held := map[string]bool{}
		for _, f := range now {
			held[f.lbls.String()] = true
		}
		for round := last; round >= 0 && time.Duration(last-round)*interval <= forDur; round-- {
			at, _ := evaluate(expr, tl, round)
			still := map[string]bool{}
			for _, f := range at {
				still[f.lbls.String()] = true
			}
			for k := range held {
				if !still[k] {
					delete(held, k)
				}
			}
		}
		at := alertTest{EvalTime: evalTime.String(), Alertname: r.Alert, ExpAlerts: []expAlert{}}
		for _, f := range now {
			if !held[f.lbls.String()] {
				continue
			}
			ea := expAlert{ExpLabels: map[string]string{}, ExpAnnotations: map[string]string{}}
			f.lbls.Range(func(l labels.Label) { ea.ExpLabels[l.Name] = l.Value })
			for k, v := range r.Labels {
				ea.ExpLabels[k] = v
			}
			for k, v := range r.Annotations {
				ea.ExpAnnotations[k] = expand(t, v, f)
			}
			at.ExpAlerts = append(at.ExpAlerts, ea)
		}
		fired[r.Alert] = len(at.ExpAlerts)
		tests = append(tests, at)
	}
	// DorisStreamHeadroomLow is left out: on the incident the smallest user
	// headroom is an expired offset (negative), DorisStreamCannotResume's.
	for _, want := range []string{"DorisStreamCannotResume", "DorisStreamPendingAgeHigh",
		"DorisIvmMvConsecutiveFailures", "DorisIvmMvDelayHigh", "DorisIvmSomeMvDelayHigh"} {
		if fired[want] == 0 {
			t.Errorf("%s does not fire on the incident scenario", want)
		}
	}

	in := inputSeries(tl)
	doc := map[string]any{
		"rule_files":          []string{rulesFile},
		"evaluation_interval": "15s",
		"tests": []map[string]any{{
			"interval":        "15s",
			"input_series":    in,
			"alert_rule_test": tests,
		}},
	}
	var buf bytes.Buffer
	buf.WriteString("# Generated by `go test ./exporter -run TestDesignAlertsTestFile -update` (docs/exporter.md \"Alert rules\").\n" +
		"# Input: the real output of `dorisdiag exporter --demo incident`, one value per 15 s round (the demo's\n" +
		"# simulated clock); expected: the alerts of design-alerts.yml at the last round. Run: promtool test rules " + rulesTestFile + "\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "alerts", rulesTestFile)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./exporter -run TestDesignAlertsTestFile -update)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Fatalf("%s is stale: run go test ./exporter -run TestDesignAlertsTestFile -update", path)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus): the rules test file is generated and checked, not run")
	}
	out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules %s: %v\n%.4000s", path, err, out)
	}
}

// promSeries is one input_series entry of a promtool rule test.
type promSeries struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

// inputSeries is tl as promtool's input_series, sorted by key: each
// series in PromQL notation (name{l="v",...}; no braces without labels)
// with its values per round.
func inputSeries(tl map[string]*sample) []promSeries {
	keys := make([]string, 0, len(tl))
	for k := range tl {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	in := make([]promSeries, 0, len(keys))
	for _, k := range keys {
		s := tl[k]
		var b strings.Builder
		b.WriteString(s.lbls.Get(model.MetricNameLabel))
		first := true
		s.lbls.Range(func(l labels.Label) {
			if l.Name == model.MetricNameLabel {
				return
			}
			if first {
				b.WriteByte('{')
				first = false
			} else {
				b.WriteByte(',')
			}
			b.WriteString(l.Name + "=" + strconv.Quote(l.Value))
		})
		if !first {
			b.WriteByte('}')
		}
		in = append(in, promSeries{b.String(), values(s.vals)})
	}
	return in
}
