package check

import (
	"sort"

	"github.com/dorisdiag/dorisdiag/diag"
)

// Alerting is one finding as the dorisdiag_finding series carries it
// (docs/exporter.md "Findings and alert rules"): the code, the severity
// check gave it, and the object. The exporter and `check -o prom` both
// export check's findings through this one function, and the shipped alert
// rules (generated from the code declarations) fire on that series — so the
// alerts a Prometheus fires are check's findings, judged once, here.
type Alerting struct {
	Code      string
	Severity  string // warning | critical
	Kind      string
	DB        string
	Name      string
	Partition string
}

// Labels are the series' label names, in the order of Alerting.Values.
var AlertingLabels = []string{"code", "severity", "kind", "db", "name", "partition"}

// Values are the label values, in the order of AlertingLabels.
func (a Alerting) Values() []string {
	return []string{a.Code, a.Severity, a.Kind, a.DB, a.Name, a.Partition}
}

// Alertings returns one entry per (code, object) of the findings at warning
// or above (an info finding alerts no one), the worst severity when a code
// is raised twice on one object, sorted.
func Alertings(fs []diag.Finding) []Alerting {
	type key struct{ code, kind, db, name, part string }
	worst := map[key]diag.Severity{}
	for i := range fs {
		f := &fs[i]
		if f.Severity < diag.SeverityWarning {
			continue
		}
		k := key{f.Code.String(), f.Object.Kind, f.Object.DB, f.Object.Name, f.Object.Partition}
		if f.Severity > worst[k] {
			worst[k] = f.Severity
		}
	}
	out := make([]Alerting, 0, len(worst))
	for k, s := range worst {
		out = append(out, Alerting{Code: k.code, Severity: s.String(), Kind: k.kind, DB: k.db, Name: k.name, Partition: k.part})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Values(), out[j].Values()
		for x := range a {
			if a[x] != b[x] {
				return a[x] < b[x]
			}
		}
		return false
	})
	return out
}

// EmittedCodes are the finding codes Run can raise, sorted — derived from
// the code by TestEmittedCodesGenerated (emits.go), never listed by hand:
// the codes dorisdiag_finding can carry, which the generated alert rules
// cover exactly (a code only `tso headroom` or `doctor net` raises has no
// rule: no series carries it).
func EmittedCodes() []string { return append([]string(nil), emitted...) }
