package streams

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/report"
)

// StreamsOptions are the inputs of `streams`.
type StreamsOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	DB     string
	Kind   string
	State  string
	Limits StreamThresholds
	Watch  watch.Options
}

// streamThresholds are the flags of the stream findings, on `streams` and
// `streams show`.
type StreamThresholds struct {
	MinHeadroom time.Duration
	MaxPending  time.Duration
}

func addStreamThresholds(c *cobra.Command, t *StreamThresholds) {
	c.Flags().DurationVar(&t.MinHeadroom, "min-headroom", streams.DefaultMinHeadroom, "STREAM_HEADROOM_LOW below this retention headroom")
	c.Flags().DurationVar(&t.MaxPending, "max-pending", streams.DefaultMaxPending, "STREAM_PENDING_AGE_HIGH above this pending age")
}

func (t StreamThresholds) validate() error {
	if t.MinHeadroom < 0 || t.MaxPending < 0 {
		return cmdutil.UsageErrorf("--min-headroom and --max-pending must not be negative")
	}
	return nil
}

func (t StreamThresholds) diagOptions() streams.Options {
	return streams.Options{MinHeadroom: t.MinHeadroom, MaxPending: t.MaxPending}
}

// NewCmdStreams builds `streams` (and its `streams show`).
func NewCmdStreams(f *cmdutil.Factory, runF func(*StreamsOptions) error) *cobra.Command {
	o := &StreamsOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "streams",
		Short: "Table streams and IVM internal streams: state, pending age, headroom, resume",
		Long: `List every stream, worst first: kind (user or ivm), read mode, state (the
seven states of apache/doris#69907), pending partitions, the largest pending
age with its precision, the smallest retention headroom and whether every
partition can resume.
Findings follow the table. Give several --snapshot files (oldest first) or
--watch to narrow pending ages to one interval (PRECISE) and see rates.`,
		Example: `  dorisdiag streams --demo incident
  dorisdiag streams --host fe1 --kind user --state cannot_resume -o wide
  dorisdiag streams --snapshot a.json --snapshot b.json -o json
  dorisdiag streams show demo.s_orders_cdc --demo incident`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return streamsRun(o)
		},
	}
	c.Flags().StringVar(&o.DB, "db", "", "only streams of this database")
	c.Flags().StringVar(&o.Kind, "kind", "", "only streams of this kind: user or ivm")
	c.Flags().StringVar(&o.State, "state", "", "only streams in this state: "+strings.Join(cmdutil.Names(streams.States), ", "))
	addStreamThresholds(c, &o.Limits)
	watch.AddFlags(c, &o.Watch)
	c.AddCommand(NewCmdStreamsShow(f, nil))
	return c
}

// validate checks the flags, then -o, before any work.
func (o *StreamsOptions) validate() error {
	switch streams.Kind(o.Kind) {
	case "", streams.KindUser, streams.KindIVM:
	default:
		return cmdutil.UsageErrorf("--kind %q: want user or ivm", o.Kind)
	}
	if o.State != "" && streams.StateNumber(streams.State(o.State)) < 0 {
		return cmdutil.UsageErrorf("--state %q: want one of %s", o.State, strings.Join(cmdutil.Names(streams.States), ", "))
	}
	if err := o.Limits.validate(); err != nil {
		return err
	}
	return o.CheckFormat("streams")
}

// checkDB: a --db that names no database with a stream is a usage error
// naming the nearest ones, never "No findings." and exit 0 (a typo in a CI
// step would be green forever). --kind and --state select by condition, and
// matching nothing there is an answer.
func (o *StreamsOptions) checkDB(res *streams.Result) error {
	if o.DB == "" {
		return nil
	}
	var dbs []string
	for _, s := range res.Streams {
		if s.DB == o.DB {
			return nil
		}
		dbs = append(dbs, s.DB)
	}
	return cmdutil.NoMatch("--db: no database", o.DB, " with a stream", dbs)
}

// filter keeps the streams the flags select and the findings about them
// (plus the cluster-level ones).
func (o *StreamsOptions) filter(res *streams.Result) ([]streams.Stream, []diag.Finding) {
	keep := map[string]bool{}
	var ss []streams.Stream
	for _, s := range res.Streams {
		if (o.DB != "" && s.DB != o.DB) || (o.Kind != "" && s.Kind != streams.Kind(o.Kind)) || (o.State != "" && string(s.State) != o.State) {
			continue
		}
		ss = append(ss, s)
		keep[s.DB+"\x00"+s.Name] = true
	}
	filtered := o.DB != "" || o.Kind != "" || o.State != ""
	var fs []diag.Finding
	for _, f := range res.Findings {
		if f.Object.Kind == "stream" || f.Object.Kind == "partition" {
			if !keep[f.Object.DB+"\x00"+f.Object.Name] && (filtered || f.Object.Name != "") {
				continue
			}
		}
		fs = append(fs, f)
	}
	if ss == nil {
		ss = []streams.Stream{}
	}
	if fs == nil {
		fs = []diag.Finding{}
	}
	return ss, fs
}

// streamsRun lists the streams of each round's series, worst first.
func streamsRun(o *StreamsOptions) error {
	return o.Watched(o.Source(cmdutil.SourceOptions{}), o.Watch, func(r watch.Round) error {
		res := streams.Analyze(r.Series, o.Limits.diagOptions())
		if err := o.checkDB(res); err != nil {
			return err
		}
		ss, fs := o.filter(res)
		err := o.EmitRound(r, report.StreamsDoc{Now: res.Now, CurrentTSO: res.CurrentTSO.String(), Snapshots: res.Snapshots, TTLEnforcement: &res.TTLEnforcement,
			MinHeadroomThreshold: res.MinHeadroomS, MaxPendingThreshold: res.MaxPendingS, Streams: ss, Findings: fs})
		if err != nil {
			return err
		}
		return o.Gate(fs, "none")
	})
}

// StreamsShowOptions are the inputs of `streams show`.
type StreamsShowOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	Target *string // the name argument as typed, nil when none was given
	Limits StreamThresholds
	Watch  watch.Options
}

// NewCmdStreamsShow builds `streams show`.
func NewCmdStreamsShow(f *cmdutil.Factory, runF func(*StreamsShowOptions) error) *cobra.Command {
	o := &StreamsShowOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "show DB.STREAM",
		Short: "One stream, partition by partition: what the next read does and what to run",
		Long: `Show one stream's partitions, worst first — offset state, consumed TSO, caught
up, position gap, pending age (with precision), headroom, can_resume, what the
next read does (proceed, REJECTED, CLIPPED) and what is already lost — then a
short verdict: what the next read does and what to run.

The name is DB.STREAM, or STREAM alone when one database has it; backquote a
part that holds a dot or a backquote, a backquote inside doubled:
` + "`s.h.o.p`.`s.x`" + `. Without a name, the streams are listed.`,
		Example: `  dorisdiag streams show demo.s_events_dup --demo incident
  dorisdiag streams show demo.s_orders_audit --host fe1 --watch 15s`,
		Args: cmdutil.OneNameArg("DB.STREAM"),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common = f.Common()
			if len(args) == 1 {
				o.Target = &args[0]
			}
			if err := o.Limits.validate(); err != nil {
				return err
			}
			if err := o.CheckFormat("stream"); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return streamsShowRun(o)
		},
	}
	addStreamThresholds(c, &o.Limits)
	watch.AddFlags(c, &o.Watch)
	return c
}

// streamsShowRun shows one stream of each round's series.
func streamsShowRun(o *StreamsShowOptions) error {
	return o.Watched(o.Source(cmdutil.SourceOptions{}), o.Watch, func(r watch.Round) error {
		res := streams.Analyze(r.Series, o.Limits.diagOptions())
		refs := make([]cmdutil.ObjectRef, len(res.Streams))
		for i, x := range res.Streams {
			refs[i] = cmdutil.ObjectRef{DB: x.DB, Name: x.Name}
		}
		return o.ShowOne(r, cmdutil.NameUsage{Cmd: "streams show", What: "a stream", Shape: "DB.STREAM"}, o.Target, refs,
			func(ref cmdutil.ObjectRef) (report.Doc, []diag.Finding) {
				fs := res.FindingsFor(ref.DB, ref.Name)
				if fs == nil {
					fs = []diag.Finding{}
				}
				return report.StreamDoc{Now: res.Now, CurrentTSO: res.CurrentTSO.String(), Snapshots: res.Snapshots, Stream: res.ByName(ref.DB, ref.Name), Findings: fs}, fs
			})
	})
}
