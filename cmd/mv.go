package cmd

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// mvOptions are the flags of `dorisdiag mv list|explain` (docs/mv.md).
type mvOptions struct {
	g              *globalOptions
	MaxDelay       time.Duration
	MaxFailures    int
	MaxRunning     time.Duration
	MaxQueued      time.Duration
	FallbackWindow time.Duration
	MinFallbacks   int
	// list
	DB    string
	State string
	// explain: the name argument as typed, nil when none was given
	Target *string
	Watch  watchOptions
	// Details (--details): mv explain shows every finding's detail, every
	// task and statement, not only what fits one screen.
	Details bool
}

func (o *mvOptions) diagOptions() mv.Options {
	return mv.Options{MaxDelay: o.MaxDelay, MaxFailures: o.MaxFailures, MaxRunning: o.MaxRunning, MaxQueued: o.MaxQueued,
		FallbackWindow: o.FallbackWindow, MinFallbacks: o.MinFallbacks}
}

// validate checks the thresholds (exit 2 on nonsense, never a silent default).
func (o *mvOptions) validate() error {
	for name, d := range map[string]time.Duration{"--max-delay": o.MaxDelay, "--max-running": o.MaxRunning, "--max-queued": o.MaxQueued, "--fallback-window": o.FallbackWindow} {
		if d <= 0 {
			return usageErrorf("%s must be positive, got %s", name, d)
		}
	}
	if o.MaxFailures < 1 {
		return usageErrorf("--max-failures must be at least 1, got %d", o.MaxFailures)
	}
	if o.MinFallbacks < 1 {
		return usageErrorf("--min-fallbacks must be at least 1, got %d", o.MinFallbacks)
	}
	if o.State != "" {
		ok := false
		for _, s := range mv.FreshnessStates {
			if strings.EqualFold(o.State, string(s)) {
				o.State, ok = string(s), true
			}
		}
		if !ok {
			return usageErrorf("--state %q: want one of %s", o.State, strings.Join(names(mv.FreshnessStates), ", "))
		}
	}
	return nil
}

// analyzeMVs runs the stream analysis and the MV analysis over a series.
func analyzeMVs(series []*snapshot.Snapshot, opt mv.Options) *mv.Result {
	streams := streams.Analyze(series, streams.Options{})
	return mv.Analyze(series, streams, opt)
}

func newMVCmd(g *globalOptions) *cobra.Command {
	o := &mvOptions{g: g}
	c := &cobra.Command{
		Use:   "mv",
		Short: "Diagnose IVM materialized views: freshness, delay, refresh failures, fallbacks to a rebuild",
		Long: `Diagnose incrementally maintained (IVM) materialized views: is each one fresh,
how far behind and why, has it stopped refreshing, has incremental refresh
turned into recomputation. Every delay says its precision:
PRECISE, UPPER_BOUND (never reported too small) or UNKNOWN.`,
		Args: cobra.NoArgs,
	}
	pf := c.PersistentFlags()
	pf.DurationVar(&o.MaxDelay, "max-delay", mv.DefaultMaxDelay, "freshness target: MV_DELAY_HIGH above it (critical at 3×)")
	pf.IntVar(&o.MaxFailures, "max-failures", mv.DefaultMaxFailures, "MV_CONSECUTIVE_FAILURES at or above this many failures in a row")
	pf.DurationVar(&o.MaxRunning, "max-running", mv.DefaultMaxRunning, "MV_TASK_STUCK_RUNNING when a task runs longer")
	pf.DurationVar(&o.MaxQueued, "max-queued", mv.DefaultMaxQueued, "MV_TASK_QUEUED_LONG when a task waits longer")
	pf.DurationVar(&o.FallbackWindow, "fallback-window", mv.DefaultFallbackWindow, "window in which fallbacks to a rebuild are counted")
	pf.IntVar(&o.MinFallbacks, "min-fallbacks", mv.DefaultMinFallbacks, "MV_FALLBACKS_REPEATED at or above this many fallbacks in the window")
	c.AddCommand(newMVListCmd(o), newMVExplainCmd(o))
	return c
}

func newMVListCmd(o *mvOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "list",
		Short: "One row per IVM MV, worst first: state, delay, lagging reason, failures, last method, fallbacks",
		Example: `  dorisdiag mv list --demo incident
  dorisdiag mv list --host fe1 --db demo --state lagging -o json
  dorisdiag mv list --host fe1 --watch 30s`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return mvListRun(o)
		},
	}
	c.Flags().StringVar(&o.DB, "db", "", "only MVs of this database")
	c.Flags().StringVar(&o.State, "state", "", "only MVs in this freshness state: "+strings.Join(names(mv.FreshnessStates), ", "))
	addWatchFlags(c, &o.Watch)
	return c
}

func mvListRun(o *mvOptions) error {
	g := o.g
	if err := g.checkFormat("mv_list"); err != nil {
		return err
	}
	return g.runWatch(o.Watch, func(series []*snapshot.Snapshot) error {
		res := analyzeMVs(series, o.diagOptions())
		if o.DB != "" {
			var dbs []string
			for _, m := range res.MVs {
				dbs = append(dbs, m.DB)
			}
			if !containsFold(dbs, o.DB) {
				return noMatch("--db: no database", o.DB, " with an IVM materialized view", dbs)
			}
		}
		doc := report.MVListDoc{Now: res.Now, Thresholds: res.Thresholds, Capabilities: res.Capabilities, MVs: []mv.ListItem{},
			NotIVM: res.NotIVM, Unmatched: res.UnmatchedInternalStreams, Findings: []diag.Finding{}}
		for i := range res.MVs {
			m := &res.MVs[i]
			if o.DB != "" && !strings.EqualFold(m.DB, o.DB) {
				continue
			}
			if o.State != "" && string(m.FreshnessState) != o.State {
				continue
			}
			fs := res.FindingsFor(m.DB, m.Name)
			doc.MVs = append(doc.MVs, m.ListItem(fs))
			doc.Findings = append(doc.Findings, fs...)
		}
		diag.SortFindings(doc.Findings)
		if err := g.emit(doc); err != nil {
			return err
		}
		return g.gate(doc.Findings, "none")
	})
}

func newMVExplainCmd(o *mvOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "explain DB.MV",
		Short: "The one-screen answer for one MV: verdict, causes, dependencies, worst partitions, recent tasks, SQL to run",
		Long: `The one-screen answer for one MV. The name is DB.MV, or MV alone when one
database has it; backquote a part that holds a dot or a backquote, a backquote
inside doubled: ` + "`s.h.o.p`.`mv.x`" + `. Without a name, the MVs are listed.`,
		Example: `  dorisdiag mv explain demo.mv_orders_daily --demo incident
  dorisdiag mv explain mv_orders_daily --demo incident
  dorisdiag mv explain demo.mv_orders_daily --host fe1 -o json`,
		Args: oneNameArg("DB.MV"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if len(args) == 1 {
				o.Target = &args[0]
			}
			return mvExplainRun(o)
		},
	}
	addWatchFlags(c, &o.Watch)
	c.Flags().BoolVar(&o.Details, "details", false, "show everything: each finding's detail and next step, every recent task, every SQL statement (the table format otherwise fits one screen)")
	return c
}

func mvExplainRun(o *mvOptions) error {
	g := o.g
	if err := g.checkFormat("mv_explain"); err != nil {
		return err
	}
	return g.runWatch(o.Watch, func(series []*snapshot.Snapshot) error {
		res := analyzeMVs(series, o.diagOptions())
		refs := make([]objectRef, len(res.MVs))
		for i, x := range res.MVs {
			refs[i] = objectRef{x.DB, x.Name}
		}
		ref, err := nameUsage{cmd: "mv explain", what: "an IVM materialized view", shape: "DB.MV"}.resolve(o.Target, refs)
		if err != nil {
			return err
		}
		m := res.ByName(ref.DB, ref.Name)
		fs := res.FindingsFor(m.DB, m.Name)
		if err := g.emit(report.MVExplainDoc{Now: res.Now, Thresholds: res.Thresholds, Capabilities: res.Capabilities, MV: m, Findings: fs, Details: o.Details}); err != nil {
			return err
		}
		return g.gate(fs, "none")
	})
}
