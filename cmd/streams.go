package cmd

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// streamsOptions are the flags of `streams` and `streams show`.
type streamsOptions struct {
	g           *globalOptions
	DB          string
	Kind        string
	State       string
	MinHeadroom time.Duration
	MaxPending  time.Duration
	Watch       watchOptions
	Target      *string // streams show: the name argument as typed, nil when none was given
}

func addStreamThresholds(c *cobra.Command, o *streamsOptions) {
	c.Flags().DurationVar(&o.MinHeadroom, "min-headroom", streams.DefaultMinHeadroom, "STREAM_HEADROOM_LOW below this retention headroom")
	c.Flags().DurationVar(&o.MaxPending, "max-pending", streams.DefaultMaxPending, "STREAM_PENDING_AGE_HIGH above this pending age")
}

func (o *streamsOptions) diagOptions() streams.Options {
	return streams.Options{MinHeadroom: o.MinHeadroom, MaxPending: o.MaxPending}
}

func newStreamsCmd(g *globalOptions) *cobra.Command {
	o := &streamsOptions{g: g}
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
		RunE: func(_ *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return streamsRun(o)
		},
	}
	c.Flags().StringVar(&o.DB, "db", "", "only streams of this database")
	c.Flags().StringVar(&o.Kind, "kind", "", "only streams of this kind: user or ivm")
	c.Flags().StringVar(&o.State, "state", "", "only streams in this state: "+strings.Join(names(streams.States), ", "))
	addStreamThresholds(c, o)
	addWatchFlags(c, &o.Watch)
	c.AddCommand(newStreamsShowCmd(g))
	return c
}

func (o *streamsOptions) validate() error {
	switch o.Kind {
	case "", streams.KindUser, streams.KindIVM:
	default:
		return usageErrorf("--kind %q: want user or ivm", o.Kind)
	}
	if o.State != "" && streams.StateNumber(streams.State(o.State)) < 0 {
		return usageErrorf("--state %q: want one of %s", o.State, strings.Join(names(streams.States), ", "))
	}
	if o.MinHeadroom < 0 || o.MaxPending < 0 {
		return usageErrorf("--min-headroom and --max-pending must not be negative")
	}
	return nil
}

// checkDB: a --db that names no database with a stream is a usage error
// naming the nearest ones, never "No findings." and exit 0 (a typo in a CI
// step would be green forever). --kind and --state select by condition, and
// matching nothing there is an answer.
func (o *streamsOptions) checkDB(res *streams.Result) error {
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
	return noMatch("--db: no database", o.DB, " with a stream", dbs)
}

// filter keeps the streams the flags select and the findings about them
// (plus the cluster-level ones).
func (o *streamsOptions) filter(res *streams.Result) ([]streams.Stream, []diag.Finding) {
	keep := map[string]bool{}
	var ss []streams.Stream
	for _, s := range res.Streams {
		if (o.DB != "" && s.DB != o.DB) || (o.Kind != "" && s.Kind != o.Kind) || (o.State != "" && string(s.State) != o.State) {
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

func streamsRun(o *streamsOptions) error {
	g := o.g
	if err := g.checkFormat("streams"); err != nil {
		return err
	}
	return g.runWatch(o.Watch, func(series []*snapshot.Snapshot) error {
		res := streams.Analyze(series, o.diagOptions())
		if err := o.checkDB(res); err != nil {
			return err
		}
		ss, fs := o.filter(res)
		err := g.emit(report.StreamsDoc{Now: res.Now, CurrentTSO: res.CurrentTSO.String(), Snapshots: res.Snapshots,
			MinHeadroomThreshold: res.MinHeadroomS, MaxPendingThreshold: res.MaxPendingS, Streams: ss, Findings: fs})
		if err != nil {
			return err
		}
		return g.gate(fs, "none")
	})
}

func newStreamsShowCmd(g *globalOptions) *cobra.Command {
	o := &streamsOptions{g: g}
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
		Args: oneNameArg("DB.STREAM"),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Target = &args[0]
			}
			if err := o.validate(); err != nil {
				return err
			}
			return streamsShowRun(o)
		},
	}
	addStreamThresholds(c, o)
	addWatchFlags(c, &o.Watch)
	return c
}

func streamsShowRun(o *streamsOptions) error {
	g := o.g
	if err := g.checkFormat("stream"); err != nil {
		return err
	}
	return g.runWatch(o.Watch, func(series []*snapshot.Snapshot) error {
		res := streams.Analyze(series, o.diagOptions())
		refs := make([]objectRef, len(res.Streams))
		for i, x := range res.Streams {
			refs[i] = objectRef{x.DB, x.Name}
		}
		ref, err := nameUsage{cmd: "streams show", what: "a stream", shape: "DB.STREAM"}.resolve(o.Target, refs)
		if err != nil {
			return err
		}
		s := res.ByName(ref.DB, ref.Name)
		fs := res.FindingsFor(ref.DB, ref.Name)
		if fs == nil {
			fs = []diag.Finding{}
		}
		if err := g.emit(report.StreamDoc{Now: res.Now, CurrentTSO: res.CurrentTSO.String(), Snapshots: res.Snapshots, Stream: s, Findings: fs}); err != nil {
			return err
		}
		return g.gate(fs, "none")
	})
}
