package doctor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	diagdoctor "github.com/dorisdiag/dorisdiag/diag/doctor"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	doctorreport "github.com/dorisdiag/dorisdiag/report/doctor"
	scrapedoctor "github.com/dorisdiag/dorisdiag/scrape/doctor"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// `dorisdiag doctor` (issue 22, docs/doctor.md): is this cluster configured
// for its changelog consumers, and can this host reach every node a load or
// a scrape is sent to. `doctor` runs config and net; `doctor labels` looks
// Stream Load labels up. scrapedoctor.Doctor reads, diag/doctor judges, report
// renders, the gate exits 1 on a finding at or above --fail-on (critical).

// FailOn is doctor's default --fail-on, as check's: a hop a load
// hangs on, a feature gate off, a label window shorter than the replay.
const FailOn = "critical"

// doctorInputs are the flags every doctor command shares.
type doctorInputs struct {
	Source         func(cmdutil.SourceOptions) *cmdutil.Source
	RedirectPolicy string
	LoadHost       string
	ReplayWindow   time.Duration
	MaxClockSkew   time.Duration
	Save           string
}

func (in *doctorInputs) addFlags(c *cobra.Command, net, config bool) {
	if net {
		c.Flags().StringVar(&in.RedirectPolicy, "redirect-policy", "", "the redirect-policy header your loaders send with a Stream Load (public-private, public, private, direct, random-be); default: none, the FE's streamload_redirect_policy applies")
		c.Flags().StringVar(&in.LoadHost, "load-host", "", "the FE host your loaders address (their Host header), when it is not --host: the default redirect policy puts it in the 307")
		c.Flags().DurationVar(&in.MaxClockSkew, "max-clock-skew", diagdoctor.DefaultMaxClockSkew, "warn when this host's clock and a node's differ by more")
	}
	if config {
		c.Flags().DurationVar(&in.ReplayWindow, "replay-window", 0, "how old a load your Stream Load sink may replay (e.g. 24h): fail when labels are removed sooner (default: show the label window, do not judge it)")
	}
	c.Flags().StringVar(&in.Save, "save", "", "also write what doctor read into a snapshot file (check --snapshot FILE then runs the config rules too)")
}

func (in *doctorInputs) validate(c cmdutil.Common) error {
	if err := c.CheckFormat("doctor"); err != nil {
		return err
	}
	if _, err := c.FailOn(FailOn); err != nil {
		return err
	}
	switch in.RedirectPolicy {
	case "", doris.PolicyPublicPrivate, doris.PolicyPublic, doris.PolicyPrivate, doris.PolicyDirect, doris.PolicyRandomBE:
	default:
		return cmdutil.UsageErrorf("--redirect-policy %q: want public-private, public, private, direct or random-be", in.RedirectPolicy)
	}
	if in.ReplayWindow < 0 {
		return cmdutil.UsageErrorf("--replay-window must not be negative, got %s", in.ReplayWindow)
	}
	if in.MaxClockSkew < 0 {
		return cmdutil.UsageErrorf("--max-clock-skew must not be negative, got %s", in.MaxClockSkew)
	}
	if in.Save == "-" {
		return cmdutil.UsageErrorf("--save -: the report goes to stdout; give --save FILE")
	}
	if err := cmdutil.CheckOutput(in.Save); err != nil {
		return cmdutil.UsageErrorf("--save: %v", err)
	}
	return nil
}

// DoctorOptions are the inputs of `doctor` (config and net).
type DoctorOptions struct {
	cmdutil.Common
	doctorInputs
}

// NewCmdDoctor builds `doctor` and its commands.
func NewCmdDoctor(f *cmdutil.Factory, runF func(*DoctorOptions) error) *cobra.Command {
	o := &DoctorOptions{doctorInputs: doctorInputs{Source: f.Source}}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the cluster's configuration for changelog consumers and this host's reach to every node",
		Long: `doctor reads the configuration of every FE and BE (SHOW FRONTEND/BACKEND
CONFIG, or their HTTP pages) and judges it against what the cluster's
changelog tables, streams and IVM MVs need (doctor config); and probes, from
this host and all at once, the FE query port, every FE's HTTP port, the
Master's /api/tso and every BE at the address a Stream Load 307 would name
(doctor net): a BE that never answers is the load that hangs after its
redirect. Plain doctor runs both. One line per check, grouped by node, the
worst first, with the next step. Read-only: SELECT, SHOW and HTTP GET only.
Exits 1 on a critical finding unless --fail-on says otherwise. docs/doctor.md.`,
		Example: `  dorisdiag doctor --host fe1
  dorisdiag doctor net --host fe1 --timeout 5s --redirect-policy public
  dorisdiag doctor config --host fe1 --replay-window 24h
  dorisdiag doctor labels --host fe1 --db demo sink-1042-1043-0
  dorisdiag doctor --host fe1 --save doctor.json
  dorisdiag check --snapshot doctor.json     # the config rules run in check too`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(o.Common); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return doctorRun(o)
		},
	}
	o.addFlags(c, true, true)
	c.AddCommand(NewCmdDoctorConfig(f, nil), NewCmdDoctorNet(f, nil), NewCmdDoctorLabels(f, nil))
	return c
}

// DoctorConfigOptions are the inputs of `doctor config`.
type DoctorConfigOptions struct {
	cmdutil.Common
	doctorInputs
}

// NewCmdDoctorConfig builds `doctor config`.
func NewCmdDoctorConfig(f *cmdutil.Factory, runF func(*DoctorConfigOptions) error) *cobra.Command {
	o := &DoctorConfigOptions{doctorInputs: doctorInputs{Source: f.Source}}
	c := &cobra.Command{
		Use:   "config",
		Short: "Judge every FE's and BE's configuration against the changelog consumers it serves",
		Long: `config reads the configuration keys doctor knows (docs/doctor.md) on every FE
and BE and judges them: feature gates off while tables or MVs need them, the
TTL cleanup paused, a keep-alive too slow for the smallest TTL, an IVM MV or
a stream consumer slower than its changelog window, the monitor's quotas, the
MTMV queue and threads, the task history, the Stream Load label window
(--replay-window), a session on a follower, HTTPS-only FEs. A key that
exists only in the design says "not on this build". A missing privilege is
shown, not failed on.`,
		Example: `  dorisdiag doctor config --host fe1 --replay-window 24h
  dorisdiag doctor config --host fe1 --save doctor.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(o.Common); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return doctorConfigRun(o)
		},
	}
	o.addFlags(c, false, true)
	return c
}

// DoctorNetOptions are the inputs of `doctor net`.
type DoctorNetOptions struct {
	cmdutil.Common
	doctorInputs
}

// NewCmdDoctorNet builds `doctor net`.
func NewCmdDoctorNet(f *cmdutil.Factory, runF func(*DoctorNetOptions) error) *cobra.Command {
	o := &DoctorNetOptions{doctorInputs: doctorInputs{Source: f.Source}}
	c := &cobra.Command{
		Use:   "net",
		Short: "Probe every hop from this host: query port, FE HTTP, the Master's TSO, each BE a Stream Load is redirected to",
		Long: `net probes, from this host and all at once, each bounded by --timeout (the
whole within twice that): the FE query port (handshake, SELECT 1), every FE's
/api/health, the Master's /api/tso, and every BE's webserver at the address a
Stream Load 307 would name for this client (SHOW BACKENDS, the redirect
policy, the BEs' public and private endpoints). Each hop is ok, a connect or
read timeout (a Stream Load redirected there hangs until the client's own
timeout), refused, unresolvable, a TLS mismatch, or 401/403. It also reads
the clock skew between this host and the cluster and compares the FE and BE
versions. Never a PUT.`,
		Example: `  dorisdiag doctor net --host fe1 --timeout 3s
  dorisdiag doctor net --host fe1 --redirect-policy public --load-host fe.example.com`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(o.Common); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return doctorNetRun(o)
		},
	}
	o.addFlags(c, true, false)
	return c
}

// DoctorLabelsOptions are the inputs of `doctor labels`.
type DoctorLabelsOptions struct {
	cmdutil.Common
	doctorInputs
	DB    string
	File  string
	Names []string
}

// maxLabels bounds one run's lookups (a file of labels from a sink's log).
const maxLabels = 10000

// NewCmdDoctorLabels builds `doctor labels`.
func NewCmdDoctorLabels(f *cmdutil.Factory, runF func(*DoctorLabelsOptions) error) *cobra.Command {
	o := &DoctorLabelsOptions{doctorInputs: doctorInputs{Source: f.Source}}
	c := &cobra.Command{
		Use:   "labels --db DB LABEL... | --file FILE",
		Short: "Look Stream Load labels up, and explain UNKNOWN: never loaded, or removed after the label window",
		Long: `labels asks the Master for each label's state (GET /api/DB/get_load_state)
and explains it: VISIBLE or COMMITTED is loaded (a replay is refused as a
duplicate while the label is kept); UNKNOWN is never loaded, or loaded and
removed after streaming_label_keep_max_second or beyond label_num_threshold
finished transactions in the database — read from the Master's
configuration and shown. --file reads one label per line (DB/LABEL, or LABEL
with --db; # starts a comment).`,
		Example: `  dorisdiag doctor labels --host fe1 --db demo sink-1042-1043-0 sink-1043-1044-0
  dorisdiag doctor labels --host fe1 --file labels.txt`,
		RunE: func(_ *cobra.Command, args []string) error {
			o.Common = f.Common()
			o.Names = args
			if err := o.validate(o.Common); err != nil {
				return err
			}
			if err := o.validateLabels(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return doctorLabelsRun(o)
		},
	}
	c.Flags().StringVar(&o.DB, "db", "", "the database of the labels given as arguments (or of --file lines without DB/)")
	c.Flags().StringVar(&o.File, "file", "", "read labels from this file, one per line: DB/LABEL, or LABEL with --db")
	o.addFlags(c, false, false)
	return c
}

// validateLabels checks the label arguments and flags, before any work.
func (o *DoctorLabelsOptions) validateLabels() error {
	if len(o.Names) == 0 && o.File == "" {
		return cmdutil.UsageErrorf("give labels: --db DB LABEL..., or --file FILE")
	}
	if len(o.Names) > 0 && o.DB == "" {
		return cmdutil.UsageErrorf("labels given as arguments need --db DB")
	}
	_, err := o.argLabels()
	return err
}

// addLabel appends DB/LABEL to refs, bounded by maxLabels.
func addLabel(refs []scrapedoctor.LabelRef, db, label string) ([]scrapedoctor.LabelRef, error) {
	if db == "" || label == "" {
		return nil, cmdutil.UsageErrorf("label %q: want DB/LABEL, or LABEL with --db", label)
	}
	if len(refs) >= maxLabels {
		return nil, cmdutil.UsageErrorf("more than %d labels", maxLabels)
	}
	return append(refs, scrapedoctor.LabelRef{DB: db, Label: label}), nil
}

// argLabels are the lookups of the arguments.
func (o *DoctorLabelsOptions) argLabels() ([]scrapedoctor.LabelRef, error) {
	var refs []scrapedoctor.LabelRef
	for _, n := range o.Names {
		var err error
		if refs, err = addLabel(refs, o.DB, n); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// readLabels returns the lookups of the arguments and of --file (read
// here, in the run: RunE opens no file).
func (o *DoctorLabelsOptions) readLabels() ([]scrapedoctor.LabelRef, error) {
	refs, err := o.argLabels()
	if err != nil || o.File == "" {
		return refs, err
	}
	fh, _, err := fileio.OpenInput(o.File)
	if err != nil {
		return nil, cmdutil.UsageErrorf("--file: %v", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(io.LimitReader(fh, 64<<20))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		db, label := o.DB, t
		if o.DB == "" {
			var ok bool
			if db, label, ok = strings.Cut(t, "/"); !ok {
				return nil, cmdutil.UsageErrorf("--file %s:%d: %q: want DB/LABEL (or give --db)", o.File, line, t)
			}
		}
		if refs, err = addLabel(refs, db, label); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--file %s: %w", o.File, err)
	}
	return refs, nil
}

// doctorRun runs `doctor`: the config and net parts.
func doctorRun(o *DoctorOptions) error {
	return run(o.Common, o.doctorInputs, scrapedoctor.DoctorConfig|scrapedoctor.DoctorNet, nil)
}

// doctorConfigRun runs `doctor config`.
func doctorConfigRun(o *DoctorConfigOptions) error {
	return run(o.Common, o.doctorInputs, scrapedoctor.DoctorConfig, nil)
}

// doctorNetRun runs `doctor net`.
func doctorNetRun(o *DoctorNetOptions) error {
	return run(o.Common, o.doctorInputs, scrapedoctor.DoctorNet, nil)
}

// doctorLabelsRun runs `doctor labels`: the labels of the arguments and
// --file looked up, and the configuration read for the label window.
func doctorLabelsRun(o *DoctorLabelsOptions) error {
	labels, err := o.readLabels()
	if err != nil {
		return err
	}
	return run(o.Common, o.doctorInputs, scrapedoctor.DoctorLabels|scrapedoctor.DoctorConfig, labels)
}

// run is every doctor command's run, over its explicit inputs: it reads (a
// live cluster) or loads (--snapshot, --demo) the doctor's section of parts,
// judges it, renders it to the command's one output stream and gates on
// it.
func run(c cmdutil.Common, in doctorInputs, parts scrapedoctor.DoctorParts, labels []scrapedoctor.LabelRef) error {
	src := in.Source(cmdutil.SourceOptions{})
	kind, err := src.Kind()
	if err != nil {
		return err
	}
	var snap *snapshot.Snapshot
	if kind == "live" {
		if snap, err = doctorLive(c, src, in, parts, labels); err != nil {
			return err
		}
	} else {
		snaps, err := src.Load()
		if err != nil {
			return err
		}
		snap = snaps[len(snaps)-1]
		if snap.Doctor == nil {
			return fmt.Errorf("the %s snapshot holds no doctor section: run dorisdiag doctor --host FE --save FILE", kind)
		}
	}
	res := diagdoctor.Analyze(snap, diagdoctor.Options{ReplayWindow: in.ReplayWindow, MaxClockSkew: in.MaxClockSkew})
	if in.Save != "" {
		if err := fileio.WriteAtomic(in.Save, func(w io.Writer) error { return snapshot.Write(w, snap) }); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	if err := c.Emit(doctorreport.DoctorDoc{Result: res}); err != nil {
		return err
	}
	return c.Gate(res.Findings, FailOn)
}

// doctorLive runs scrapedoctor.Doctor; with the config part it also takes the
// cluster's snapshot (the tables, streams and MVs the rules judge the
// configuration against). The doctor section is the live reading even
// when that snapshot cannot be taken (a gap says so).
func doctorLive(c cmdutil.Common, src *cmdutil.Source, in doctorInputs, parts scrapedoctor.DoctorParts, labels []scrapedoctor.LabelRef) (*snapshot.Snapshot, error) {
	cfg := src.LiveConfig()
	d, err := scrapedoctor.Doctor(context.Background(), scrapedoctor.DoctorOptions{Config: cfg, Parts: parts,
		RedirectPolicy: in.RedirectPolicy, LoadHost: in.LoadHost, Labels: labels, HTTPDialContext: c.IO.DialContext})
	if err != nil {
		return nil, err
	}
	snap := &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion, Capabilities: snapshot.Capabilities{Sources: map[string]snapshot.SourceCapability{}},
		Source: snapshot.Source{Kind: "live", Host: cfg.Host, Port: cfg.Port, User: cfg.User}, CouldNotRead: []snapshot.ReadGap{}}
	if parts&scrapedoctor.DoctorConfig != 0 && parts&scrapedoctor.DoctorLabels == 0 && queryPortOK(d) {
		snaps, err := src.Load()
		if err != nil {
			d.Gaps = append(d.Gaps, snapshot.DoctorGap{Source: "snapshot", Kind: snapshot.GapError, Error: "the cluster's objects could not be read, so the rules judge the configuration alone: " + err.Error()})
		} else {
			snap = snaps[len(snaps)-1]
		}
	}
	if parts&scrapedoctor.DoctorLabels != 0 {
		// The configuration is read for the label window only.
		d.Parts = []string{"labels"}
	}
	snap.Doctor = d
	if snap.Cluster.CurrentTSO == 0 {
		// No snapshot of the cluster was taken (net, labels): its clock is
		// the Master's TSO as doctor read it, else this host's, named so.
		snap.Cluster.CurrentTSO, snap.Cluster.ClockSource = tso.TSO(d.TakenAtMs<<18), "this host's clock (doctor read no TSO)"
		for _, ck := range d.Clocks {
			if ck.Source == doris.SourceHTTPTSO {
				snap.Cluster.CurrentTSO, snap.Cluster.ClockSource = tso.TSO(ck.ServerMs<<18), ck.Source
			}
		}
	}
	if err := snap.Validate(); err != nil {
		return nil, errors.Join(errors.New("doctor: the reading does not validate"), err)
	}
	return snap, nil
}

func queryPortOK(d *snapshot.Doctor) bool {
	for _, h := range d.Hops {
		if h.Kind == snapshot.HopFEQuery {
			return h.Outcome == snapshot.OutcomeOK
		}
	}
	// The config part alone records no hop: the session answered when
	// the configuration was read over SQL.
	for _, c := range d.Config {
		if strings.HasPrefix(c.Source, "SHOW") {
			return true
		}
	}
	return false
}

// ReadLive runs doctor's config and net parts on the live cluster of src,
// the configuration judged against base (the snapshot the caller already
// took: no second one is read); base itself is not changed. `dorisdiag
// bundle` puts the result in its archive.
func ReadLive(c cmdutil.Common, src *cmdutil.Source, base *snapshot.Snapshot) (*snapshot.Snapshot, error) {
	cfg := src.LiveConfig()
	d, err := scrapedoctor.Doctor(context.Background(), scrapedoctor.DoctorOptions{Config: cfg,
		Parts: scrapedoctor.DoctorConfig | scrapedoctor.DoctorNet, HTTPDialContext: c.IO.DialContext})
	if err != nil {
		return nil, err
	}
	snap := *base
	snap.Doctor = d
	if err := snap.Validate(); err != nil {
		return nil, errors.Join(errors.New("doctor: the reading does not validate"), err)
	}
	return &snap, nil
}

// Document is doctor's document of a snapshot with a doctor section, with
// the default options (--replay-window unset, the default --max-clock-skew).
func Document(snap *snapshot.Snapshot) report.Doc {
	res := diagdoctor.Analyze(snap, diagdoctor.Options{MaxClockSkew: diagdoctor.DefaultMaxClockSkew})
	return doctorreport.DoctorDoc{Result: res}
}
