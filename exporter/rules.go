package exporter

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
)

// The shipped alert rules (docs/alerts/dorisdiag-alerts.yml), generated from
// the finding declarations (docs/exporter.md "Alert rules"): one rule per
// finding code over dorisdiag_finding, the series that carries check's
// findings — so the alerts a Prometheus fires on a cluster are check's
// findings on it, with check's severity (the series' severity label), and
// no threshold is judged twice. Then the rules that keep the unattended path
// from going quiet when it is blind: the exporter down, a cluster's series
// absent, rounds failing.

// FindingFor is the `for:` of every finding rule: four rounds at the
// default interval, so one round's flap pages no one.
const FindingFor = "1m"

// ExporterJob is the scrape job the blindness rules select `up` from
// (docs/exporter.md "Many clusters").
const ExporterJob = "dorisdiag"

type yamlRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations"`
}

type yamlGroup struct {
	Name  string     `yaml:"name"`
	Rules []yamlRule `yaml:"rules"`
}

// AlertName is the alert of a finding code: "Dorisdiag" and the code in
// CamelCase (STREAM_CANNOT_RESUME_CLIPPED → DorisdiagStreamCannotResumeClipped).
func AlertName(code string) string {
	var b strings.Builder
	b.WriteString("Dorisdiag")
	for _, w := range strings.Split(strings.ToLower(code), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// objectText is the object of a finding as an alert summary names it, from
// the series' labels: "stream demo.s_orders_audit partition p1 in cluster
// prod-a" (each part only when its label is set).
const objectText = `{{ $labels.kind }} {{ with $labels.db }}{{ . }}.{{ end }}{{ $labels.name }}` +
	`{{ with $labels.partition }} partition {{ . }}{{ end }}{{ with $labels.cluster }} in cluster {{ . }}{{ end }}`

// AlertRules renders the rules file.
func AlertRules() []byte {
	var findings []yamlRule
	for _, name := range check.EmittedCodes() {
		d, ok := diag.LookupCode(name)
		if !ok {
			panic("exporter: check emits " + name + ", which is not declared") // check links every package it runs
		}
		findings = append(findings, yamlRule{
			Alert: AlertName(d.Code),
			Expr:  `dorisdiag_finding{code="` + d.Code + `"} == 1`,
			For:   FindingFor,
			Annotations: map[string]string{
				"summary": strings.TrimRight(d.Title, ".") + ": " + objectText,
				"runbook": "dorisdiag explain " + d.Code,
			},
		})
	}
	up := `up{job="` + ExporterJob + `"}`
	blind := []yamlRule{
		{
			Alert:  "DorisdiagExporterDown",
			Expr:   up + ` == 0`,
			For:    "1m",
			Labels: map[string]string{"severity": "critical"},
			Annotations: map[string]string{
				"summary": `The dorisdiag exporter {{ $labels.instance }}{{ with $labels.cluster }} of cluster {{ . }}{{ end }} is down: none of that cluster's findings can fire`,
				"runbook": "curl -s http://{{ $labels.instance }}/readyz",
			},
		},
		{
			Alert:  "DorisdiagExporterNoRound",
			Expr:   `(` + up + ` == 1) unless on (job, instance) dorisdiag_exporter_last_success_timestamp_seconds`,
			For:    "5m",
			Labels: map[string]string{"severity": "critical"},
			Annotations: map[string]string{
				"summary": `The dorisdiag exporter {{ $labels.instance }}{{ with $labels.cluster }} of cluster {{ . }}{{ end }} answers but has completed no round: its cluster's series are absent`,
				"runbook": "curl -s http://{{ $labels.instance }}/readyz",
			},
		},
		{
			Alert:  "DorisdiagExporterRoundsFailing",
			Expr:   `time() - dorisdiag_exporter_last_success_timestamp_seconds > 4 * dorisdiag_exporter_interval_seconds`,
			For:    "1m",
			Labels: map[string]string{"severity": "critical"},
			Annotations: map[string]string{
				"summary": `The dorisdiag exporter {{ $labels.instance }}{{ with $labels.cluster }} of cluster {{ . }}{{ end }} has completed no round for {{ $value | humanizeDuration }}: a collection error, a timeout or a critical source unreadable (its series show the last round it could read)`,
				"runbook": "curl -s http://{{ $labels.instance }}/readyz",
			},
		},
		{
			Alert:  "DorisdiagClusterAbsent",
			Expr:   `group by (cluster) (last_over_time(dorisdiag_exporter_interval_seconds[1d])) unless on (cluster) group by (cluster) (dorisdiag_exporter_interval_seconds)`,
			For:    "5m",
			Labels: map[string]string{"severity": "critical"},
			Annotations: map[string]string{
				"summary": `No dorisdiag exporter series of cluster {{ $labels.cluster }} for 5 minutes (it had some within a day): its exporter is gone from the scrape`,
				"runbook": "check the dorisdiag scrape job's targets in Prometheus",
			},
		},
		{
			Alert:  "DorisdiagCheckStale",
			Expr:   `time() - dorisdiag_last_run_timestamp_seconds > 900`,
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary": `dorisdiag check{{ with $labels.cluster }} of cluster {{ . }}{{ end }} has not written a textfile for {{ $value | humanizeDuration }} (cron or collection failing)`,
				"runbook": "dorisdiag check --host FE -o prom --fail-on none -f FILE",
			},
		},
	}
	doc := struct {
		Groups []yamlGroup `yaml:"groups"`
	}{[]yamlGroup{{Name: "dorisdiag-findings", Rules: findings}, {Name: "dorisdiag-blind", Rules: blind}}}
	var buf bytes.Buffer
	buf.WriteString(`# Prometheus alert rules for Doris changelog consumers, generated from the
# finding declarations by ` + "`go test ./exporter -run TestAlertRulesGenerated -update`" + `
# (docs/exporter.md "Alert rules"). Do not edit: change the declaration.
#
# Group dorisdiag-findings: one rule per finding code over dorisdiag_finding,
# the series ` + "`dorisdiag exporter`" + ` and ` + "`dorisdiag check -o prom`" + ` write from
# check's findings; the alert's severity is the one check gave the finding
# (the series' severity label), so what fires is what check reports.
# Group dorisdiag-blind: the exporter down, silent or failing, a cluster gone,
# a textfile gone stale. Set the job in up{job="` + ExporterJob + `"} to your scrape job.
# The design's own alert set over doris_fe_* series is design-alerts.yml.
`)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		panic(err) // plain strings and maps: cannot fail
	}
	return buf.Bytes()
}
