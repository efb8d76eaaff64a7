package tso

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/tsotool"
	tsoreport "github.com/dorisdiag/dorisdiag/report/tso"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The tso commands: flags → options → diag's tso functions → one emit.
// headroom is in tso_headroom.go; the documents and their renderers are in
// report/tso.go.

// NewCmdTSO builds the `tso` group.
func NewCmdTSO(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "tso",
		Short: "Decode, encode and compare TSOs; compute retention headroom (no cluster needed)",
		Long: `TSO tools. A Doris TSO is 64 bits: the high 46 are physical Unix milliseconds,
the low 18 a logical counter (0–262143). None of these commands dials a cluster.`,
	}
	c.AddCommand(NewCmdTSODecode(f, nil), NewCmdTSOEncode(f, nil), NewCmdTSODiff(f, nil), NewCmdTSOLag(f, nil), NewCmdTSOHeadroom(f, nil))
	return c
}

// ---- decode ----

// TSODecodeOptions are the inputs of `tso decode`.
type TSODecodeOptions struct {
	cmdutil.Common

	Values []string // the arguments; none: one per line on stdin
	Local  bool
	TZ     string
}

// NewCmdTSODecode builds `tso decode`.
func NewCmdTSODecode(f *cmdutil.Factory, runF func(*TSODecodeOptions) error) *cobra.Command {
	o := &TSODecodeOptions{}
	c := &cobra.Command{
		Use:   "decode [TSO...]",
		Short: "Decode TSOs (arguments, or one per line on stdin) into time and logical counter",
		Example: `  dorisdiag tso decode 469067681628160003
  dorisdiag tso decode -- -1 N/A   # "--" before negative values
  mysql -N -e 'SELECT CONSUMPTION_STATUS FROM information_schema.table_stream_consumption' | dorisdiag tso decode`,
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common, o.Values = f.Common(), args
			if err := o.CheckFormat(tsoreport.TSODecodeDoc{}.Kind()); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return tsoDecodeRun(o)
		},
	}
	c.Flags().BoolVar(&o.Local, "local", false, "also print the time in the local zone (or --tz)")
	c.Flags().StringVar(&o.TZ, "tz", "Local", "zone for --local: Local, UTC or an IANA name")
	return c
}

// tsoDecodeRun decodes each value; a bad one is reported after the others.
func tsoDecodeRun(o *TSODecodeOptions) error {
	var loc *time.Location
	if o.Local {
		var err error
		if loc, err = cmdutil.LoadZone(o.TZ); err != nil {
			return cmdutil.UsageError{Err: err}
		}
	}
	inputs := o.Values
	if len(inputs) == 0 {
		var err error
		if inputs, err = readLines(o.IO.In); err != nil {
			return fmt.Errorf("reading TSOs from stdin: %w", err)
		}
	}
	res := tsotool.Decode(inputs, loc)
	if err := o.Emit(tsoreport.TSODecodeDoc{DecodeResult: res, Local: o.Local}); err != nil {
		return err
	}
	// A bad value is reported on stderr after the good ones are printed, and
	// the run exits 2 (issue: "makes the exit code 2 after the others").
	for _, e := range res.Errors {
		fmt.Fprintf(o.IO.Err, "dorisdiag: %s\n", e.Error)
	}
	if len(res.Errors) > 0 {
		return cmdutil.AlreadyReported{Err: fmt.Errorf("%d invalid TSO value(s)", len(res.Errors))}
	}
	return nil
}

// readLines reads one value per line, skipping blank lines (pipelines).
func readLines(r io.Reader) ([]string, error) {
	if r == nil {
		return nil, errors.New("no stdin")
	}
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// ---- encode ----

// TSOEncodeOptions are the inputs of `tso encode`.
type TSOEncodeOptions struct {
	cmdutil.Common

	Time    string // the argument
	Logical int64
	TZ      string
}

// NewCmdTSOEncode builds `tso encode`.
func NewCmdTSOEncode(f *cmdutil.Factory, runF func(*TSOEncodeOptions) error) *cobra.Command {
	o := &TSOEncodeOptions{}
	c := &cobra.Command{
		Use:   "encode TIME",
		Short: "Encode a time (RFC 3339 or \"YYYY-MM-DD HH:MM:SS[.mmm]\" in --tz) as a TSO",
		Example: `  dorisdiag tso encode 2026-11-30T10:00:00Z
  dorisdiag tso encode "2026-11-30 18:00:00" --tz Asia/Shanghai --logical 5`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common, o.Time = f.Common(), args[0]
			if err := o.CheckFormat(tsoreport.TSOEncodeDoc{}.Kind()); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return tsoEncodeRun(o)
		},
	}
	c.Flags().Int64Var(&o.Logical, "logical", 0, "logical counter, 0–262143")
	c.Flags().StringVar(&o.TZ, "tz", "UTC", "zone of a time without an offset: UTC, Local or an IANA name")
	return c
}

// tsoEncodeRun encodes the time as a TSO.
func tsoEncodeRun(o *TSOEncodeOptions) error {
	arg := o.Time
	t, err := cmdutil.ParseTimeArg(arg, o.TZ)
	if err != nil {
		return cmdutil.UsageError{Err: err}
	}
	v, err := tso.FromTime(t, o.Logical)
	if err != nil {
		return cmdutil.UsageErrorf("encoding %q with --logical %d: %v", arg, o.Logical, err)
	}
	return o.Emit(tsoreport.NewTSOEncodeDoc(arg, v))
}

// ---- diff ----

// TSODiffOptions are the inputs of `tso diff`.
type TSODiffOptions struct {
	cmdutil.Common

	A, B string // the arguments
}

// NewCmdTSODiff builds `tso diff`.
func NewCmdTSODiff(f *cmdutil.Factory, runF func(*TSODiffOptions) error) *cobra.Command {
	o := &TSODiffOptions{}
	return &cobra.Command{
		Use:     "diff A B",
		Short:   "A − B: the signed difference in physical milliseconds and logical steps",
		Example: "  dorisdiag tso diff 469067681628160003 469067419484160000\n  dorisdiag tso diff 469067681628160003 469067419484160000 -o json",
		Args:    cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common, o.A, o.B = f.Common(), args[0], args[1]
			if err := o.CheckFormat(tsoreport.TSODiffDoc{}.Kind()); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return tsoDiffRun(o)
		},
	}
}

// tsoDiffRun subtracts B from A.
func tsoDiffRun(o *TSODiffOptions) error {
	var ts [2]tso.TSO
	for i, s := range []string{o.A, o.B} {
		p, err := tso.Parse(s)
		if err != nil {
			return cmdutil.UsageError{Err: err}
		}
		if p.Kind != tso.KindTSO {
			return cmdutil.UsageErrorf("%q is %s, not a TSO: nothing to subtract", s, p.Kind)
		}
		ts[i] = p.TSO
	}
	return o.Emit(tsoreport.TSODiffDoc{DiffResult: tsotool.Diff(ts[0], ts[1])})
}

// ---- lag ----

// TSOLagOptions are the inputs of `tso lag`.
type TSOLagOptions struct {
	cmdutil.Common

	Raw    string // the argument
	Offset string
}

// NewCmdTSOLag builds `tso lag`.
func NewCmdTSOLag(f *cmdutil.Factory, runF func(*TSOLagOptions) error) *cobra.Command {
	o := &TSOLagOptions{}
	c := &cobra.Command{
		Use:   "lag RAW",
		Short: "Turn a raw LAG of table_stream_consumption (a TSO difference) into milliseconds",
		Long: `LAG in information_schema.table_stream_consumption is a raw TSO difference:
divided by 2^18 = 262144 it is milliseconds, approximately (the logical bits
make it inexact by under 1 ms). Older builds counted LAG in partition
versions: with --offset, a LAG under 2^18 next to a real offset is reported as
probably a version count instead of being converted.`,
		Example: "  dorisdiag tso lag 262144000\n  dorisdiag tso lag 3 --offset 469067681628160003   # a LAG counted in versions",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common, o.Raw = f.Common(), args[0]
			if err := o.CheckFormat(tsoreport.TSOLagDoc{}.Kind()); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return tsoLagRun(o)
		},
	}
	c.Flags().StringVar(&o.Offset, "offset", "", "the CONSUMPTION_STATUS of the same row, to recognise a LAG counted in versions")
	return c
}

// tsoLagRun converts the raw LAG.
func tsoLagRun(o *TSOLagOptions) error {
	res, err := tsotool.Lag(o.Raw, o.Offset)
	if err != nil {
		return cmdutil.UsageError{Err: err}
	}
	return o.Emit(tsoreport.TSOLagDoc{LagResult: res})
}
