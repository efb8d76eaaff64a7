package tso

import (
	"errors"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/tsotool"
	tsoreport "github.com/dorisdiag/dorisdiag/report/tso"
	"github.com/dorisdiag/dorisdiag/tso"
)

// TSOHeadroomOptions are the inputs of `tso headroom`, the on-call
// calculator for one offset.
type TSOHeadroomOptions struct {
	cmdutil.Common

	Offset      string
	TTL         int64
	Now         string
	NowTime     string
	TZ          string
	MinHeadroom time.Duration
}

// NewCmdTSOHeadroom builds `tso headroom`.
func NewCmdTSOHeadroom(f *cmdutil.Factory, runF func(*TSOHeadroomOptions) error) *cobra.Command {
	o := &TSOHeadroomOptions{}
	c := &cobra.Command{
		Use:   "headroom --offset C --ttl SECONDS (--now TSO | --now-time TIME)",
		Short: "If a consumer's offset is C, how long until the TTL expires the next change it needs?",
		Long: `The on-call calculator: the whole retention computation for one offset, exactly
as the Doris planner does it (docs/tso.md):

  cutoff          = calculateCutoff(now, ttl)     last TSO of millisecond now-ttl
  retention_floor = nextTso(cutoff)
  next_required   = nextTso(C)                    C is the offset, inclusive
  can_resume      = next_required >= retention_floor
  headroom        = physical(next_required) - physical(retention_floor)

--offset takes CONSUMPTION_STATUS text as well (N/A, \N, -1: no offset).
--now-time now uses this machine's clock; prefer the cluster's current TSO
(SELECT CURRENT_TSO FROM information_schema.tso_status).
Exit 1 with --fail-on critical when the offset can no longer resume, and with
--fail-on warning when the headroom is under --min-headroom.

Builds differ: earlier ROW binlog builds never expire changes whatever
binlog.ttl_seconds says (apache/doris#65897). The calculator reads no cluster,
so an expired offset is a warning worded "if this build enforces
binlog.ttl_seconds (apache/doris#68226)" unless --assume-ttl-enforced says the
build does (critical), or =false says it does not (no finding; the numbers
are still shown).`,
		Example: `  dorisdiag tso headroom --offset 469067681628160003 --ttl 86400 --now-time 2026-09-15T12:00:00Z
  dorisdiag tso headroom --offset N/A --ttl 86400 --now 469099767398400000 -o json`,
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
	c.Flags().StringVar(&o.Offset, "offset", "", "consumed offset C (inclusive): a TSO, or CONSUMPTION_STATUS text such as N/A")
	c.Flags().Int64Var(&o.TTL, "ttl", 0, "changelog.ttl_seconds of the base table")
	c.Flags().StringVar(&o.Now, "now", "", "the cluster's current TSO (tso_status.CURRENT_TSO)")
	c.Flags().StringVar(&o.NowTime, "now-time", "", "the current time instead of --now (RFC 3339, \"YYYY-MM-DD HH:MM:SS\" in --tz, or \"now\" for this machine's clock)")
	c.Flags().StringVar(&o.TZ, "tz", "UTC", "zone of --now-time without an offset")
	c.Flags().DurationVar(&o.MinHeadroom, "min-headroom", 30*time.Minute, "warn when the headroom is under this")
	return c
}

// validate checks -o, --offset and --ttl.
func (o *TSOHeadroomOptions) validate() error {
	if err := o.CheckFormat(tsoreport.TSOHeadroomDoc{}.Kind()); err != nil {
		return err
	}
	if o.Offset == "" {
		return cmdutil.UsageErrorf("--offset is required (a TSO, or N/A for a partition with no offset)")
	}
	if o.TTL <= 0 {
		return cmdutil.UsageErrorf("--ttl must be a positive number of seconds (changelog.ttl_seconds), got %d", o.TTL)
	}
	return nil
}

// tsoHeadroomRun computes the retention of one offset.
func tsoHeadroomRun(o *TSOHeadroomOptions) error {
	ref, err := headroomNow(o)
	if err != nil {
		return err
	}
	off, err := tso.ParseOffset(o.Offset)
	if err != nil {
		return cmdutil.UsageErrorf("--offset: %v", err)
	}
	res, err := tsotool.Headroom(tsotool.HeadroomInput{OffsetText: o.Offset, Offset: off, Now: ref, TTLSeconds: o.TTL, MinHeadroom: o.MinHeadroom,
		AssumeTTLEnforced: o.Config.AssumeTTLEnforced})
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
		var t time.Time
		if strings.EqualFold(o.NowTime, "now") {
			t = time.Now()
		} else {
			var err error
			if t, err = cmdutil.ParseTimeArg(o.NowTime, o.TZ); err != nil {
				return 0, cmdutil.UsageErrorf("--now-time: %v", err)
			}
		}
		v, err := tso.FromTime(t, 0)
		if err != nil {
			return 0, cmdutil.UsageErrorf("--now-time: %v", err)
		}
		return v, nil
	}
	return 0, cmdutil.UsageErrorf("give the cluster's current time: --now TSO (tso_status.CURRENT_TSO) or --now-time TIME")
}
