package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

var metricsFormats = []report.Format{report.FormatTable, report.FormatJSON, report.FormatMarkdown}

func newMetricsCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "metrics",
		Short: "Lint FE/BE /metrics payloads and check them against the monitoring design",
		Long: `metrics lint checks one /metrics payload (a file, a URL or stdin): every
exposition-format problem with file:line:col, the family, the label and a fix,
Doris quirks recognised, and the changelog/IVM series checked against the
monitoring design. metrics scrape fetches /metrics from every FE and BE.`,
	}
	c.AddCommand(newMetricsLintCmd(g), newMetricsScrapeCmd(g))
	return c
}

// conformFlags are the design parameters both commands share.
type conformFlags struct {
	Now             string
	MonitorInterval time.Duration
	MVLimit         int
	StreamLimit     int
	SeriesBudget    int
	TTLCleanupAge   time.Duration
	NoConform       bool
}

func (f *conformFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.Now, "now", "", "judge staleness against this time (RFC 3339 or unix seconds; default: now)")
	c.Flags().DurationVar(&f.MonitorInterval, "monitor-interval", 15*time.Second, "changelog_ivm_monitor_interval_seconds: stale after 2x")
	c.Flags().IntVar(&f.MVLimit, "mv-limit", 1000, "prom_output_ivm_mv_metrics_limit (0 = none)")
	c.Flags().IntVar(&f.StreamLimit, "stream-limit", 1000, "prom_output_table_stream_metrics_limit (0 = none)")
	c.Flags().IntVar(&f.SeriesBudget, "series-budget", 9100, "changelog/IVM series budget (seed: about 9,100 with the default quotas)")
	c.Flags().DurationVar(&f.TTLCleanupAge, "ttl-cleanup-max-age", time.Hour, "report a BE whose last successful changelog TTL cleanup is older")
	c.Flags().BoolVar(&f.NoConform, "no-conform", false, "skip the checks against the monitoring design")
}

func (f *conformFlags) options(defaultNow time.Time) (exposition.ConformOptions, error) {
	now := defaultNow
	if f.Now != "" {
		if secs, err := strconv.ParseFloat(f.Now, 64); err == nil {
			now = time.Unix(0, int64(secs*1e9)).UTC()
		} else if t, err := parseTimeArg(f.Now, "UTC"); err == nil {
			now = t
		} else {
			return exposition.ConformOptions{}, usageErrorf("--now: %v", err)
		}
	}
	lim := func(n int) int {
		if n == 0 {
			return -1 // Conform: negative means a quota of 0
		}
		return n
	}
	return exposition.ConformOptions{Now: now, MonitorInterval: f.MonitorInterval, MVLimit: lim(f.MVLimit), StreamLimit: lim(f.StreamLimit),
		SeriesBudget: f.SeriesBudget, TTLCleanupMaxAge: f.TTLCleanupAge}, nil
}

// ---- lint ----

type metricsLintOptions struct {
	Input       string
	Fix         bool
	Write       string
	MaxBytes    int64
	MaxProblems int
	Top         int
	Conform     conformFlags
}

func newMetricsLintCmd(g *globalOptions) *cobra.Command {
	o := &metricsLintOptions{}
	c := &cobra.Command{
		Use: "lint [FILE|URL|-]",
		Long: `lint checks one /metrics payload — a file, an http(s) URL, or stdin — or,
with --snapshot FILE or --demo and no argument, every payload stored in the
snapshot (judged against the snapshot's cluster time). Problems are printed
like a compiler's (file:line:col), grouped by severity, with the family, the
label and a fix; then the checks against the monitoring design.`,
		Short: "Lint one /metrics payload: every problem with file:line:col, and the design conformance",
		Example: `  dorisdiag metrics lint fe.prom
  curl -s http://fe1:8030/metrics | dorisdiag metrics lint -
  dorisdiag metrics lint http://fe1:8030/metrics -o json
  dorisdiag metrics lint broken.prom --fix -w fixed.prom
  dorisdiag metrics lint --demo incident        # the payloads stored in a snapshot
  dorisdiag metrics lint --snapshot snap.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Input = "-"
			if len(args) == 1 {
				o.Input = args[0]
			} else if len(g.Source.Snapshots) > 0 || g.Source.Demo != "" {
				if o.Fix {
					return usageErrorf("--fix works on one payload: give FILE, URL or -")
				}
				return metricsLintSnapshotRun(g, o)
			}
			if o.Write != "" && !o.Fix {
				return usageErrorf("-w needs --fix")
			}
			return metricsLintRun(g, o)
		},
	}
	c.Flags().BoolVar(&o.Fix, "fix", false, "write the payload with every label value and HELP text escaped (stdout, or -w FILE); report the changes")
	c.Flags().StringVarP(&o.Write, "write", "w", "", "with --fix: write the fixed payload to FILE instead of stdout")
	c.Flags().Int64Var(&o.MaxBytes, "max-bytes", scrape.DefaultMaxBytes, "refuse a payload larger than this")
	c.Flags().IntVar(&o.MaxProblems, "max-problems", 10000, "list at most this many problems (the rest are counted per rule)")
	c.Flags().IntVar(&o.Top, "top", 10, "families to show by cardinality in the table output (0: none)")
	o.Conform.add(c)
	return c
}

// metricsLintDoc is the JSON of metrics lint.
type metricsLintDoc struct {
	Source      string                  `json:"source"`
	Parseable   bool                    `json:"parseable"`
	Lines       int                     `json:"lines"`
	Series      int                     `json:"series"`
	Bytes       int64                   `json:"bytes"`
	Errors      int                     `json:"errors"`
	Warnings    int                     `json:"warnings"`
	Infos       int                     `json:"infos"`
	Problems    []exposition.Problem    `json:"problems"`
	Suppressed  map[string]int          `json:"suppressed,omitempty"`
	Conformance []exposition.Problem    `json:"conformance"`
	Families    []exposition.FamilyStat `json:"families"`
	S5          *exposition.S5          `json:"s5,omitempty"`
	Fix         *exposition.FixReport   `json:"fix,omitempty"`
	Findings    []diag.Finding          `json:"findings"`
}

// openInput returns the payload reader: stdin, a file, or an HTTP GET.
func (g *globalOptions) openMetricsInput(input string, maxBytes int64) (io.ReadCloser, string, error) {
	switch {
	case input == "-" || input == "":
		return io.NopCloser(g.ios.In), "stdin", nil
	case strings.HasPrefix(input, "http://") || strings.HasPrefix(input, "https://"):
		fo := scrape.FetchOptions{ConnectTimeout: min(g.Timeout, 5*time.Second), HeaderTimeout: g.Timeout, RequestTimeout: g.Timeout, MaxBytes: maxBytes,
			Credentials: g.httpCredentials()}
		ctx, cancel := context.WithTimeout(context.Background(), g.Timeout+time.Second)
		defer cancel()
		p, err := scrape.FetchMetrics(ctx, scrape.NewClient(fo), input, fo)
		if err != nil {
			return nil, "", err
		}
		return io.NopCloser(bytes.NewReader(p.Body)), input, nil
	default:
		f, err := os.Open(input)
		if err != nil {
			return nil, "", fmt.Errorf("opening payload: %w", err)
		}
		return f, input, nil
	}
}

func metricsLintRun(g *globalOptions, o *metricsLintOptions) error {
	f, err := g.format(metricsFormats...)
	if err != nil {
		return err
	}
	copts, err := o.Conform.options(time.Now())
	if err != nil {
		return err
	}
	in, source, err := g.openMetricsInput(o.Input, o.MaxBytes)
	if err != nil {
		return err
	}
	defer in.Close()
	lopts := exposition.Options{MaxBytes: o.MaxBytes, MaxProblems: o.MaxProblems}
	if o.Fix {
		return metricsFixRun(g, o, f, in, source, lopts)
	}
	res, err := exposition.Lint(in, lopts)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	var conf []exposition.Problem
	var s5 exposition.S5
	if !o.Conform.NoConform {
		conf = exposition.Conform(res, copts)
		s5 = exposition.SpaceSignals(res)
	}
	findings := diag.MetricsFindings(source, res, conf)
	diag.SortFindings(findings)
	switch f {
	case report.FormatJSON:
		doc := metricsLintDoc{Source: source, Parseable: res.Parseable, Lines: res.Lines, Series: res.Series, Bytes: res.Bytes,
			Errors: res.Errors, Warnings: res.Warnings, Infos: res.Infos, Problems: res.Problems, Suppressed: res.Suppressed,
			Conformance: nonNilProblems(conf), Families: res.Families, Findings: nonNilFindings(findings)}
		if !s5.Empty() {
			doc.S5 = &s5
		}
		if doc.Families == nil {
			doc.Families = []exposition.FamilyStat{}
		}
		if err := report.JSON(g.ios.Out, "metrics.lint", doc); err != nil {
			return err
		}
	case report.FormatMarkdown:
		if err := report.FindingsMarkdown(g.ios.Out, findings); err != nil {
			return err
		}
	default:
		if err := report.MetricsLint(g.ios.Out, g.style(), report.LintView{Source: source, Result: res, Conformance: conf, S5: s5, TopFamilies: o.Top}); err != nil {
			return err
		}
	}
	return g.gate(findings, "none")
}

// metricsFixRun writes the fixed payload to stdout or -w FILE; the report of
// the changes goes to stdout when the payload goes to a file, else stderr.
func metricsFixRun(g *globalOptions, o *metricsLintOptions, f report.Format, in io.Reader, source string, lopts exposition.Options) error {
	var out io.Writer = g.ios.Out
	reportTo := g.ios.Err
	var file *os.File
	if o.Write != "" {
		var err error
		file, err = os.Create(o.Write)
		if err != nil {
			return fmt.Errorf("--fix -w: %w", err)
		}
		out = file
		reportTo = g.ios.Out
	}
	rep, err := exposition.Fix(in, out, lopts)
	if file != nil {
		if cerr := file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--fix -w %s: %w", o.Write, cerr)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	res := &exposition.Result{Problems: rep.Unrepaired, Parseable: rep.OK}
	findings := diag.MetricsFindings(source, res, nil)
	diag.SortFindings(findings)
	if f == report.FormatJSON {
		doc := map[string]any{"source": source, "fix": rep, "findings": nonNilFindings(findings)}
		if err := report.JSON(reportTo, "metrics.fix", doc); err != nil {
			return err
		}
	} else if err := report.MetricsFix(reportTo, report.NewStyle(reportTo, g.color() && reportTo == g.ios.Out), source, rep); err != nil {
		return err
	}
	return g.gate(findings, "none")
}

func nonNilProblems(p []exposition.Problem) []exposition.Problem {
	if p == nil {
		return []exposition.Problem{}
	}
	return p
}

func nonNilFindings(f []diag.Finding) []diag.Finding {
	if f == nil {
		return []diag.Finding{}
	}
	return f
}

// ---- scrape ----

type metricsScrapeOptions struct {
	Targets        string
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration
	RequestTimeout time.Duration
	MaxBytes       int64
	Concurrency    int
	Save           string
	Conform        conformFlags
}

func newMetricsScrapeCmd(g *globalOptions) *cobra.Command {
	o := &metricsScrapeOptions{}
	c := &cobra.Command{
		Use:   "scrape",
		Short: "Fetch and lint /metrics of every FE and BE, concurrently, with named timeouts",
		Long: `scrape fetches /metrics from every FE and BE — the --targets list, or the
frontends and backends of the source (SHOW FRONTENDS / SHOW BACKENDS of --host,
or those recorded in --snapshot / --demo) — concurrently, each bounded by a
connect, a response-header and a whole-request timeout. It lints each payload,
checks that only the Master FE exports state series, and summarises per host:
reachable or not (with the timeout that fired), parse status, problems, series,
bytes and fetch time. --save stores the payloads into a snapshot file.`,
		Example: `  dorisdiag metrics scrape --targets fe1.demo.invalid:8030,fe2.demo.invalid:8030,be5.demo.invalid:8040
  dorisdiag metrics scrape --host fe1 --save snap.json
  dorisdiag metrics scrape --targets fe=fe1:18030,be=be1:18040 -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return metricsScrapeRun(g, o) },
	}
	c.Flags().StringVar(&o.Targets, "targets", "", "host:port,... to scrape (fe= / be= prefixes; port 8030 is an FE, 8040 a BE); default: discover from the source")
	c.Flags().DurationVar(&o.ConnectTimeout, "connect-timeout", 2*time.Second, "TCP connect timeout per host")
	c.Flags().DurationVar(&o.HeaderTimeout, "header-timeout", 5*time.Second, "time from the request sent to the response headers, per host")
	c.Flags().DurationVar(&o.RequestTimeout, "request-timeout", 0, "whole-request timeout per host, body included (default --timeout)")
	c.Flags().Int64Var(&o.MaxBytes, "max-bytes", scrape.DefaultMaxBytes, "refuse a /metrics body larger than this (after decompression)")
	c.Flags().IntVar(&o.Concurrency, "concurrency", 8, "hosts fetched at once")
	c.Flags().StringVar(&o.Save, "save", "", "write the source snapshot with the payloads to this file")
	o.Conform.add(c)
	return c
}

// metricsScrapeDoc is the JSON of metrics scrape.
type metricsScrapeDoc struct {
	Targets  []scrapeTargetDoc `json:"targets"`
	S5       *exposition.S5    `json:"s5,omitempty"`
	Findings []diag.Finding    `json:"findings"`
	// Discovery says where the targets came from: "targets" or the source kind.
	Discovery string `json:"discovery"`
}

type scrapeTargetDoc struct {
	Target      scrape.Target        `json:"target"`
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

func metricsScrapeRun(g *globalOptions, o *metricsScrapeOptions) error {
	f, err := g.format(metricsFormats...)
	if err != nil {
		return err
	}
	start := time.Now()
	copts, err := o.Conform.options(start)
	if err != nil {
		return err
	}
	var targets []scrape.Target
	var snap *snapshot.Snapshot
	discovery := "targets"
	if o.Targets != "" {
		if targets, err = scrape.ParseTargets(o.Targets); err != nil {
			return usageErrorf("--targets: %v", err)
		}
	}
	if o.Targets == "" || o.Save != "" {
		kind, kerr := g.sourceKind()
		if kerr != nil {
			if o.Save != "" {
				return usageErrorf("--save needs a snapshot to store the payloads into: give --host, --snapshot or --demo")
			}
			return usageErrorf("no targets: give --targets host:port,... or a source (--host, --snapshot, --demo) to discover FEs and BEs from")
		}
		snaps, err := g.loadSnapshots()
		if err != nil {
			return err
		}
		snap = snaps[len(snaps)-1]
		if kind == "live" && o.Conform.Now == "" {
			// Judge the monitor's staleness by the cluster's clock (its
			// current TSO, read just now), not this machine's: client clock
			// skew must not make a healthy monitor look stale.
			copts.Now = snap.Cluster.Now.Add(time.Since(start))
		}
		if o.Targets == "" {
			discovery = kind
			targets = targetsFromSnapshot(snap)
			if len(targets) == 0 {
				return fmt.Errorf("the %s source lists no frontends or backends with an HTTP port: give --targets", kind)
			}
		}
	}
	rt := o.RequestTimeout
	if rt <= 0 {
		rt = g.Timeout
	}
	fo := scrape.FetchOptions{ConnectTimeout: o.ConnectTimeout, HeaderTimeout: o.HeaderTimeout, RequestTimeout: rt,
		MaxBytes: o.MaxBytes, Concurrency: o.Concurrency, KeepBody: o.Save != "", Credentials: g.httpCredentials()}
	results := scrape.ScrapeAll(context.Background(), scrape.NewClient(fo), targets, fo)

	var findings []diag.Finding
	var docs []scrapeTargetDoc
	var rows []report.ScrapeRow
	var s5 exposition.S5
	for _, r := range results {
		d := scrapeTargetDoc{Target: r.Target, URL: r.URL, Reachable: r.Reachable, Status: r.Status, Bytes: r.Bytes,
			FetchMs: float64(r.FetchTime.Microseconds()) / 1000}
		row := report.ScrapeRow{Target: r.Target.Host, Kind: orDash(r.Target.Kind), Reachable: yesNo(r.Reachable), Parse: "-", Errors: "-", Warnings: "-", Series: "-",
			Bytes: strconv.FormatInt(r.Bytes, 10), FetchMs: strconv.FormatInt(r.FetchTime.Milliseconds(), 10)}
		if r.Err != nil {
			d.Error = r.Err.Error()
			row.Note = r.Err.Error()
			if r.Lint == nil {
				findings = append(findings, diag.UnreachableFinding(r.Target.Kind, r.Target.Host, r.Err))
			}
		}
		if r.Lint != nil {
			res := r.Lint
			var conf []exposition.Problem
			if !o.Conform.NoConform {
				conf = exposition.Conform(res, copts)
				diag.MergeS5(&s5, exposition.SpaceSignals(res))
			}
			source := r.Target.Host
			findings = append(findings, diag.MetricsFindings(source, res, conf)...)
			p := res.Parseable
			d.Parseable, d.Lines, d.Series, d.Errors, d.Warnings = &p, res.Lines, res.Series, res.Errors, res.Warnings
			d.IsMaster, d.StateSeries = exposition.IsMaster(res), exposition.StateSeries(res)
			d.Problems, d.Conformance = res.Problems, conf
			row.Parse, row.Errors, row.Warnings, row.Series = yesNo(res.Parseable), strconv.Itoa(res.Errors), strconv.Itoa(res.Warnings), strconv.Itoa(res.Series)
			if d.IsMaster {
				row.Note = strings.TrimSpace("master " + row.Note)
			}
			if !res.Parseable {
				for _, pr := range res.Problems {
					if pr.Severity == exposition.SeverityError {
						row.Note = strings.TrimSpace(row.Note + fmt.Sprintf(" first error %d:%d %s", pr.Line, pr.Col, pr.Rule))
						break
					}
				}
			}
		}
		docs = append(docs, d)
		rows = append(rows, row)
	}
	exporters, masters := scrape.MasterOnlyViolations(results)
	findings = append(findings, diag.MasterOnlyFindings(exporters, masters)...)
	diag.SortFindings(findings)

	if o.Save != "" {
		if err := savePayloads(snap, results, start, o.Save); err != nil {
			return err
		}
	}
	switch f {
	case report.FormatJSON:
		doc := metricsScrapeDoc{Targets: docs, Findings: nonNilFindings(findings), Discovery: discovery}
		if !s5.Empty() {
			doc.S5 = &s5
		}
		if err := report.JSON(g.ios.Out, "metrics.scrape", doc); err != nil {
			return err
		}
	case report.FormatMarkdown:
		if err := report.MetricsScrape(g.ios.Out, g.style(), rows, s5, true); err != nil {
			return err
		}
		g.printf("\n")
		if err := report.FindingsMarkdown(g.ios.Out, findings); err != nil {
			return err
		}
	default:
		if err := report.MetricsScrape(g.ios.Out, g.style(), rows, s5, false); err != nil {
			return err
		}
		g.printf("\n")
		if err := report.Findings(g.ios.Out, g.style(), findings); err != nil {
			return err
		}
	}
	return g.gate(findings, "none")
}

// targetsFromSnapshot: every FE and BE with an HTTP port.
func targetsFromSnapshot(s *snapshot.Snapshot) []scrape.Target {
	var out []scrape.Target
	for _, nodes := range [][]snapshot.Node{s.Frontends, s.Backends} {
		for _, n := range nodes {
			if n.Host == "" || n.HTTPPort <= 0 {
				continue
			}
			out = append(out, scrape.Target{Kind: n.Kind, Host: joinHostPort(n.Host, n.HTTPPort)})
		}
	}
	return out
}

func joinHostPort(h string, p int) string {
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		return "[" + h + "]:" + strconv.Itoa(p)
	}
	return h + ":" + strconv.Itoa(p)
}

// savePayloads stores the payloads into the source snapshot and writes it.
// payloadsFrom turns scrape results into snapshot payloads (bodies kept).
func payloadsFrom(results []scrape.ScrapeResult, at time.Time) []snapshot.MetricsPayload {
	var out []snapshot.MetricsPayload
	for _, r := range results {
		mp := snapshot.MetricsPayload{Kind: r.Target.Kind, Target: r.Target.Host, URL: r.URL, FetchedAt: at.UTC(), Bytes: r.Bytes, Body: string(r.Body)}
		if r.Lint != nil {
			mp.IsMaster = exposition.IsMaster(r.Lint)
		}
		if r.Err != nil {
			mp.Error = r.Err.Error()
		}
		out = append(out, mp)
	}
	return out
}

func savePayloads(s *snapshot.Snapshot, results []scrape.ScrapeResult, at time.Time, path string) error {
	out := *s
	out.Metrics = payloadsFrom(results, at)
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, &out); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// metricsLintSnapshotRun lints every /metrics payload stored in the (latest)
// snapshot of --snapshot or --demo; "now" is the snapshot's cluster time, so
// a saved snapshot lints the same way tomorrow.
func metricsLintSnapshotRun(g *globalOptions, o *metricsLintOptions) error {
	f, err := g.format(metricsFormats...)
	if err != nil {
		return err
	}
	snaps, err := g.loadSnapshots()
	if err != nil {
		return err
	}
	s := snaps[len(snaps)-1]
	copts, err := o.Conform.options(s.Cluster.Now)
	if err != nil {
		return err
	}
	if len(s.Metrics) == 0 {
		return fmt.Errorf("the snapshot holds no /metrics payloads (take one with: dorisdiag metrics scrape --host FE --save FILE)")
	}
	var all []diag.Finding
	var docs []metricsLintDoc
	lopts := exposition.Options{MaxBytes: o.MaxBytes, MaxProblems: o.MaxProblems}
	for i, m := range s.Metrics {
		source := m.Target
		if source == "" {
			source = fmt.Sprintf("payload %d", i+1)
		}
		if m.Body == "" && m.Error != "" {
			err := fmt.Errorf("%s", m.Error)
			all = append(all, diag.UnreachableFinding(m.Kind, m.Target, err))
			if f == report.FormatTable {
				g.printf("%s: not fetched when the snapshot was taken: %s\n\n", source, m.Error)
			}
			continue
		}
		res, err := exposition.Lint(strings.NewReader(m.Body), lopts)
		if err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		var conf []exposition.Problem
		var s5 exposition.S5
		if !o.Conform.NoConform {
			conf = exposition.Conform(res, copts)
			s5 = exposition.SpaceSignals(res)
		}
		fs := diag.MetricsFindings(source, res, conf)
		all = append(all, fs...)
		diag.SortFindings(fs)
		doc := metricsLintDoc{Source: source, Parseable: res.Parseable, Lines: res.Lines, Series: res.Series, Bytes: res.Bytes,
			Errors: res.Errors, Warnings: res.Warnings, Infos: res.Infos, Problems: res.Problems, Suppressed: res.Suppressed,
			Conformance: nonNilProblems(conf), Families: res.Families, Findings: nonNilFindings(fs)}
		if !s5.Empty() {
			doc.S5 = &s5
		}
		docs = append(docs, doc)
		if f == report.FormatTable {
			if err := report.MetricsLint(g.ios.Out, g.style(), report.LintView{Source: source, Result: res, Conformance: conf, S5: s5, TopFamilies: o.Top}); err != nil {
				return err
			}
			g.printf("\n")
		}
	}
	diag.SortFindings(all)
	switch f {
	case report.FormatJSON:
		if docs == nil {
			docs = []metricsLintDoc{}
		}
		return errOr(report.JSON(g.ios.Out, "metrics.lint.snapshot", map[string]any{"now": s.Cluster.Now, "payloads": docs, "findings": nonNilFindings(all)}), g.gate(all, "none"))
	case report.FormatMarkdown:
		if err := report.FindingsMarkdown(g.ios.Out, all); err != nil {
			return err
		}
	}
	return g.gate(all, "none")
}

func errOr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}
