package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// checkOptions are the flags of `dorisdiag check`.
type checkOptions struct {
	MaxDelay       time.Duration
	MinHeadroom    time.Duration
	MaxPending     time.Duration
	MaxFailures    int
	MaxRunning     time.Duration
	MaxQueued      time.Duration
	FallbackWindow time.Duration
	MinFallbacks   int
	Config         string
	NoMetrics      bool
	MetricsTargets string
	Watch          watchOptions
}

func newCheckCmd(g *globalOptions) *cobra.Command {
	o := &checkOptions{}
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
		RunE: func(cmd *cobra.Command, _ []string) error { return checkRun(g, o, cmd) },
	}
	f := c.Flags()
	f.DurationVar(&o.MaxDelay, "max-delay", mv.DefaultMaxDelay, "MV freshness target: MV_DELAY_HIGH above it (critical at 3×)")
	f.DurationVar(&o.MinHeadroom, "min-headroom", streams.DefaultMinHeadroom, "STREAM_HEADROOM_LOW below this retention headroom")
	f.DurationVar(&o.MaxPending, "max-pending", streams.DefaultMaxPending, "STREAM_PENDING_AGE_HIGH above this pending age")
	f.IntVar(&o.MaxFailures, "max-failures", mv.DefaultMaxFailures, "MV_CONSECUTIVE_FAILURES at or above this many failures in a row")
	f.DurationVar(&o.MaxRunning, "max-running", mv.DefaultMaxRunning, "MV_TASK_STUCK_RUNNING when a task runs longer")
	f.DurationVar(&o.MaxQueued, "max-queued", mv.DefaultMaxQueued, "MV_TASK_QUEUED_LONG when a task waits longer")
	f.DurationVar(&o.FallbackWindow, "fallback-window", mv.DefaultFallbackWindow, "window in which refresh failures and fallbacks to a rebuild are counted")
	f.IntVar(&o.MinFallbacks, "min-fallbacks", mv.DefaultMinFallbacks, "MV_FALLBACKS_REPEATED at or above this many fallbacks in the window")
	f.StringVar(&o.Config, "config", "", "YAML file with thresholds, severity overrides and ignores (docs/check.md)")
	f.BoolVar(&o.NoMetrics, "no-metrics", false, "live mode: do not fetch /metrics from the FEs and BEs")
	f.StringVar(&o.MetricsTargets, "metrics-targets", "", "live mode: fetch /metrics from these host:port (fe=/be= prefixes allowed) instead of the nodes SHOW FRONTENDS/BACKENDS advertise")
	addWatchFlags(c, &o.Watch)
	return c
}

func checkRun(g *globalOptions, o *checkOptions, cmd *cobra.Command) error {
	if err := g.checkFormat("check"); err != nil {
		return err
	}
	opt, failOnDefault, err := o.resolve(cmd)
	if err != nil {
		return err
	}
	if g.FailOn == "" {
		g.FailOn = failOnDefault
	}
	threshold, err := g.failOn("critical")
	if err != nil {
		return err
	}
	g.withMetrics = !o.NoMetrics
	if o.MetricsTargets != "" {
		if g.metricsTargets, err = scrape.ParseTargets(o.MetricsTargets); err != nil {
			return usageErrorf("--metrics-targets: %v", err)
		}
	}
	var prev []diag.Finding
	round := 0
	return g.runWatch(o.Watch, func(series []*snapshot.Snapshot) error {
		round++
		ropt := opt
		ropt.Metrics.Linted = g.lintedFor(series[len(series)-1])
		res := check.Run(series, ropt)
		doc := report.CheckDoc{Result: res, FailOn: threshold.String(), Passed: !diag.AtOrAbove(res.Findings, threshold)}
		if o.Watch.Interval > 0 && round > 1 {
			doc.Changes = diffFindings(prev, res.Findings)
		}
		prev = res.Findings
		if err := g.emit(doc); err != nil {
			return err
		}
		return g.gate(res.Findings, "critical")
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
// command line wins, then the file, then the default.
func (o *checkOptions) resolve(cmd *cobra.Command) (check.Options, string, error) {
	var pol diag.Policy
	failOn := ""
	if o.Config != "" {
		cfg, p, err := loadConfig(o.Config)
		if err != nil {
			return check.Options{}, "", usageError{err}
		}
		pol, failOn = p, cfg.FailOn
		set := func(flag string, dst *time.Duration, v *duration) {
			if v != nil && !cmd.Flags().Changed(flag) {
				*dst = time.Duration(*v)
			}
		}
		t := cfg.Thresholds
		set("max-delay", &o.MaxDelay, t.MaxDelay)
		set("min-headroom", &o.MinHeadroom, t.MinHeadroom)
		set("max-pending", &o.MaxPending, t.MaxPending)
		set("max-running", &o.MaxRunning, t.MaxRunning)
		set("max-queued", &o.MaxQueued, t.MaxQueued)
		if t.MaxFailures != nil && !cmd.Flags().Changed("max-failures") {
			o.MaxFailures = *t.MaxFailures
		}
	}
	for name, d := range map[string]time.Duration{"max-delay": o.MaxDelay, "min-headroom": o.MinHeadroom, "max-pending": o.MaxPending, "max-running": o.MaxRunning, "max-queued": o.MaxQueued, "fallback-window": o.FallbackWindow} {
		if d <= 0 {
			return check.Options{}, "", usageErrorf("--%s must be positive, got %s", name, d)
		}
	}
	if o.MaxFailures < 1 || o.MinFallbacks < 1 {
		return check.Options{}, "", usageErrorf("--max-failures and --min-fallbacks must be at least 1")
	}
	return check.Options{
		Streams: streams.Options{MinHeadroom: o.MinHeadroom, MaxPending: o.MaxPending},
		MVs: mv.Options{MaxDelay: o.MaxDelay, MaxFailures: o.MaxFailures, MaxRunning: o.MaxRunning, MaxQueued: o.MaxQueued,
			FallbackWindow: o.FallbackWindow, MinFallbacks: o.MinFallbacks},
		Policy: pol,
	}, failOn, nil
}
