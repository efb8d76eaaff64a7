package metrics

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/report"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
)

// The documents of `metrics lint`, `metrics lint --fix`, `metrics lint
// --snapshot/--demo` and `metrics scrape` (docs/metrics.md "JSON"), built
// from diag's one /metrics analysis.

// MetricsLintDoc is one payload linted (kind metrics.lint).
type MetricsLintDoc struct {
	Source    string `json:"source"`
	Parseable bool   `json:"parseable"`
	// PrometheusServer ("kept" | "dropped") and Expfmt ("accepted" |
	// "rejected") say what each consumer does with the payload
	// (docs/metrics.md "Who rejects what"); ServerLine and ServerReason
	// where and why the server drops it.
	PrometheusServer string                  `json:"prometheus_server,omitempty"`
	Expfmt           string                  `json:"expfmt,omitempty"`
	ServerLine       int                     `json:"prometheus_server_line,omitempty"`
	ServerReason     string                  `json:"prometheus_server_reason,omitempty"`
	Lines            int                     `json:"lines"`
	Series           int                     `json:"series"`
	Bytes            int64                   `json:"bytes"`
	Errors           int                     `json:"errors"`
	Warnings         int                     `json:"warnings"`
	Infos            int                     `json:"infos"`
	Problems         []exposition.Problem    `json:"problems"`
	Suppressed       map[string]int          `json:"suppressed,omitempty"`
	Conformance      []exposition.Problem    `json:"conformance"`
	Families         []exposition.FamilyStat `json:"families"`
	S5               *metrics.S5             `json:"s5,omitempty"`
	// Fix is never set (--fix writes kind metrics.fix); it stays in the
	// schema until the next schema_version, since removing a field is a bump.
	Fix      *fix.Report    `json:"fix,omitempty"`
	Findings []diag.Finding `json:"findings"`
	// TopFamilies is how many families the table lists by cardinality.
	TopFamilies int `json:"-"`
}

func (MetricsLintDoc) Kind() string { return "metrics_lint" }

// NewMetricsLintDoc is the view of one analysed payload that was linted
// (p.Lint set).
func NewMetricsLintDoc(p metrics.PayloadResult, top int) MetricsLintDoc {
	res := p.Lint
	d := MetricsLintDoc{Source: p.Target, Parseable: res.Parseable, Lines: res.Lines, Series: res.Series, Bytes: res.Bytes,
		Errors: res.Errors, Warnings: res.Warnings, Infos: res.Infos, Problems: res.Problems, Suppressed: res.Suppressed,
		Conformance: p.Conformance, Families: res.Families, Findings: p.Findings, TopFamilies: top,
		PrometheusServer: p.PrometheusServer, Expfmt: p.Expfmt, ServerLine: p.ServerLine, ServerReason: p.ServerReason}
	if !p.S5.Empty() {
		s5 := p.S5
		d.S5 = &s5
	}
	if d.Conformance == nil {
		d.Conformance = []exposition.Problem{}
	}
	if d.Families == nil {
		d.Families = []exposition.FamilyStat{}
	}
	if d.Findings == nil {
		d.Findings = []diag.Finding{}
	}
	return d
}

func (d MetricsLintDoc) view() LintView {
	res := &exposition.Result{Problems: d.Problems, Families: d.Families, Series: d.Series, Lines: d.Lines, Bytes: d.Bytes,
		Parseable: d.Parseable, Errors: d.Errors, Warnings: d.Warnings, Infos: d.Infos, Suppressed: d.Suppressed}
	v := LintView{Source: d.Source, Result: res, Conformance: d.Conformance, TopFamilies: d.TopFamilies}
	if d.S5 != nil {
		v.S5 = *d.S5
	}
	return v
}

// MetricsLintSnapshotDoc is every payload stored in a snapshot, linted
// (kind metrics.lint.snapshot). A payload that was not fetched is listed in
// NotFetched and has its METRICS_TARGET_UNREACHABLE finding.
type MetricsLintSnapshotDoc struct {
	Now        time.Time          `json:"now"`
	Payloads   []MetricsLintDoc   `json:"payloads"`
	NotFetched []NotFetchedDetail `json:"not_fetched,omitempty"`
	Findings   []diag.Finding     `json:"findings"`
	// order lists the payloads in snapshot order: i >= 0 is Payloads[i],
	// i < 0 is NotFetched[-i-1].
	order []int
}

// NotFetchedDetail is a stored payload whose body was never fetched.
type NotFetchedDetail struct {
	Target string `json:"target"`
	Error  string `json:"error"`
}

func (MetricsLintSnapshotDoc) Kind() string { return "metrics_lint_snapshot" }

// NewMetricsLintSnapshotDoc is the view of a snapshot's analysed payloads.
func NewMetricsLintSnapshotDoc(res *metrics.Result, top int) MetricsLintSnapshotDoc {
	d := MetricsLintSnapshotDoc{Now: res.Now, Payloads: []MetricsLintDoc{}, Findings: res.Findings}
	for _, p := range res.Payloads {
		if p.Lint == nil {
			d.NotFetched = append(d.NotFetched, NotFetchedDetail{Target: p.Target, Error: p.Error})
			d.order = append(d.order, -len(d.NotFetched))
		} else {
			d.order = append(d.order, len(d.Payloads))
			d.Payloads = append(d.Payloads, NewMetricsLintDoc(p, top))
		}
	}
	if d.Findings == nil {
		d.Findings = []diag.Finding{}
	}
	return d
}

func (d MetricsLintSnapshotDoc) table(w io.Writer, st report.Style) error {
	for _, i := range d.order {
		if i < 0 {
			nf := d.NotFetched[-i-1]
			if _, err := fmt.Fprintf(w, "%s: not fetched when the snapshot was taken: %s\n\n", nf.Target, nf.Error); err != nil {
				return err
			}
			continue
		}
		if err := MetricsLint(w, st, d.Payloads[i].view()); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// MetricsFixDoc is what --fix changed (kind metrics.fix).
type MetricsFixDoc struct {
	Source   string         `json:"source"`
	Fix      fix.Report     `json:"fix"`
	Findings []diag.Finding `json:"findings"`
}

func (MetricsFixDoc) Kind() string { return "metrics_fix" }

// MetricsScrapeDoc is `metrics scrape` (kind metrics.scrape).
type MetricsScrapeDoc struct {
	Targets  []ScrapeTarget `json:"targets"`
	S5       *metrics.S5    `json:"s5,omitempty"`
	Findings []diag.Finding `json:"findings"`
	// Discovery says where the targets came from: "targets" or the source kind.
	Discovery string `json:"discovery"`
	// Stored: the payloads are those stored in the snapshot (--snapshot,
	// --demo), analysed without any fetch.
	Stored bool `json:"stored,omitempty"`
}

func (MetricsScrapeDoc) Kind() string { return "metrics_scrape" }

// TargetRef names a scraped node.
type TargetRef struct {
	Kind string `json:"kind"`
	Host string `json:"host"`
}

// ScrapeFetch is how the fetch of one target went (zero for stored payloads).
type ScrapeFetch struct {
	Reachable bool
	Status    int
	Bytes     int64
	FetchTime time.Duration
}

// ScrapeTarget is one target's row.
type ScrapeTarget struct {
	Target      TargetRef            `json:"target"`
	URL         string               `json:"url"`
	Reachable   bool                 `json:"reachable"`
	Error       string               `json:"error,omitempty"`
	Status      int                  `json:"status,omitempty"`
	Bytes       int64                `json:"bytes"`
	FetchMs     float64              `json:"fetch_ms"`
	Parseable   *bool                `json:"parseable,omitempty"`
	Lines       int                  `json:"lines,omitempty"`
	Series      int                  `json:"series,omitempty"`
	Errors      int                  `json:"errors"`
	Warnings    int                  `json:"warnings"`
	IsMaster    bool                 `json:"is_master,omitempty"`
	StateSeries int                  `json:"state_series,omitempty"`
	Problems    []exposition.Problem `json:"problems,omitempty"`
	Conformance []exposition.Problem `json:"conformance,omitempty"`
}

// NewMetricsScrapeDoc zips the analysis with the fetches (one per payload,
// same order; nil for stored payloads).
func NewMetricsScrapeDoc(res *metrics.Result, fetches []ScrapeFetch, discovery string) MetricsScrapeDoc {
	d := MetricsScrapeDoc{Targets: []ScrapeTarget{}, Findings: res.Findings, Discovery: discovery, Stored: fetches == nil}
	for i, p := range res.Payloads {
		t := ScrapeTarget{Target: TargetRef{Kind: p.Kind, Host: p.Target}, URL: p.URL, Error: p.Error, Reachable: p.Lint != nil}
		if fetches != nil {
			f := fetches[i]
			t.Reachable, t.Status, t.Bytes, t.FetchMs = f.Reachable, f.Status, f.Bytes, float64(f.FetchTime.Microseconds())/1000
		} else if p.Lint != nil {
			t.Bytes = p.Lint.Bytes
		}
		if r := p.Lint; r != nil {
			ok := r.Parseable
			t.Parseable, t.Lines, t.Series, t.Errors, t.Warnings = &ok, r.Lines, r.Series, r.Errors, r.Warnings
			t.IsMaster, t.StateSeries, t.Problems, t.Conformance = p.IsMaster, p.StateSeries, r.Problems, p.Conformance
		}
		d.Targets = append(d.Targets, t)
	}
	if !res.S5.Empty() {
		s5 := res.S5
		d.S5 = &s5
	}
	if d.Findings == nil {
		d.Findings = []diag.Finding{}
	}
	return d
}

// scrapeTable writes the per-host summary table, the S5 picture and the
// findings.
func scrapeTable(w io.Writer, st report.Style, d MetricsScrapeDoc, markdown bool) error {
	headers := []string{"TARGET", "KIND", "REACHABLE", "PARSE", "ERRORS", "WARNINGS", "SERIES", "BYTES", "FETCH_MS", "NOTE"}
	cells := make([][]string, len(d.Targets))
	for i, t := range d.Targets {
		reach, parse, errs, warns, series := yesNo(t.Reachable), "-", "-", "-", "-"
		note := t.Error
		if t.Parseable != nil {
			parse, errs, warns, series = yesNo(*t.Parseable), strconv.Itoa(t.Errors), strconv.Itoa(t.Warnings), strconv.Itoa(t.Series)
			if t.IsMaster {
				note = strings.TrimSpace("master " + note)
			}
			if !*t.Parseable {
				for _, pr := range t.Problems {
					if pr.Severity == exposition.SeverityError {
						note = strings.TrimSpace(note + fmt.Sprintf(" first error %d:%d %s", pr.Line, pr.Col, pr.Rule))
						break
					}
				}
			}
		}
		if !markdown {
			if reach == "no" {
				reach = st.Severity("critical", reach)
			}
			if parse == "no" {
				parse = st.Severity("critical", parse)
			}
		}
		kind := t.Target.Kind
		if kind == "" {
			kind = "-"
		}
		fetch := strconv.FormatInt(int64(t.FetchMs), 10)
		if d.Stored {
			fetch = "-"
		}
		cells[i] = []string{t.Target.Host, kind, reach, parse, errs, warns, series, strconv.FormatInt(t.Bytes, 10), fetch, note}
	}
	if d.Stored {
		st.Para(w, "", "", fmt.Sprintf("The payloads stored in the %s snapshot, fetched when it was taken; nothing is fetched now.", d.Discovery))
		fmt.Fprintln(w)
	}
	var err error
	if markdown {
		err = report.Markdown(w, headers, cells)
	} else {
		err = st.Table(w, headers, cells)
	}
	if err != nil {
		return err
	}
	var b strings.Builder
	if d.S5 != nil {
		fmt.Fprintf(&b, "\nChangelog space:\n")
		writeS5(&b, *d.S5)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if markdown {
		return report.FindingsMarkdown(w, d.Findings)
	}
	return report.Findings(w, st, d.Findings)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func init() {
	report.Register("metrics_lint", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return MetricsLint(w, st, d.(MetricsLintDoc).view())
	})
	report.Register("metrics_lint", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		return report.FindingsMarkdown(w, d.(MetricsLintDoc).Findings)
	})
	report.Register("metrics_lint_snapshot", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error { return d.(MetricsLintSnapshotDoc).table(w, st) })
	report.Register("metrics_lint_snapshot", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		return report.FindingsMarkdown(w, d.(MetricsLintSnapshotDoc).Findings)
	})
	fix := func(w io.Writer, st report.Style, d report.Doc) error {
		x := d.(MetricsFixDoc)
		return MetricsFix(w, st, x.Source, x.Fix)
	}
	report.Register("metrics_fix", report.FormatTable, fix)
	report.Register("metrics_fix", report.FormatMarkdown, fix)
	report.Register("metrics_scrape", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return scrapeTable(w, st, d.(MetricsScrapeDoc), false)
	})
	report.Register("metrics_scrape", report.FormatMarkdown, func(w io.Writer, st report.Style, d report.Doc) error {
		return scrapeTable(w, st, d.(MetricsScrapeDoc), true)
	})
}
