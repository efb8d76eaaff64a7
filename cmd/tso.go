package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/tso"
)

// tsoFormats are the outputs every tso subcommand supports.
var tsoFormats = []report.Format{report.FormatTable, report.FormatJSON, report.FormatMarkdown}

func newTSOCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "tso",
		Short: "Decode, encode and compare TSOs; compute retention headroom (no cluster needed)",
		Long: `TSO tools. A Doris TSO is 64 bits: the high 46 are physical Unix milliseconds,
the low 18 a logical counter (0–262143). None of these commands dials a cluster.`,
	}
	c.AddCommand(newTSODecodeCmd(g), newTSOEncodeCmd(g), newTSODiffCmd(g), newTSOLagCmd(g), newTSOHeadroomCmd(g))
	return c
}

// ---- decode ----

type tsoDecodeOptions struct {
	Local bool
	TZ    string
}

func newTSODecodeCmd(g *globalOptions) *cobra.Command {
	o := &tsoDecodeOptions{}
	c := &cobra.Command{
		Use:   "decode [TSO...]",
		Short: "Decode TSOs (arguments, or one per line on stdin) into time and logical counter",
		Example: `  dorisdiag tso decode 469067681628160003
  dorisdiag tso decode -- -1 N/A   # "--" before negative values
  mysql -N -e 'SELECT CONSUMPTION_STATUS FROM information_schema.table_stream_consumption' | dorisdiag tso decode`,
		RunE: func(_ *cobra.Command, args []string) error { return tsoDecodeRun(g, o, args) },
	}
	c.Flags().BoolVar(&o.Local, "local", false, "also print the time in the local zone (or --tz)")
	c.Flags().StringVar(&o.TZ, "tz", "Local", "zone for --local: Local, UTC or an IANA name")
	return c
}

// tsoDecodeResult is the JSON document of tso decode.
type tsoDecodeResult struct {
	TSOs   []tso.Decoded `json:"tsos"`
	Errors []inputError  `json:"errors"`
}

type inputError struct {
	Input string `json:"input"`
	Error string `json:"error"`
}

func tsoDecodeRun(g *globalOptions, o *tsoDecodeOptions, args []string) error {
	f, err := g.format(tsoFormats...)
	if err != nil {
		return err
	}
	var loc *time.Location
	if o.Local {
		if loc, err = loadZone(o.TZ); err != nil {
			return usageError{err}
		}
	}
	inputs := args
	if len(args) == 0 {
		if inputs, err = readLines(g.ios.In); err != nil {
			return fmt.Errorf("reading TSOs from stdin: %w", err)
		}
	}
	res := tsoDecodeResult{TSOs: []tso.Decoded{}, Errors: []inputError{}}
	for _, in := range inputs {
		p, err := tso.Parse(in)
		if err != nil {
			res.Errors = append(res.Errors, inputError{Input: in, Error: err.Error()})
			continue
		}
		res.TSOs = append(res.TSOs, tso.Decode(p, loc))
	}
	if err := renderTSODecode(g, f, res, o.Local); err != nil {
		return err
	}
	// A bad value is reported on stderr after the good ones are printed, and
	// the run exits 2 (issue: "makes the exit code 2 after the others").
	for _, e := range res.Errors {
		fmt.Fprintf(g.ios.Err, "dorisdiag: %s\n", e.Error)
	}
	if len(res.Errors) > 0 {
		return alreadyReported{fmt.Errorf("%d invalid TSO value(s)", len(res.Errors))}
	}
	return nil
}

func renderTSODecode(g *globalOptions, f report.Format, res tsoDecodeResult, local bool) error {
	if f == report.FormatJSON {
		return report.JSON(g.ios.Out, "tso.decode", res)
	}
	headers := []string{"TSO", "PHYSICAL_MS", "TIME (UTC)", "LOGICAL", "HEX"}
	if local {
		headers = append(headers[:3], append([]string{"LOCAL TIME"}, headers[3:]...)...)
	}
	var rows [][]string
	for _, d := range res.TSOs {
		if d.Kind != "tso" {
			row := []string{d.Input, "-", d.Note, "-", d.Hex}
			if local {
				row = append(row[:3], append([]string{"-"}, row[3:]...)...)
			}
			rows = append(rows, row)
			continue
		}
		row := []string{d.TSO.String(), strconv.FormatInt(*d.PhysicalMs, 10), d.Time, strconv.FormatInt(*d.Logical, 10), d.Hex}
		if local {
			row = append(row[:3], append([]string{d.LocalTime}, row[3:]...)...)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	if f == report.FormatMarkdown {
		return report.Markdown(g.ios.Out, headers, rows)
	}
	return report.Table(g.ios.Out, headers, rows)
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

type tsoEncodeOptions struct {
	Logical int64
	TZ      string
}

type tsoEncodeResult struct {
	Input string `json:"input"`
	tso.Decoded
}

func newTSOEncodeCmd(g *globalOptions) *cobra.Command {
	o := &tsoEncodeOptions{}
	c := &cobra.Command{
		Use:   "encode TIME",
		Short: "Encode a time (RFC 3339 or \"YYYY-MM-DD HH:MM:SS[.mmm]\" in --tz) as a TSO",
		Example: `  dorisdiag tso encode 2026-11-30T10:00:00Z
  dorisdiag tso encode "2026-11-30 18:00:00" --tz Asia/Shanghai --logical 5`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := g.format(tsoFormats...)
			if err != nil {
				return err
			}
			t, err := parseTimeArg(args[0], o.TZ)
			if err != nil {
				return usageError{err}
			}
			v, err := tso.FromTime(t, o.Logical)
			if err != nil {
				return usageErrorf("encoding %q with --logical %d: %v", args[0], o.Logical, err)
			}
			d := tso.Decode(tso.Parsed{Kind: tso.KindTSO, TSO: v, Raw: v.String()}, nil)
			res := tsoEncodeResult{Input: args[0], Decoded: d}
			res.Decoded.Input = ""
			return renderKV(g, f, "tso.encode", res, [][2]string{
				{"tso", v.String()},
				{"hex", d.Hex},
				{"time", d.Time},
				{"physical_ms", strconv.FormatInt(*d.PhysicalMs, 10)},
				{"logical", strconv.FormatInt(*d.Logical, 10)},
			})
		},
	}
	c.Flags().Int64Var(&o.Logical, "logical", 0, "logical counter, 0–262143")
	c.Flags().StringVar(&o.TZ, "tz", "UTC", "zone of a time without an offset: UTC, Local or an IANA name")
	return c
}

// ---- diff ----

type tsoDiffResult struct {
	A          tso.TSO `json:"a"`
	B          tso.TSO `json:"b"`
	PhysicalMs int64   `json:"physical_ms"` // physical(A) - physical(B)
	Logical    int64   `json:"logical"`     // logical(A) - logical(B)
	Duration   string  `json:"duration"`
}

func newTSODiffCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "diff A B",
		Short:   "A − B: the signed difference in physical milliseconds and logical steps",
		Example: "  dorisdiag tso diff 469067681628160003 469067419484160000",
		Args:    cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := g.format(tsoFormats...)
			if err != nil {
				return err
			}
			var ts [2]tso.TSO
			for i, a := range args {
				p, err := tso.Parse(a)
				if err != nil {
					return usageError{err}
				}
				if p.Kind != tso.KindTSO {
					return usageErrorf("%q is %s, not a TSO: nothing to subtract", a, p.Kind)
				}
				ts[i] = p.TSO
			}
			ms, lg := tso.Diff(ts[0], ts[1])
			res := tsoDiffResult{A: ts[0], B: ts[1], PhysicalMs: ms, Logical: lg, Duration: tso.FormatDuration(ms)}
			return renderKV(g, f, "tso.diff", res, [][2]string{
				{"a", ts[0].String() + "  (" + ts[0].Time().Format(tso.TimeLayout) + ")"},
				{"b", ts[1].String() + "  (" + ts[1].Time().Format(tso.TimeLayout) + ")"},
				{"physical_ms", strconv.FormatInt(ms, 10)},
				{"logical", strconv.FormatInt(lg, 10)},
				{"duration", res.Duration},
			})
		},
	}
}

// ---- lag ----

type tsoLagResult struct {
	Lag              string   `json:"lag"`
	HasValue         bool     `json:"has_value"`
	Milliseconds     *float64 `json:"milliseconds,omitempty"`
	Approximate      bool     `json:"approximate"`
	Duration         string   `json:"duration,omitempty"`
	ProbablyVersions bool     `json:"probably_versions"`
	Note             string   `json:"note,omitempty"`
}

type tsoLagOptions struct{ Offset string }

func newTSOLagCmd(g *globalOptions) *cobra.Command {
	o := &tsoLagOptions{}
	c := &cobra.Command{
		Use:   "lag RAW",
		Short: "Turn a raw LAG of table_stream_consumption (a TSO difference) into milliseconds",
		Long: `LAG in information_schema.table_stream_consumption is a raw TSO difference:
divided by 2^18 = 262144 it is milliseconds, approximately (the logical bits
make it inexact by under 1 ms). Older builds counted LAG in partition
versions: with --offset, a LAG under 2^18 next to a real offset is reported as
probably a version count instead of being converted.`,
		Example: "  dorisdiag tso lag 262144000",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := g.format(tsoFormats...)
			if err != nil {
				return err
			}
			lag, ok, err := tso.ParseLag(args[0])
			if err != nil {
				return usageError{err}
			}
			res := tsoLagResult{Lag: args[0], HasValue: ok}
			switch {
			case !ok:
				res.Note = "no LAG: the partition has data and no offset (N/A); see `dorisdiag streams show`"
			default:
				var off tso.TSO = -1
				if o.Offset != "" {
					p, err := tso.ParseOffset(o.Offset)
					if err != nil {
						return usageError{err}
					}
					off = p.TSO
				}
				if tso.LooksLikeVersionCount(lag, off) {
					res.ProbablyVersions = true
					res.Note = "probably a count of partition versions (older builds), not a TSO difference: not converted to time"
					break
				}
				ms := tso.LagMillis(lag)
				res.Milliseconds, res.Approximate = &ms, true
				res.Duration = tso.FormatDuration(int64(ms))
			}
			kv := [][2]string{{"lag", res.Lag}}
			if res.Milliseconds != nil {
				kv = append(kv, [2]string{"milliseconds", strconv.FormatFloat(*res.Milliseconds, 'f', 3, 64) + " (approximate)"}, [2]string{"duration", res.Duration})
			}
			if res.Note != "" {
				kv = append(kv, [2]string{"note", res.Note})
			}
			return renderKV(g, f, "tso.lag", res, kv)
		},
	}
	c.Flags().StringVar(&o.Offset, "offset", "", "the CONSUMPTION_STATUS of the same row, to recognise a LAG counted in versions")
	return c
}

// ---- headroom ----

type tsoHeadroomOptions struct {
	Offset      string
	TTL         int64
	Now         string
	NowTime     string
	TZ          string
	MinHeadroom time.Duration
}

// tsoHeadroomResult is the JSON of tso headroom: the seed's definitions for
// one offset (seed §3 Definitions), plus what each read mode does.
type tsoHeadroomResult struct {
	Offset            string           `json:"offset"`
	HasOffset         bool             `json:"has_offset"`
	TTLSeconds        int64            `json:"ttl_seconds"`
	ReferenceTSO      tso.TSO          `json:"reference_tso"`
	ReferenceTime     string           `json:"reference_time"`
	ConsumedTSO       *tso.TSO         `json:"consumed_tso,omitempty"`
	ConsumedTime      string           `json:"consumed_time,omitempty"`
	CutoffTSO         tso.TSO          `json:"cutoff_tso"`
	RetentionFloorTSO tso.TSO          `json:"retention_floor_tso"`
	RetentionFloor    string           `json:"retention_floor_time"`
	NextRequiredTSO   *tso.TSO         `json:"next_required_tso,omitempty"`
	CanResume         *bool            `json:"can_resume,omitempty"`
	HeadroomSeconds   *float64         `json:"headroom_seconds,omitempty"`
	Headroom          string           `json:"headroom,omitempty"`
	LostSeconds       *float64         `json:"lost_seconds,omitempty"`
	ReadEffects       []tso.ReadEffect `json:"read_effects"`
	Findings          []diag.Finding   `json:"findings"`
}

func newTSOHeadroomCmd(g *globalOptions) *cobra.Command {
	o := &tsoHeadroomOptions{}
	c := &cobra.Command{
		Use:   "headroom --offset C --ttl SECONDS (--now TSO | --now-time TIME)",
		Short: "If a consumer's offset is C, how long until the TTL expires the next change it needs?",
		Long: `The on-call calculator: the whole retention computation for one offset, exactly
as the Doris planner does it (doris.md §2):

  cutoff          = calculateCutoff(now, ttl)     last TSO of millisecond now-ttl
  retention_floor = nextTso(cutoff)
  next_required   = nextTso(C)                    C is the offset, inclusive
  can_resume      = next_required >= retention_floor
  headroom        = physical(next_required) - physical(retention_floor)

--offset takes CONSUMPTION_STATUS text as well (N/A, \N, -1: no offset).
--now-time now uses this machine's clock; prefer the cluster's current TSO
(SELECT CURRENT_TSO FROM information_schema.tso_status).
Exit 1 with --fail-on critical when the offset can no longer resume, and with
--fail-on warning when the headroom is under --min-headroom.`,
		Example: `  dorisdiag tso headroom --offset 469067681628160003 --ttl 86400 --now-time 2026-09-15T12:00:00Z
  dorisdiag tso headroom --offset N/A --ttl 86400 --now 469099767398400000 -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return tsoHeadroomRun(g, o) },
	}
	c.Flags().StringVar(&o.Offset, "offset", "", "consumed offset C (inclusive): a TSO, or CONSUMPTION_STATUS text such as N/A")
	c.Flags().Int64Var(&o.TTL, "ttl", 0, "changelog.ttl_seconds of the base table")
	c.Flags().StringVar(&o.Now, "now", "", "the cluster's current TSO (tso_status.CURRENT_TSO)")
	c.Flags().StringVar(&o.NowTime, "now-time", "", "the current time instead of --now (RFC 3339, \"YYYY-MM-DD HH:MM:SS\" in --tz, or \"now\" for this machine's clock)")
	c.Flags().StringVar(&o.TZ, "tz", "UTC", "zone of --now-time without an offset")
	c.Flags().DurationVar(&o.MinHeadroom, "min-headroom", 30*time.Minute, "warn when the headroom is under this")
	return c
}

func tsoHeadroomRun(g *globalOptions, o *tsoHeadroomOptions) error {
	f, err := g.format(tsoFormats...)
	if err != nil {
		return err
	}
	if o.Offset == "" {
		return usageErrorf("--offset is required (a TSO, or N/A for a partition with no offset)")
	}
	if o.TTL <= 0 {
		return usageErrorf("--ttl must be a positive number of seconds (changelog.ttl_seconds), got %d", o.TTL)
	}
	ref, err := headroomNow(o)
	if err != nil {
		return err
	}
	off, err := tso.ParseOffset(o.Offset)
	if err != nil {
		return usageErrorf("--offset: %v", err)
	}
	if off.Kind == tso.KindUnbounded {
		return usageErrorf("--offset %s is UNBOUNDED_TSO, a sentinel, not an offset", o.Offset)
	}
	cutoff, err := tso.Cutoff(ref, o.TTL)
	if err != nil {
		return usageErrorf("--ttl %d with now %s: %v", o.TTL, ref, err)
	}
	floor, err := tso.Next(cutoff)
	if err != nil {
		return fmt.Errorf("retention floor: %w", err)
	}
	res := tsoHeadroomResult{
		Offset: o.Offset, TTLSeconds: o.TTL,
		ReferenceTSO: ref, ReferenceTime: ref.Time().Format(tso.TimeLayout),
		CutoffTSO: cutoff, RetentionFloorTSO: floor, RetentionFloor: floor.Time().Format(tso.TimeLayout),
		Findings: []diag.Finding{},
	}
	obj := diag.Object{Kind: "offset", Name: o.Offset}
	if off.Kind == tso.KindNoOffset {
		res.ReadEffects = tso.NoOffsetReadEffects()
	} else {
		r, err := tso.ComputeRetention(ref, o.TTL, off.TSO)
		if err != nil {
			return usageErrorf("--offset %s: %v", o.Offset, err)
		}
		c, n := r.ConsumedTSO, r.NextRequiredTSO
		hs := r.HeadroomSeconds()
		res.HasOffset = true
		res.ConsumedTSO, res.ConsumedTime, res.NextRequiredTSO = &c, c.Time().Format(tso.TimeLayout), &n
		res.CanResume, res.HeadroomSeconds, res.Headroom = &r.CanResume, &hs, tso.FormatDuration(r.HeadroomMs)
		res.ReadEffects = r.ReadEffects()
		ev := map[string]string{"headroom_seconds": strconv.FormatFloat(hs, 'f', 3, 64), "ttl_seconds": strconv.FormatInt(o.TTL, 10)}
		switch {
		case !r.CanResume:
			lost := float64(r.ExpiredWindowMs) / 1000
			res.LostSeconds = &lost
			res.Findings = append(res.Findings, diag.Finding{
				Code: diag.CodeTSOOffsetExpired, Severity: diag.SeverityCritical, Object: obj, Evidence: ev,
				Summary: "offset is past the retention: MIN_DELTA reads are rejected, DETAIL/APPEND_ONLY reads skip " + tso.FormatDuration(r.ExpiredWindowMs) + " of changes",
				Next:    "dorisdiag streams show DB.STREAM  # find the consumer; then reset it or rebuild its target",
			})
		case time.Duration(r.HeadroomMs)*time.Millisecond < o.MinHeadroom:
			res.Findings = append(res.Findings, diag.Finding{
				Code: diag.CodeTSOHeadroomLow, Severity: diag.SeverityWarning, Object: obj, Evidence: ev,
				Summary: "only " + res.Headroom + " before the TTL expires the next change this offset needs (under --min-headroom " + o.MinHeadroom.String() + ")",
				Next:    "consume the stream now, or raise changelog.ttl_seconds on the base table",
			})
		}
	}
	if err := renderTSOHeadroom(g, f, res); err != nil {
		return err
	}
	return g.gate(res.Findings, "none")
}

func headroomNow(o *tsoHeadroomOptions) (tso.TSO, error) {
	switch {
	case o.Now != "" && o.NowTime != "":
		return 0, usageErrorf("give --now or --now-time, not both")
	case o.Now != "":
		p, err := tso.Parse(o.Now)
		if err != nil {
			return 0, usageErrorf("--now: %v", err)
		}
		if p.Kind != tso.KindTSO || p.TSO <= 0 {
			return 0, usageErrorf("--now %q is not a real TSO", o.Now)
		}
		return p.TSO, nil
	case o.NowTime != "":
		var t time.Time
		if strings.EqualFold(o.NowTime, "now") {
			t = time.Now()
		} else {
			var err error
			if t, err = parseTimeArg(o.NowTime, o.TZ); err != nil {
				return 0, usageErrorf("--now-time: %v", err)
			}
		}
		v, err := tso.FromTime(t, 0)
		if err != nil {
			return 0, usageErrorf("--now-time: %v", err)
		}
		return v, nil
	}
	return 0, usageErrorf("give the cluster's current time: --now TSO (tso_status.CURRENT_TSO) or --now-time TIME")
}

func renderTSOHeadroom(g *globalOptions, f report.Format, res tsoHeadroomResult) error {
	if f == report.FormatJSON {
		return report.JSON(g.ios.Out, "tso.headroom", res)
	}
	st := g.style()
	kv := [][2]string{
		{"now (reference)", res.ReferenceTSO.String() + "  " + res.ReferenceTime},
		{"ttl_seconds", strconv.FormatInt(res.TTLSeconds, 10) + "  (" + tso.FormatDuration(res.TTLSeconds*1000) + ")"},
		{"cutoff_tso", res.CutoffTSO.String()},
		{"retention_floor_tso", res.RetentionFloorTSO.String() + "  " + res.RetentionFloor},
	}
	if res.HasOffset {
		verdict := st.Severity("ok", "yes")
		if !*res.CanResume {
			verdict = st.Severity("critical", "NO")
		}
		kv = append(kv,
			[2]string{"consumed (offset C)", res.ConsumedTSO.String() + "  " + res.ConsumedTime},
			[2]string{"next_required_tso", res.NextRequiredTSO.String()},
			[2]string{"can_resume", verdict},
			[2]string{"headroom_seconds", strconv.FormatFloat(*res.HeadroomSeconds, 'f', 3, 64) + "  (" + res.Headroom + ")"},
		)
		if res.LostSeconds != nil {
			kv = append(kv, [2]string{"expired window", tso.FormatDuration(int64(*res.LostSeconds*1000)) + " of changes before the floor are gone"})
		}
	} else {
		kv = append(kv, [2]string{"consumed (offset C)", "none (" + res.Offset + "): no committed offset"})
	}
	if f == report.FormatMarkdown {
		rows := make([][]string, 0, len(kv))
		for _, p := range kv {
			rows = append(rows, []string{p[0], p[1]})
		}
		if err := report.Markdown(g.ios.Out, []string{"field", "value"}, rows); err != nil {
			return err
		}
	} else {
		report.KeyValues(g.ios.Out, kv)
	}
	g.printf("\nNext read, by read mode:\n")
	for _, e := range res.ReadEffects {
		g.printf("  %-12s %-20s %s\n", e.Mode, st.Severity(effectSeverity(e.Effect), e.Effect), e.Detail)
	}
	if len(res.Findings) > 0 {
		g.printf("\n")
		return report.Findings(g.ios.Out, st, res.Findings)
	}
	return nil
}

func effectSeverity(effect string) string {
	switch effect {
	case "proceed":
		return "ok"
	case "rejected", "clipped":
		return "critical"
	}
	return "warning"
}

// renderKV prints a small key/value result: a two-column list, a markdown
// table, or the JSON document v.
func renderKV(g *globalOptions, f report.Format, kind string, v any, kv [][2]string) error {
	switch f {
	case report.FormatJSON:
		return report.JSON(g.ios.Out, kind, v)
	case report.FormatMarkdown:
		rows := make([][]string, 0, len(kv))
		for _, p := range kv {
			rows = append(rows, []string{p[0], p[1]})
		}
		return report.Markdown(g.ios.Out, []string{"field", "value"}, rows)
	}
	report.KeyValues(g.ios.Out, kv)
	return nil
}
