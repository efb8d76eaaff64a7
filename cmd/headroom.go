package cmd

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/diag/streams/whatif"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/tso"
)

// HeadroomOptions are the inputs of `headroom`, the what-if of a
// maintenance window: which partitions can still resume if nobody consumes
// until then.
type HeadroomOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	At   string
	In   time.Duration
	TTL  string
	DB   string
	Kind string
	All  bool

	// Parsed by validate: --at as a time (zero without --at), --ttl in
	// seconds (nil without --ttl).
	at  time.Time
	ttl *int64
}

// NewCmdHeadroom builds `headroom`.
func NewCmdHeadroom(f *cmdutil.Factory, runF func(*HeadroomOptions) error) *cobra.Command {
	o := &HeadroomOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "headroom",
		Short: "What-if: which stream partitions can still resume if nobody consumes until a time",
		Long: `Evaluate every stream partition with a TTL now and at a later cluster time
(--at TIME or --in DURATION), assuming nobody consumes in between: which
partitions would be lost (resumable now, not then), which are expired already,
which are safe. --ttl tries another TTL (seconds or a duration) for both.`,
		Example: `  dorisdiag headroom --demo healthy --in 20h
  dorisdiag headroom --host fe1 --at 2026-12-01T02:00:00Z --ttl 172800`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return headroomRun(o)
		},
	}
	c.Flags().StringVar(&o.At, "at", "", "evaluate at this cluster time (RFC 3339, e.g. 2026-12-01T02:00:00Z)")
	c.Flags().DurationVar(&o.In, "in", 0, "evaluate this long after the cluster time (e.g. 20h)")
	c.Flags().StringVar(&o.TTL, "ttl", "", "try this TTL instead of each table's (seconds, or a duration like 48h)")
	c.Flags().StringVar(&o.DB, "db", "", "only streams of this database")
	c.Flags().StringVar(&o.Kind, "kind", "", "only streams of this kind: user or ivm")
	c.Flags().BoolVar(&o.All, "all", false, "list safe partitions too (default: only lost and expired ones, plus a count)")
	return c
}

// validate checks -o and the flags, and parses --at and --ttl.
func (o *HeadroomOptions) validate() error {
	if err := o.CheckFormat("headroom"); err != nil {
		return err
	}
	if o.At != "" && o.In != 0 {
		return cmdutil.UsageErrorf("give --at or --in, not both")
	}
	if o.In < 0 {
		return cmdutil.UsageErrorf("--in must not be negative")
	}
	switch streams.Kind(o.Kind) {
	case "", streams.KindUser, streams.KindIVM:
	default:
		return cmdutil.UsageErrorf("--kind %q: want user or ivm", o.Kind)
	}
	if o.TTL != "" {
		ttl, err := cmdutil.ParseTTL("--ttl", o.TTL)
		if err != nil {
			return err
		}
		o.ttl = &ttl
	}
	if o.At != "" {
		var err error
		if o.at, err = cmdutil.ParseTimeFlag("--at", o.At, "UTC", false); err != nil {
			return cmdutil.UsageErrorf("--at %q: want an RFC 3339 time like 2026-12-01T02:00:00Z (or \"YYYY-MM-DD HH:MM:SS\" in UTC)", o.At)
		}
	}
	return nil
}

// headroomRun evaluates the partitions now and at the later time.
func headroomRun(o *HeadroomOptions) error {
	series, err := o.Source(cmdutil.SourceOptions{}).Load()
	if err != nil {
		return err
	}
	opt := streams.Options{TTLOverride: o.ttl}
	at := o.at
	now := series[len(series)-1].Cluster.Now
	if o.At == "" {
		at = now.Add(o.In)
	}
	// "Later" is the contract: an earlier time printed "(+-21152d10h)", and
	// one no TSO can encode (or more than a time.Duration after now: 292
	// years) silently judged no partition at all.
	if at.Before(now) {
		return cmdutil.UsageErrorf("--at %s is before the cluster time %s: want a later time", at.UTC().Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if _, err := tso.FromTime(at, 0); err != nil || at.Sub(now) == time.Duration(math.MaxInt64) {
		return cmdutil.UsageErrorf("--at/--in: %s is too far after the cluster time %s to evaluate", at.UTC().Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if o.DB != "" {
		var dbs []string
		for _, s := range series[len(series)-1].Streams {
			dbs = append(dbs, s.DB)
		}
		if !cmdutil.Contains(dbs, o.DB) {
			return cmdutil.NoMatch("--db: no database", o.DB, " with a stream", dbs)
		}
	}
	plan := whatif.PlanHeadroom(series, opt, at)
	rows := plan.Rows[:0:0]
	for _, r := range plan.Rows {
		if (o.DB != "" && r.DB != o.DB) || (o.Kind != "" && r.Kind != streams.Kind(o.Kind)) {
			continue
		}
		rows = append(rows, r)
	}
	plan.Rows = rows
	fs := plan.Findings
	if o.DB != "" || o.Kind != "" {
		fs = nil
		for _, f := range plan.Findings {
			if o.DB == "" || f.Object.DB == o.DB {
				fs = append(fs, f)
			}
		}
	}
	if err := o.Emit(report.HeadroomDoc{HeadroomPlan: plan, All: o.All}); err != nil {
		return err
	}
	return o.Gate(fs, "none")
}
