package tso

import (
	"errors"
	"fmt"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/tsotool"
	tsoreport "github.com/dorisdiag/dorisdiag/report/tso"
	"github.com/dorisdiag/dorisdiag/tso"
)

// TSOHeadroomOptions are the inputs of `tso headroom`, the on-call
// calculator for one offset.
type TSOHeadroomOptions struct {
	cmdutil.Common
	// Source is the snapshot source of --table (the root's --host,
	// --snapshot or --demo); nothing is read without --table.
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	Offset      string
	TTLText     string // --ttl as typed
	TTL         int64  // --ttl parsed by validate (0 with --table)
	Table       string
	Now         string
	NowTime     string
	TZ          string
	MinHeadroom time.Duration

	cursor cmdutil.Cursor // --offset parsed by validate
	// tableEnforced is the --table source's TTL-enforcement verdict (nil:
	// unknown).
	tableEnforced *bool
}

// NewCmdTSOHeadroom builds `tso headroom`.
func NewCmdTSOHeadroom(f *cmdutil.Factory, runF func(*TSOHeadroomOptions) error) *cobra.Command {
	o := &TSOHeadroomOptions{Source: f.Source}
	c := &cobra.Command{
		Use:   "headroom --offset C (--ttl SECONDS (--now TSO | --now-time TIME) | --table DB.TABLE)",
		Short: "If a consumer's offset is C, how long until the TTL expires the next change it needs?",
		Long: `The on-call calculator: the whole retention computation for one offset, exactly
as the Doris planner does it (docs/tso.md):

  cutoff          = calculateCutoff(now, ttl)     last TSO of millisecond now-ttl
  retention_floor = nextTso(cutoff)
  next_required   = nextTso(C)                    C is the offset, inclusive
  can_resume      = next_required >= retention_floor
  headroom        = physical(next_required) - physical(retention_floor)

--offset takes CONSUMPTION_STATUS text as well (N/A, \N, -1: no offset), and
any reader's own cursor as a timestamp: "2026-11-29 08:59:48" in --tz (the
zone the reader wrote it in) or RFC 3339; the whole millisecond counts as
consumed, and the output prints the UTC instant beside the zone.
--table DB.TABLE takes the TTL from that table and "now" from the cluster's
clock, through the source flags (--host, --snapshot or --demo).
--now-time now uses this machine's clock; prefer the cluster's current TSO
(SELECT CURRENT_TSO FROM information_schema.tso_status).
Exit 1 with --fail-on critical when the offset can no longer resume, and with
--fail-on warning when the headroom is under --min-headroom.

Builds differ: earlier ROW binlog builds never expire changes whatever
binlog.ttl_seconds says (apache/doris#65897). Without --table the calculator
reads no cluster, so an expired offset is a warning worded "if this build enforces
binlog.ttl_seconds (apache/doris#68226)" unless --assume-ttl-enforced says the
build does (critical), or =false says it does not (no finding; the numbers
are still shown).`,
		Example: `  dorisdiag tso headroom --offset 469067681628160003 --ttl 86400 --now-time 2026-09-15T12:00:00Z
  dorisdiag tso headroom --offset N/A --ttl 86400 --now 469099767398400000 -o json
  dorisdiag tso headroom --offset '2026-11-29 16:59:48' --tz Asia/Shanghai --table demo.orders --demo incident`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return tsoHeadroomRun(o)
		},
	}
	c.Flags().StringVar(&o.Offset, "offset", "", "consumed offset C (inclusive): a TSO, CONSUMPTION_STATUS text such as N/A, or a timestamp in --tz")
	c.Flags().StringVar(&o.TTLText, "ttl", "", "changelog.ttl_seconds of the base table (seconds, or a duration like 48h)")
	c.Flags().StringVar(&o.Table, "table", "", "take the TTL from this table (DB.TABLE) and now from the cluster, through --host, --snapshot or --demo")
	c.Flags().StringVar(&o.Now, "now", "", "the cluster's current TSO (tso_status.CURRENT_TSO)")
	c.Flags().StringVar(&o.NowTime, "now-time", "", "the current time instead of --now (RFC 3339, \"YYYY-MM-DD HH:MM:SS\" in --tz, or \"now\" for this machine's clock)")
	c.Flags().StringVar(&o.TZ, "tz", "UTC", "zone of --now-time and of a timestamp --offset without an offset")
	c.Flags().DurationVar(&o.MinHeadroom, "min-headroom", 30*time.Minute, "warn when the headroom is under this")
	return c
}

// validate checks -o, --offset and --ttl.
func (o *TSOHeadroomOptions) validate() error {
	if err := o.CheckFormat(tsoreport.TSOHeadroomDoc{}.Kind()); err != nil {
		return err
	}
	if o.Offset == "" {
		return cmdutil.UsageErrorf("--offset is required (a TSO, N/A for a partition with no offset, or a timestamp)")
	}
	if _, err := cmdutil.LoadZone(o.TZ); err != nil {
		return cmdutil.UsageError{Err: err}
	}
	c, err := cmdutil.ParseCursor("--offset", o.Offset, o.TZ)
	if err != nil {
		return err
	}
	o.cursor = c
	switch {
	case o.Table != "" && o.TTLText != "":
		return cmdutil.UsageErrorf("give --ttl or --table, not both")
	case o.Table != "":
		if _, _, ok := cmdutil.SplitTable(o.Table); !ok {
			return cmdutil.UsageErrorf("--table %q: want DB.TABLE", o.Table)
		}
		return nil
	case o.TTLText == "":
		return cmdutil.UsageErrorf("give --ttl SECONDS, or --table DB.TABLE with --host, --snapshot or --demo")
	}
	ttl, err := cmdutil.ParseTTL("--ttl", o.TTLText)
	if err != nil {
		return err
	}
	o.TTL = ttl
	return nil
}

// fromTable reads the TTL of --table and the cluster's clock from the
// source (a live collection reads that table's properties).
func (o *TSOHeadroomOptions) fromTable() (tso.TSO, error) {
	series, err := o.Source(cmdutil.SourceOptions{Tables: []string{o.Table}}).Load()
	if err != nil {
		return 0, err
	}
	s := series[len(series)-1]
	db, tbl, _ := cmdutil.SplitTable(o.Table)
	var names []string
	for _, t := range s.Tables {
		if t.DB == db && t.Name == tbl {
			if t.TTLSeconds == nil || *t.TTLSeconds <= 0 {
				return 0, fmt.Errorf("--table %s: its TTL is unknown or off (ttl_seconds not read, or <= 0)", o.Table)
			}
			o.TTL = *t.TTLSeconds
			switch s.TTL().Verdict {
			case "yes":
				v := true
				o.tableEnforced = &v
			case "no":
				v := false
				o.tableEnforced = &v
			}
			return s.Cluster.CurrentTSO, nil
		}
		names = append(names, t.DB+"."+t.Name)
	}
	return 0, cmdutil.NoMatch("--table: no table", o.Table, " with changelog properties in the snapshot", names)
}

// tsoHeadroomRun computes the retention of one offset.
func tsoHeadroomRun(o *TSOHeadroomOptions) error {
	var ref tso.TSO
	var err error
	if o.Table != "" && o.Now == "" && o.NowTime == "" {
		ref, err = o.fromTable()
	} else {
		if o.Table != "" {
			_, err = o.fromTable()
		}
		if err == nil {
			ref, err = headroomNow(o)
		}
	}
	if err != nil {
		return err
	}
	assume := o.Config.AssumeTTLEnforced
	if assume == nil {
		assume = o.tableEnforced // --table: the source's own evidence
	}
	res, err := tsotool.Headroom(tsotool.HeadroomInput{OffsetText: o.cursor.Text, Offset: o.cursor.Offset, Now: ref, TTLSeconds: o.TTL, MinHeadroom: o.MinHeadroom,
		AssumeTTLEnforced: assume})
	var bad *tsotool.HeadroomError
	switch {
	case errors.As(err, &bad) && bad.Input == "ttl":
		return cmdutil.UsageErrorf("--ttl %d with now %s: %v", o.TTL, ref, bad.Err)
	case errors.As(err, &bad):
		return cmdutil.UsageErrorf("--offset %v", bad.Err)
	case err != nil:
		return err
	}
	if err := o.Emit(tsoreport.TSOHeadroomDoc{HeadroomResult: res}); err != nil {
		return err
	}
	return o.Gate(res.Findings, "none")
}

// headroomNow is the reference TSO: --now, or --now-time encoded.
func headroomNow(o *TSOHeadroomOptions) (tso.TSO, error) {
	switch {
	case o.Now != "" && o.NowTime != "":
		return 0, cmdutil.UsageErrorf("give --now or --now-time, not both")
	case o.Now != "":
		p, err := tso.Parse(o.Now)
		if err != nil {
			return 0, cmdutil.UsageErrorf("--now: %v", err)
		}
		if p.Kind != tso.KindTSO || p.TSO <= 0 {
			return 0, cmdutil.UsageErrorf("--now %q is not a real TSO", o.Now)
		}
		return p.TSO, nil
	case o.NowTime != "":
		t, err := cmdutil.ParseTimeFlag("--now-time", o.NowTime, o.TZ, true)
		if err != nil {
			return 0, err
		}
		v, err := tso.FromTime(t, 0)
		if err != nil {
			return 0, cmdutil.UsageErrorf("--now-time: %v", err)
		}
		return v, nil
	}
	return 0, cmdutil.UsageErrorf("give the cluster's current time: --now TSO (tso_status.CURRENT_TSO) or --now-time TIME")
}
