package cmd

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/consumers"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// CheckOptions are the inputs of `dorisdiag check`.
type CheckOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	MaxDelay       time.Duration
	MinHeadroom    time.Duration
	MaxPending     time.Duration
	MaxFailures    int
	MaxRunning     time.Duration
	MaxQueued      time.Duration
	FallbackWindow time.Duration
	MinFallbacks   int
	ConfigFile     string
	NoMetrics      bool
	MetricsTargets string
	Watch          watch.Options
	// Given: the threshold flags given on the command line (they win over
	// --config).
	Given map[string]bool
}

// NewCmdCheck builds `dorisdiag check`.
func NewCmdCheck(f *cmdutil.Factory, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "check",
		Short: "Whole-cluster health report and CI gate: streams, MVs, /metrics and the monitor",
		Long: `check runs every diagnosis — streams, MVs, the changelog space and TTL
cleanup, the /metrics of the FEs and BEs when HTTP is reachable (and whether
Prometheus can parse them), the FE monitor's health and what could not be read — and prints a
compact overview followed by every finding, worst first, each with its code
and the next step.

It is the CI gate: --fail-on defaults to critical here, so exit 1 means at
least one critical finding. Thresholds come from flags or --config FILE
(flags given on the command line win); the config file can also override a
code's severity and ignore findings by code and object pattern.`,
		Example: `  dorisdiag check --demo incident            # exits 1: the incident has critical findings
  dorisdiag check --demo healthy --fail-on warning
  dorisdiag check --host fe1 -o json > check.json
  # cron, node_exporter textfile: --fail-on none, or a critical finding (exit 1) skips the mv
  dorisdiag check --host fe1 -o prom --fail-on none -f /var/lib/node_exporter/textfile/dorisdiag.prom
  T=/var/lib/node_exporter/textfile/dorisdiag.prom; dorisdiag check --host fe1 -o prom --fail-on none > $T.$$ && mv $T.$$ $T
  dorisdiag check --host fe1 --config dorisdiag.yaml --fail-on warning`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.Common = f.Common()
			o.Given = map[string]bool{}
			c.Flags().Visit(func(fl *pflag.Flag) { o.Given[fl.Name] = true })
			if err := o.CheckFormat("check"); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return checkRun(o)
		},
	}
	fl := c.Flags()
	fl.DurationVar(&o.MaxDelay, "max-delay", mv.DefaultMaxDelay, "MV freshness target: MV_DELAY_HIGH above it (critical at 3×)")
	fl.DurationVar(&o.MinHeadroom, "min-headroom", streams.DefaultMinHeadroom, "STREAM_HEADROOM_LOW below this retention headroom")
	fl.DurationVar(&o.MaxPending, "max-pending", streams.DefaultMaxPending, "STREAM_PENDING_AGE_HIGH above this pending age")
	fl.IntVar(&o.MaxFailures, "max-failures", mv.DefaultMaxFailures, "MV_CONSECUTIVE_FAILURES at or above this many failures in a row")
	fl.DurationVar(&o.MaxRunning, "max-running", mv.DefaultMaxRunning, "MV_TASK_STUCK_RUNNING when a task runs longer")
	fl.DurationVar(&o.MaxQueued, "max-queued", mv.DefaultMaxQueued, "MV_TASK_QUEUED_LONG when a task waits longer")
	fl.DurationVar(&o.FallbackWindow, "fallback-window", mv.DefaultFallbackWindow, "window in which refresh failures and fallbacks to a rebuild are counted")
	fl.IntVar(&o.MinFallbacks, "min-fallbacks", mv.DefaultMinFallbacks, "MV_FALLBACKS_REPEATED at or above this many fallbacks in the window")
	fl.StringVar(&o.ConfigFile, "config", "", "YAML file with thresholds, severity overrides and ignores (docs/check.md)")
	fl.BoolVar(&o.NoMetrics, "no-metrics", false, "live mode: do not fetch /metrics from the FEs and BEs")
	fl.StringVar(&o.MetricsTargets, "metrics-targets", "", "live mode: fetch /metrics from these host:port (fe=/be= prefixes allowed) instead of the nodes SHOW FRONTENDS/BACKENDS advertise")
	watch.AddFlags(c, &o.Watch)
	return c
}

// checkRun runs every diagnosis over each round's series.
func checkRun(o *CheckOptions) error {
	opt, failOnDefault, assumeTTL, consumerDecls, err := o.resolve()
	if err != nil {
		return err
	}
	// The gate's default: the config file's fail_on, else critical; a
	// --fail-on flag wins over both.
	if failOnDefault == "" {
		failOnDefault = "critical"
	}
	threshold, err := o.FailOn(failOnDefault)
	if err != nil {
		return err
	}
	sopt := cmdutil.SourceOptions{AttachMetrics: !o.NoMetrics, AssumeTTLEnforced: assumeTTL, Consumers: consumerDecls, LimitMemory: true}
	if o.MetricsTargets != "" {
		if sopt.MetricsTargets, err = scrape.ParseTargets(o.MetricsTargets); err != nil {
			return cmdutil.UsageErrorf("--metrics-targets: %v", err)
		}
	}
	src := o.Source(sopt)
	var prev []diag.Finding
	return o.Watched(src, o.Watch, func(r watch.Round) error {
		ropt := opt
		ropt.Metrics.Linted = src.Linted(r.Series[len(r.Series)-1])
		ropt.Lean = true // the report reads the findings and the overview only
		res := check.Run(r.Series, ropt)
		doc := report.NewCheckDoc(res, threshold)
		if r.Watch != nil && r.Watch.Round > 1 {
			doc.Changes = diffFindings(prev, res.Findings)
		}
		prev = res.Findings
		if err := o.EmitRound(r, doc); err != nil {
			return err
		}
		return o.Gate(res.Findings, failOnDefault)
	})
}

// diffFindings tells what is new and what went away between two rounds.
func diffFindings(prev, cur []diag.Finding) *report.CheckChanges {
	ch := &report.CheckChanges{New: map[string]bool{}}
	before := map[string]bool{}
	for _, f := range prev {
		before[report.FindingKey(f)] = true
	}
	now := map[string]bool{}
	for _, f := range cur {
		k := report.FindingKey(f)
		now[k] = true
		if !before[k] {
			ch.New[k] = true
		}
	}
	for _, f := range prev {
		if !now[report.FindingKey(f)] {
			ch.Resolved = append(ch.Resolved, f)
		}
	}
	return ch
}

// resolve merges the config file under the flags: a flag given on the
// command line wins, then the file, then the default. It returns the
// diagnosis options and the file's fail_on ("" when it has none); o is
// not changed.
//
// It also returns the file's assume_ttl_enforced (nil when absent) and its
// external consumers (a live collection reads their offset tables).
func (o *CheckOptions) resolve() (check.Options, string, *bool, []snapshot.ExternalConsumer, error) {
	var pol diag.Policy
	failOn := ""
	var assumeTTL *bool
	var decls []snapshot.ExternalConsumer
	var maxPublishAge time.Duration
	t := *o // the thresholds, with the file's where no flag was given
	if o.ConfigFile != "" {
		cfg, p, err := loadConfig(o.ConfigFile)
		if err != nil {
			return check.Options{}, "", nil, nil, cmdutil.UsageError{Err: err}
		}
		pol, failOn, assumeTTL, decls = p, cfg.FailOn, cfg.AssumeTTLEnforced, cfg.Consumers
		if cfg.Thresholds.MaxPublishAge != nil {
			maxPublishAge = time.Duration(*cfg.Thresholds.MaxPublishAge)
		}
		set := func(flag string, dst *time.Duration, v *duration) {
			if v != nil && !o.Given[flag] {
				*dst = time.Duration(*v)
			}
		}
		ft := cfg.Thresholds
		set("max-delay", &t.MaxDelay, ft.MaxDelay)
		set("min-headroom", &t.MinHeadroom, ft.MinHeadroom)
		set("max-pending", &t.MaxPending, ft.MaxPending)
		set("max-running", &t.MaxRunning, ft.MaxRunning)
		set("max-queued", &t.MaxQueued, ft.MaxQueued)
		if ft.MaxFailures != nil && !o.Given["max-failures"] {
			t.MaxFailures = *ft.MaxFailures
		}
	}
	for name, d := range map[string]time.Duration{"max-delay": t.MaxDelay, "min-headroom": t.MinHeadroom, "max-pending": t.MaxPending, "max-running": t.MaxRunning, "max-queued": t.MaxQueued, "fallback-window": t.FallbackWindow} {
		if d <= 0 {
			return check.Options{}, "", nil, nil, cmdutil.UsageErrorf("--%s must be positive, got %s", name, d)
		}
	}
	if t.MaxFailures < 1 || t.MinFallbacks < 1 {
		return check.Options{}, "", nil, nil, cmdutil.UsageErrorf("--max-failures and --min-fallbacks must be at least 1")
	}
	return check.Options{
		Streams: streams.Options{MinHeadroom: t.MinHeadroom, MaxPending: t.MaxPending},
		MVs: mv.Options{MaxDelay: t.MaxDelay, MaxFailures: t.MaxFailures, MaxRunning: t.MaxRunning, MaxQueued: t.MaxQueued,
			FallbackWindow: t.FallbackWindow, MinFallbacks: t.MinFallbacks},
		Consumers: consumers.Options{MinHeadroom: t.MinHeadroom, MaxPublishAge: maxPublishAge},
		Policy:    pol,
	}, failOn, assumeTTL, decls, nil
}

// loadFileConfig is the Factory's LoadConfig: --config FILE for the
// commands outside this package.
func loadFileConfig(path string) (cmdutil.FileConfig, error) {
	cfg, pol, err := loadConfig(path)
	if err != nil {
		return cmdutil.FileConfig{}, cmdutil.UsageError{Err: err}
	}
	fc := cmdutil.FileConfig{Consumers: cfg.Consumers, AssumeTTLEnforced: cfg.AssumeTTLEnforced, FailOn: cfg.FailOn, Policy: pol}
	if d := cfg.Thresholds.MinHeadroom; d != nil {
		v := time.Duration(*d)
		fc.MinHeadroom = &v
	}
	if d := cfg.Thresholds.MaxPublishAge; d != nil {
		v := time.Duration(*d)
		fc.MaxPublishAge = &v
	}
	return fc, nil
}
