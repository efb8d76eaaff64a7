package mv

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/report"
	mvreport "github.com/dorisdiag/dorisdiag/report/mv"
)

// mvThresholds are the flags of the MV findings: persistent flags of the
// `mv` group, read by `mv list` and `mv explain` (docs/mv.md).
type MVThresholds struct {
	MaxDelay       time.Duration
	MaxFailures    int
	MaxRunning     time.Duration
	MaxQueued      time.Duration
	FallbackWindow time.Duration
	MinFallbacks   int
}

func (t MVThresholds) diagOptions() mv.Options {
	return mv.Options{MaxDelay: t.MaxDelay, MaxFailures: t.MaxFailures, MaxRunning: t.MaxRunning, MaxQueued: t.MaxQueued,
		FallbackWindow: t.FallbackWindow, MinFallbacks: t.MinFallbacks}
}

// validate checks the thresholds (exit 2 on nonsense, never a silent default).
func (t MVThresholds) validate() error {
	for name, d := range map[string]time.Duration{"--max-delay": t.MaxDelay, "--max-running": t.MaxRunning, "--max-queued": t.MaxQueued, "--fallback-window": t.FallbackWindow} {
		if d <= 0 {
			return cmdutil.UsageErrorf("%s must be positive, got %s", name, d)
		}
	}
	if t.MaxFailures < 1 {
		return cmdutil.UsageErrorf("--max-failures must be at least 1, got %d", t.MaxFailures)
	}
	if t.MinFallbacks < 1 {
		return cmdutil.UsageErrorf("--min-fallbacks must be at least 1, got %d", t.MinFallbacks)
	}
	return nil
}

// NewCmdMV builds the `mv` group: its threshold flags and its commands.
func NewCmdMV(f *cmdutil.Factory) *cobra.Command {
	th := &MVThresholds{}
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
	pf.DurationVar(&th.MaxDelay, "max-delay", mv.DefaultMaxDelay, "freshness target: MV_DELAY_HIGH above it (critical at 3×)")
	pf.IntVar(&th.MaxFailures, "max-failures", mv.DefaultMaxFailures, "MV_CONSECUTIVE_FAILURES at or above this many failures in a row")
	pf.DurationVar(&th.MaxRunning, "max-running", mv.DefaultMaxRunning, "MV_TASK_STUCK_RUNNING when a task runs longer")
	pf.DurationVar(&th.MaxQueued, "max-queued", mv.DefaultMaxQueued, "MV_TASK_QUEUED_LONG when a task waits longer")
	pf.DurationVar(&th.FallbackWindow, "fallback-window", mv.DefaultFallbackWindow, "window in which fallbacks to a rebuild are counted")
	pf.IntVar(&th.MinFallbacks, "min-fallbacks", mv.DefaultMinFallbacks, "MV_FALLBACKS_REPEATED at or above this many fallbacks in the window")
	c.AddCommand(NewCmdMVList(f, th, nil), NewCmdMVExplain(f, th, nil))
	return c
}

// MVListOptions are the inputs of `mv list`.
type MVListOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	Limits MVThresholds
	DB     string
	State  string
	Watch  watch.Options
}

// NewCmdMVList builds `mv list`; th are the `mv` group's threshold flags.
func NewCmdMVList(f *cmdutil.Factory, th *MVThresholds, runF func(*MVListOptions) error) *cobra.Command {
	o := &MVListOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "list",
		Short: "One row per IVM MV, worst first: state, delay, lagging reason, failures, last method, fallbacks",
		Example: `  dorisdiag mv list --demo incident
  dorisdiag mv list --host fe1 --db demo --state lagging -o json
  dorisdiag mv list --host fe1 --watch 30s`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common, o.Limits = f.Common(), *th
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return mvListRun(o)
		},
	}
	c.Flags().StringVar(&o.DB, "db", "", "only MVs of this database")
	c.Flags().StringVar(&o.State, "state", "", "only MVs in this freshness state: "+strings.Join(cmdutil.Names(mv.FreshnessStates), ", "))
	watch.AddFlags(c, &o.Watch)
	return c
}

// validate checks the thresholds, --state (written as the state's own
// name), then -o.
func (o *MVListOptions) validate() error {
	if err := o.Limits.validate(); err != nil {
		return err
	}
	if o.State != "" {
		ok := false
		for _, s := range mv.FreshnessStates {
			if strings.EqualFold(o.State, string(s)) {
				o.State, ok = string(s), true
			}
		}
		if !ok {
			return cmdutil.UsageErrorf("--state %q: want one of %s", o.State, strings.Join(cmdutil.Names(mv.FreshnessStates), ", "))
		}
	}
	return o.CheckFormat("mv_list")
}

// mvListRun lists the IVM MVs of each round's series, worst first.
func mvListRun(o *MVListOptions) error {
	return o.Watched(o.Source(cmdutil.SourceOptions{}), o.Watch, func(r watch.Round) error {
		res := cmdutil.AnalyzeMVs(r.Series, o.Limits.diagOptions())
		if o.DB != "" {
			var dbs []string
			for _, m := range res.MVs {
				dbs = append(dbs, m.DB)
			}
			if !cmdutil.ContainsFold(dbs, o.DB) {
				return cmdutil.NoMatch("--db: no database", o.DB, " with an IVM materialized view", dbs)
			}
		}
		doc := mvreport.MVListDoc{Now: res.Now, Thresholds: res.Thresholds, Capabilities: res.Capabilities, MVs: []mv.ListItem{},
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
		if err := o.EmitRound(r, doc); err != nil {
			return err
		}
		return o.Gate(doc.Findings, "none")
	})
}

// MVExplainOptions are the inputs of `mv explain`.
type MVExplainOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	Limits MVThresholds
	// Target is the name argument as typed, nil when none was given.
	Target *string
	// Details (--details): every finding's detail, every task and
	// statement, not only what fits one screen.
	Details bool
	Watch   watch.Options
}

// NewCmdMVExplain builds `mv explain`; th are the `mv` group's threshold
// flags.
func NewCmdMVExplain(f *cmdutil.Factory, th *MVThresholds, runF func(*MVExplainOptions) error) *cobra.Command {
	o := &MVExplainOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "explain DB.MV",
		Short: "The one-screen answer for one MV: verdict, causes, dependencies, worst partitions, recent tasks, SQL to run",
		Long: `The one-screen answer for one MV. The name is DB.MV, or MV alone when one
database has it; backquote a part that holds a dot or a backquote, a backquote
inside doubled: ` + "`s.h.o.p`.`mv.x`" + `. Without a name, the MVs are listed.`,
		Example: `  dorisdiag mv explain demo.mv_orders_daily --demo incident
  dorisdiag mv explain mv_orders_daily --demo incident
  dorisdiag mv explain demo.mv_orders_daily --host fe1 -o json`,
		Args: cmdutil.OneNameArg("DB.MV"),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common, o.Limits = f.Common(), *th
			if err := o.Limits.validate(); err != nil {
				return err
			}
			if len(args) == 1 {
				o.Target = &args[0]
			}
			if err := o.CheckFormat("mv_explain"); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return mvExplainRun(o)
		},
	}
	watch.AddFlags(c, &o.Watch)
	c.Flags().BoolVar(&o.Details, "details", false, "show everything: each finding's detail and next step, every recent task, every SQL statement (the table format otherwise fits one screen)")
	return c
}

// mvExplainRun explains one MV of each round's series.
func mvExplainRun(o *MVExplainOptions) error {
	return o.Watched(o.Source(cmdutil.SourceOptions{}), o.Watch, func(r watch.Round) error {
		res := cmdutil.AnalyzeMVs(r.Series, o.Limits.diagOptions())
		refs := make([]cmdutil.ObjectRef, len(res.MVs))
		for i, x := range res.MVs {
			refs[i] = cmdutil.ObjectRef{DB: x.DB, Name: x.Name}
		}
		return o.ShowOne(r, cmdutil.NameUsage{Cmd: "mv explain", What: "an IVM materialized view", Shape: "DB.MV"}, o.Target, refs,
			func(ref cmdutil.ObjectRef) (report.Doc, []diag.Finding) {
				m := res.ByName(ref.DB, ref.Name)
				fs := res.FindingsFor(m.DB, m.Name)
				return mvreport.MVExplainDoc{Now: res.Now, Thresholds: res.Thresholds, Capabilities: res.Capabilities, MV: m, Findings: fs, Details: o.Details}, fs
			})
	})
}
