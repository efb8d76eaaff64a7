package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
)

// metricsLintFailOn is the default --fail-on of metrics lint: a linter
// fails on an error-level problem (the payload does not parse, or Prometheus
// would reject it: METRICS_UNPARSEABLE is critical), as promtool does.
const metricsLintFailOn = "critical"

type metricsLintOptions struct {
	g           *globalOptions
	Input       string
	Fix         bool
	Write       string
	MaxBytes    int64
	MaxProblems int
	Top         int
	Conform     conformFlags
}

func newMetricsLintCmd(g *globalOptions) *cobra.Command {
	o := &metricsLintOptions{g: g}
	c := &cobra.Command{
		Use: "lint [FILE|URL|-]",
		Long: `lint checks one /metrics payload — a file, an http(s) URL, or stdin — or,
with --snapshot FILE or --demo and no argument, every payload stored in the
snapshot (judged against the snapshot's cluster time). Problems are printed
like a compiler's (file:line:col), grouped by severity, with the family, the
label and a fix; then the checks against the monitoring design. A file's
staleness is judged against its modification time, a URL's or stdin's
against now; --now overrides. Exits 1 on a critical finding (a payload that
does not parse) unless --fail-on says otherwise.`,
		Short: "Lint one /metrics payload: every problem with file:line:col, and the design conformance",
		Example: `  dorisdiag metrics lint fe.prom
  curl -s http://fe1:8030/metrics | dorisdiag metrics lint -
  dorisdiag metrics lint http://fe1:8030/metrics -o json
  dorisdiag metrics lint broken.prom --fix -w fixed.prom
  dorisdiag metrics lint --demo incident        # the payloads stored in a snapshot; exits 1 on a critical finding
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
				return o.runSnapshot()
			}
			if o.Write != "" && !o.Fix {
				return usageErrorf("-w needs --fix")
			}
			if o.Fix {
				return o.runFix()
			}
			return o.run()
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

// lintOptions lint a Doris payload: the bounds of the flags, the Doris
// profile (the samples the analysis reads, the known quirks).
func (o *metricsLintOptions) lintOptions() exposition.Options {
	return metrics.LintOptions(exposition.Options{MaxBytes: o.MaxBytes, MaxProblems: o.MaxProblems})
}

// open returns the payload reader (stdin, a file, or an HTTP GET), its name
// and the payload's own time: a file's modification time (when it was
// saved), now for a URL or stdin.
func (o *metricsLintOptions) open() (io.ReadCloser, string, time.Time, error) {
	g := o.g
	switch in := o.Input; {
	case in == "-" || in == "":
		return io.NopCloser(g.ios.In), "stdin", time.Now(), nil
	case strings.HasPrefix(in, "http://") || strings.HasPrefix(in, "https://"):
		fo, err := g.httpFetch(scrape.FetchOptions{ConnectTimeout: min(g.Timeout, 5*time.Second), HeaderTimeout: g.Timeout, RequestTimeout: g.Timeout, MaxBytes: o.MaxBytes})
		if err != nil {
			return nil, "", time.Time{}, err
		}
		r, err := streamURL(fo, in, g.Timeout+time.Second)
		if err != nil {
			return nil, "", time.Time{}, err
		}
		return r, in, time.Now(), nil
	default:
		// A regular file only: a FIFO used to block the open forever.
		f, fi, err := fileio.OpenInput(in)
		if err != nil {
			return nil, "", time.Time{}, fmt.Errorf("opening payload: %w", err)
		}
		return f, in, fi.ModTime().UTC(), nil
	}
}

func (o *metricsLintOptions) run() error {
	g := o.g
	if err := g.checkFormat("metrics.lint"); err != nil {
		return err
	}
	if _, err := g.failOn(metricsLintFailOn); err != nil {
		return err
	}
	in, source, at, err := o.open()
	if err != nil {
		return err
	}
	defer in.Close()
	opt, err := o.Conform.analysisOptions(at, true)
	if err != nil {
		return err
	}
	res, err := exposition.Lint(in, o.lintOptions())
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	a := diag.AnalyzeMetricsPayloads([]diag.MetricsInput{{Source: source, Lint: res}}, opt)
	if err := g.emit(report.NewMetricsLintDoc(a.Payloads[0], o.Top)); err != nil {
		return err
	}
	return g.gate(a.Findings, metricsLintFailOn)
}

// runFix writes the fixed payload to stdout or -w FILE; the report of the
// changes goes to stdout when the payload goes to a file, else stderr.
func (o *metricsLintOptions) runFix() error {
	g := o.g
	f, err := g.format(report.Formats("metrics.fix")...)
	if err != nil {
		return err
	}
	if _, err := g.failOn(metricsLintFailOn); err != nil {
		return err
	}
	in, source, _, err := o.open()
	if err != nil {
		return err
	}
	defer in.Close()
	reportTo := g.ios.Err
	var rep exposition.FixReport
	if o.Write != "" && o.Write != "-" {
		// Atomically, onto a regular file or a new path only (fileio).
		reportTo = g.ios.Out
		err = fileio.WriteAtomic(o.Write, func(w io.Writer) error {
			var ferr error
			rep, ferr = exposition.Fix(in, w, o.lintOptions())
			if ferr != nil {
				return fmt.Errorf("%s: %w", source, ferr)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("--fix -w %s: %w", o.Write, err)
		}
	} else if rep, err = exposition.Fix(in, g.ios.Out, o.lintOptions()); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	unrepaired := &exposition.Result{Problems: rep.Unrepaired, Parseable: rep.OK}
	a := diag.AnalyzeMetricsPayloads([]diag.MetricsInput{{Source: source, Lint: unrepaired}}, diag.MetricsOptions{NoConform: true, IncludeStyle: true})
	st := report.NewStyle(reportTo, g.color() && reportTo == g.ios.Out)
	if err := report.Emit(reportTo, st, f, report.MetricsFixDoc{Source: source, Fix: rep, Findings: a.Findings}); err != nil {
		return err
	}
	return g.gate(a.Findings, metricsLintFailOn)
}

// runSnapshot lints every /metrics payload stored in the (latest) snapshot
// of --snapshot or --demo; "now" is the snapshot's cluster time, so a saved
// snapshot lints the same way tomorrow.
func (o *metricsLintOptions) runSnapshot() error {
	g := o.g
	if err := g.checkFormat("metrics.lint.snapshot"); err != nil {
		return err
	}
	if _, err := g.failOn(metricsLintFailOn); err != nil {
		return err
	}
	snaps, err := g.loadSnapshots()
	if err != nil {
		return err
	}
	s := snaps[len(snaps)-1]
	if len(s.Metrics) == 0 {
		return fmt.Errorf("the snapshot holds no /metrics payloads (take one with: dorisdiag metrics scrape --host FE --save FILE)")
	}
	opt, err := o.Conform.analysisOptions(s.Cluster.Now, true)
	if err != nil {
		return err
	}
	opt.Lint = o.lintOptions()
	a := diag.AnalyzeMetrics(s, opt)
	if err := g.emit(report.NewMetricsLintSnapshotDoc(a, o.Top)); err != nil {
		return err
	}
	return g.gate(a.Findings, metricsLintFailOn)
}

// streamURL GETs a payload and returns its body as a stream (issue 14: a
// 64 MiB body is linted as it arrives, never held whole). An error before
// the body (refused, a status, a challenge refused) is returned at once; one
// while reading it reaches the linter as a read error, named.
func streamURL(fo scrape.FetchOptions, url string, timeout time.Duration) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	pr, pw := io.Pipe()
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := scrape.FetchMetricsTo(ctx, scrape.NewClient(fo), url, fo, func(body io.Reader) error {
			close(started)
			_, err := io.Copy(pw, body)
			return err
		})
		pw.CloseWithError(err)
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		select {
		case <-started: // an empty body, already read
		default:
			cancel()
			return nil, err
		}
	}
	return &cancelOnClose{ReadCloser: pr, cancel: cancel}, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}
