package metrics

import (
	"bytes"
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	cons "github.com/dorisdiag/dorisdiag/exposition/consumers"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	metricsreport "github.com/dorisdiag/dorisdiag/report/metrics"
	"github.com/dorisdiag/dorisdiag/scrape"
)

// metricsLintFailOn is the default --fail-on of metrics lint: a linter
// fails on an error-level problem (the payload does not parse, or Prometheus
// would reject it: METRICS_UNPARSEABLE is critical), as promtool does.
const MetricsLintFailOn = "critical"

// MetricsLintOptions are the inputs of `metrics lint`.
type MetricsLintOptions struct {
	payloadOptions

	// Input is the payload argument: a file, an http(s) URL, or - (stdin).
	Input string
	// FromSource: no argument and --snapshot or --demo: lint the payloads
	// the snapshot stores.
	FromSource  bool
	Fix         bool
	Write       string
	MaxProblems int
	Top         int
}

// NewCmdMetricsLint builds `metrics lint`.
func NewCmdMetricsLint(f *cmdutil.Factory, runF func(*MetricsLintOptions) error) *cobra.Command {
	o := &MetricsLintOptions{payloadOptions: newPayloadOptions(f)}
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
			o.Common = f.Common()
			o.Input = "-"
			if len(args) == 1 {
				o.Input = args[0]
			} else {
				o.FromSource = len(o.Config.Snapshots) > 0 || o.Config.Demo != ""
			}
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return metricsLintRun(o)
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

// validate checks the flags of the mode, its -o and --fail-on.
func (o *MetricsLintOptions) validate() error {
	switch {
	case o.FromSource && o.Fix:
		return cmdutil.UsageErrorf("--fix works on one payload: give FILE, URL or -")
	case !o.FromSource && o.Write != "" && !o.Fix:
		return cmdutil.UsageErrorf("-w needs --fix")
	}
	kind := "metrics_lint"
	switch {
	case o.FromSource:
		kind = "metrics_lint_snapshot"
	case o.Fix:
		kind = "metrics_fix"
	}
	if err := o.CheckFormat(kind); err != nil {
		return err
	}
	_, err := o.FailOn(MetricsLintFailOn)
	return err
}

// metricsLintRun lints the stored payloads, or fixes or lints the one
// payload given.
func metricsLintRun(o *MetricsLintOptions) error {
	switch {
	case o.FromSource:
		return o.runSnapshot()
	case o.Fix:
		return o.runFix()
	}
	return o.run()
}

// lintOptions lint a Doris payload: the bounds of the flags, the Doris
// profile (the samples the analysis reads, the known quirks).
func (o *MetricsLintOptions) lintOptions() exposition.Options {
	return metrics.LintOptions(exposition.Options{MaxBytes: o.MaxBytes, MaxProblems: o.MaxProblems})
}

// open returns the payload reader (stdin, a file, or an HTTP GET), its name
// and the payload's own time: a file's modification time (when it was
// saved), now for a URL or stdin.
func (o *MetricsLintOptions) open() (io.ReadCloser, string, time.Time, error) {
	timeout := o.Config.Timeout
	switch in := o.Input; {
	case in == "-" || in == "":
		return io.NopCloser(o.IO.In), "stdin", time.Now(), nil
	case strings.HasPrefix(in, "http://") || strings.HasPrefix(in, "https://"):
		fo, err := o.HTTPFetch(scrape.FetchOptions{ConnectTimeout: min(timeout, 5*time.Second), HeaderTimeout: timeout, RequestTimeout: timeout, MaxBytes: o.MaxBytes})
		if err != nil {
			return nil, "", time.Time{}, err
		}
		r, err := scrape.OpenMetrics(fo, in, timeout+time.Second)
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

func (o *MetricsLintOptions) run() error {
	in, source, at, err := o.open()
	if err != nil {
		return err
	}
	defer in.Close()
	opt, err := o.Conform.analysisOptions(at, true)
	if err != nil {
		return err
	}
	// The bytes are kept for what a Prometheus server does with them and
	// for the OpenMetrics check (docs/metrics.md "Who rejects what").
	body := &keptBody{limit: keptBodyLimit}
	res, err := exposition.Lint(io.TeeReader(in, body), o.lintOptions())
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if err := refuseOpenMetrics(source, body.buf.Bytes()); err != nil {
		return err
	}
	in1 := metrics.Input{Source: source, Lint: res}
	if !body.over {
		c := cons.PayloadConsumers(res, body.buf.Bytes())
		in1.Consumers = &c
	}
	a := metrics.AnalyzePayloads([]metrics.Input{in1}, opt)
	if err := o.Emit(metricsreport.NewMetricsLintDoc(a.Payloads[0], o.Top)); err != nil {
		return err
	}
	return o.Gate(a.Findings, MetricsLintFailOn)
}

// runFix writes the fixed payload to stdout or -w FILE; the report of the
// changes goes to stdout when the payload goes to a file, else stderr.
func (o *MetricsLintOptions) runFix() error {
	f, err := o.OutputFormat(report.Formats("metrics_fix")...)
	if err != nil {
		return err
	}
	in, source, _, err := o.open()
	if err != nil {
		return err
	}
	defer in.Close()
	reportTo := o.IO.Err
	var rep fix.Report
	if o.Write != "" && o.Write != "-" {
		// Atomically, onto a regular file or a new path only (fileio).
		reportTo = o.IO.Out
		err = fileio.WriteAtomic(o.Write, func(w io.Writer) error {
			var ferr error
			rep, ferr = fix.Fix(in, w, o.lintOptions())
			if ferr != nil {
				return fmt.Errorf("%s: %w", source, ferr)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("--fix -w %s: %w", o.Write, err)
		}
	} else {
		// Buffered: an OpenMetrics payload is refused as a whole, and what
		// Fix wrote before it saw the sign must not reach stdout.
		var out bytes.Buffer
		if rep, err = fix.Fix(in, &out, o.lintOptions()); err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		if _, err := out.WriteTo(o.IO.Out); err != nil {
			return err
		}
	}
	unrepaired := &exposition.Result{Problems: rep.Unrepaired, Parseable: rep.OK}
	a := metrics.AnalyzePayloads([]metrics.Input{{Source: source, Lint: unrepaired}}, metrics.Options{NoConform: true, IncludeStyle: true})
	st := report.NewStyle(reportTo, o.Color() && reportTo == o.IO.Out)
	if err := report.Emit(reportTo, st, f, metricsreport.MetricsFixDoc{Source: source, Fix: rep, Findings: a.Findings}); err != nil {
		return err
	}
	return o.Gate(a.Findings, MetricsLintFailOn)
}

// keptBodyLimit bounds the bytes metrics lint keeps to judge what a
// Prometheus server does with the payload (and to look for OpenMetrics):
// the linter itself streams in bounded memory (docs/performance.md), so a
// larger payload is judged by its problems' classes (diag/metrics
// consumers.go) and only its first keptBodyLimit bytes are searched for an
// OpenMetrics sign.
const keptBodyLimit = 8 << 20

// keptBody keeps the first limit bytes written to it; over says more came.
type keptBody struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (k *keptBody) Write(p []byte) (int, error) {
	n := len(p)
	if room := k.limit - k.buf.Len(); n > room {
		k.over = true
		p = p[:max(room, 0)]
	}
	k.buf.Write(p)
	return n, nil
}

// refuseOpenMetrics refuses an OpenMetrics payload (exit 2): its rules are
// not Prometheus text's, so the linter's verdicts would be wrong both ways.
func refuseOpenMetrics(source string, body []byte) error {
	if sign, ok := fix.DetectOpenMetrics(body); ok {
		return fmt.Errorf("%s: %w", source, &fix.OpenMetricsError{Sign: sign})
	}
	return nil
}

// runSnapshot lints every /metrics payload stored in the (latest) snapshot
// of --snapshot or --demo; "now" is the snapshot's cluster time, so a saved
// snapshot lints the same way tomorrow.
func (o *MetricsLintOptions) runSnapshot() error {
	snaps, err := o.Source(cmdutil.SourceOptions{}).Load()
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
	a := metrics.Analyze(s, opt)
	if err := o.Emit(metricsreport.NewMetricsLintSnapshotDoc(a, o.Top)); err != nil {
		return err
	}
	return o.Gate(a.Findings, MetricsLintFailOn)
}
