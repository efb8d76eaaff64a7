package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dorisdiag/dorisdiag/bundle"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	doctorcmd "github.com/dorisdiag/dorisdiag/cmd/doctor"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// `dorisdiag bundle` (issue 23, docs/bundle.md): one redacted support
// archive. The parts are the other commands' own results — the snapshot,
// check over it, doctor — plus what only a support case needs (the
// configuration and topology as the server printed them, the raw /metrics);
// package bundle redacts every member at one chokepoint and writes the
// manifest.

// bundleParts are the parts --include chooses from, in archive order.
var bundleParts = []string{"snapshot", "check", "doctor", "config", "topology", "variables", "metrics"}

// BundleOptions are the inputs of `dorisdiag bundle`.
type BundleOptions struct {
	cmdutil.Common
	Source    func(cmdutil.SourceOptions) *cmdutil.Source
	HTTPFetch func(scrape.FetchOptions) (scrape.FetchOptions, error)

	File        string
	Force       bool
	RedactNames bool
	Include     []string
	Metrics     []string
	SQLLength   int
	MaxMember   int64
	// ConfigFile is check's --config: its thresholds, policy, TTL
	// enforcement and external consumers make the bundle's check the one
	// `check --config FILE` gives, and a live bundle reads the consumers'
	// offset tables into its snapshot.
	ConfigFile string
	// CommandLine is the command as given (flags only: the password is
	// never a flag); it passes the redactor into the manifest.
	CommandLine []string
}

// NewCmdBundle builds `dorisdiag bundle`.
func NewCmdBundle(f *cmdutil.Factory, runF func(*BundleOptions) error) *cobra.Command {
	o := &BundleOptions{Source: f.Source, HTTPFetch: f.HTTPFetch}
	c := &cobra.Command{
		Use:   "bundle -f FILE.tar.gz [--redact-names] [--include PARTS]",
		Short: "Write one redacted support archive: snapshot, check, doctor, configuration, topology, /metrics and a manifest",
		Long: `bundle writes one gzip-compressed tar for a colleague or a vendor: the
snapshot (re-readable: check --snapshot FILE.tar.gz), check's verdicts in
JSON and markdown, doctor's results, the FE and BE configuration and the
topology as the server printed them, the raw /metrics of every node, and
manifest.json (each file's bytes, sha256, source and timing, what was
skipped and why, the redaction rules applied and their counts).

Every file passes one redaction: never the password, an Authorization value
or the user info of a URL; configuration keys naming a password, secret,
token or access key masked; SQL text cut to --sql-length. --redact-names
replaces database, table, stream, MV and host names with pseudonyms in every
file, and writes the mapping next to the archive (FILE.names.json, mode
0600), never inside it.

From --snapshot or --demo the live-only parts are listed as skipped, with
why. The archive is written to a temporary file and renamed (mode 0600); an
existing FILE is replaced only with --force. docs/bundle.md.`,
		Example: `  DORISDIAG_PASSWORD=... dorisdiag bundle --host fe1 -f case-1234.tar.gz
  dorisdiag bundle --host fe1 -f case.tar.gz --redact-names
  dorisdiag check --snapshot case.tar.gz
  dorisdiag bundle --demo incident -f demo.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.Common = f.Common()
			o.CommandLine = commandLine(c)
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return bundleRun(o)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&o.File, "file", "f", "", "the archive to write (FILE.tar.gz); required")
	fl.BoolVar(&o.Force, "force", false, "replace FILE (and its names file) when it exists")
	fl.BoolVar(&o.RedactNames, "redact-names", false, "replace database, table, stream, MV and host names with pseudonyms; the mapping goes to FILE.names.json beside the archive")
	fl.StringSliceVar(&o.Include, "include", nil, "only these parts: "+strings.Join(bundleParts, ", ")+" (default: all)")
	fl.StringArrayVar(&o.Metrics, "metrics", nil, "live: also fetch this /metrics URL into the archive (repeatable; user info in a URL is refused, never sent)")
	fl.IntVar(&o.SQLLength, "sql-length", bundle.DefaultSQLLength, "cut SQL and error text to this many characters")
	fl.StringVar(&o.ConfigFile, "config", "", "check's config file (docs/check.md): its thresholds, policy and external consumers (read live) apply to the bundle's check")
	fl.Int64Var(&o.MaxMember, "max-file-bytes", 64<<20, "cut a text file (raw /metrics) at this size, the cut recorded in the manifest")
	return c
}

// commandLine is the command as given: its path and every flag set, each
// as --name=value (the password is refused as a flag, so none is here).
func commandLine(c *cobra.Command) []string {
	out := strings.Fields(c.CommandPath())
	seen := map[string]bool{}
	visit := func(fl *pflag.Flag) {
		if seen[fl.Name] {
			return
		}
		seen[fl.Name] = true
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+fl.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	}
	c.Flags().Visit(visit)
	c.InheritedFlags().Visit(visit)
	return out
}

// mappingPath is where --redact-names writes the mapping: beside the
// archive, never in it.
func (o *BundleOptions) mappingPath() string {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(o.File, ".gz"), ".tgz"), ".tar")
	return base + ".names.json"
}

func (o *BundleOptions) validate() error {
	// -o table: a summary; -o json: the manifest.
	if _, err := o.OutputFormat(report.FormatTable, report.FormatJSON); err != nil {
		return err
	}
	if o.File == "" {
		return cmdutil.UsageErrorf("give -f FILE.tar.gz: the archive to write")
	}
	if o.File == "-" {
		return cmdutil.UsageErrorf("-f -: the archive is binary; give -f FILE.tar.gz")
	}
	if o.SQLLength < 1 {
		return cmdutil.UsageErrorf("--sql-length must be at least 1, got %d", o.SQLLength)
	}
	if o.MaxMember < 1024 {
		return cmdutil.UsageErrorf("--max-file-bytes must be at least 1024, got %d", o.MaxMember)
	}
	known := map[string]bool{}
	for _, p := range bundleParts {
		known[p] = true
	}
	for _, p := range o.Include {
		if !known[p] {
			return cmdutil.UsageErrorf("--include %q: want %s", p, strings.Join(bundleParts, ", "))
		}
	}
	paths := []string{o.File}
	if o.RedactNames {
		paths = append(paths, o.mappingPath())
	}
	for _, p := range paths {
		if _, err := fileio.CheckOutput(p); err != nil {
			return cmdutil.UsageErrorf("-f: %v", err)
		}
		if _, err := os.Lstat(p); err == nil && !o.Force {
			return cmdutil.UsageErrorf("%s exists: give --force to replace it", p)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return cmdutil.UsageErrorf("-f: %v", err)
		}
	}
	return nil
}

func (o *BundleOptions) included(part string) bool {
	if len(o.Include) == 0 {
		return true
	}
	for _, p := range o.Include {
		if p == part {
			return true
		}
	}
	return false
}

// bundleMember is one file to write, gathered before any is written (the
// names are learnt from all of them first).
type bundleMember struct {
	path   string
	json   any    // a JSON member
	text   []byte // a text member
	origin bundle.Origin
	skip   string // why the member is not in the archive
}

func bundleRun(o *BundleOptions) error {
	started := time.Now()
	co := &CheckOptions{ConfigFile: o.ConfigFile, MaxDelay: mv.DefaultMaxDelay, MinHeadroom: streams.DefaultMinHeadroom, MaxPending: streams.DefaultMaxPending,
		MaxFailures: mv.DefaultMaxFailures, MaxRunning: mv.DefaultMaxRunning, MaxQueued: mv.DefaultMaxQueued,
		FallbackWindow: mv.DefaultFallbackWindow, MinFallbacks: mv.DefaultMinFallbacks}
	copt, _, assumeTTL, decls, err := co.resolve()
	if err != nil {
		return err
	}
	src := o.Source(cmdutil.SourceOptions{AttachMetrics: o.included("metrics") || o.included("check"), KeepMetricsBodies: true,
		AssumeTTLEnforced: assumeTTL, Consumers: decls})
	kind, err := src.Kind()
	if err != nil {
		return err
	}
	live := kind == "live"
	t0 := time.Now()
	snaps, err := src.Load()
	if err != nil {
		return err
	}
	snap := snaps[len(snaps)-1]
	snapOrigin := bundle.Origin{Source: snapshotSource(kind, src, o.Config), StartedAt: t0.UTC(), ElapsedMs: time.Since(t0).Milliseconds()}

	red := bundle.NewRedactor(bundle.Options{Password: src.LiveConfig().Password, SQLLength: o.SQLLength, RedactNames: o.RedactNames})
	red.LearnSnapshot(snap)
	red.LearnHostPort(o.Config.Conn.Host)

	var members []bundleMember
	add := func(m bundleMember) { members = append(members, m) }
	liveOnly := func(path, part, source string) {
		add(bundleMember{path: path, origin: bundle.Origin{Source: source},
			skip: fmt.Sprintf("the %s part is read from a live cluster only (this bundle was made from --%s)", part, map[string]string{"file": "snapshot", "demo": "demo"}[kind])})
	}
	notIncluded := func(path, part string) {
		add(bundleMember{path: path, skip: fmt.Sprintf("not included (--include without %s)", part)})
	}

	if o.included("snapshot") {
		add(bundleMember{path: bundle.SnapshotName, json: snapshotJSON{snap}, origin: snapOrigin})
	} else {
		notIncluded(bundle.SnapshotName, "snapshot")
	}

	if o.included("check") {
		t := time.Now()
		jsonDoc, mdDoc, err := bundleCheck(snap, copt, src.Linted(snap))
		org := bundle.Origin{Source: "dorisdiag check over snapshot.json (default thresholds, or --config's)", StartedAt: t.UTC(), ElapsedMs: time.Since(t).Milliseconds()}
		if err != nil {
			add(bundleMember{path: "verdicts/check.json", origin: org, skip: err.Error()})
		} else {
			add(bundleMember{path: "verdicts/check.json", json: json.RawMessage(jsonDoc), origin: org})
			add(bundleMember{path: "verdicts/check.md", text: mdDoc, origin: org})
		}
	} else {
		notIncluded("verdicts/check.json", "check")
	}

	if o.included("doctor") {
		members = append(members, bundleDoctor(o, src, live, snap, red)...)
	} else {
		notIncluded("doctor/doctor.json", "doctor")
	}

	type stmt struct{ part, path, q string }
	var stmts []stmt
	if o.included("topology") {
		stmts = append(stmts, stmt{"topology", "topology/frontends.json", doris.Frontends.Statements[0].Build()},
			stmt{"topology", "topology/backends.json", doris.Backends.Statements[0].Build()})
	}
	if o.included("config") {
		stmts = append(stmts, stmt{"config", "config/fe.json", doris.ShowFrontendConfig.Statements[0].Build()},
			stmt{"config", "config/be.json", doris.ShowBackendConfig.Statements[0].Build(doris.QuoteLiteral("%"))})
	}
	if o.included("variables") {
		stmts = append(stmts, stmt{"variables", "variables/session.json", doris.SessionVars.Statements[0].Build()})
	}
	if live && len(stmts) > 0 {
		qs := make([]string, len(stmts))
		for i, s := range stmts {
			qs[i] = s.q
		}
		reads := scrape.ReadTables(context.Background(), src.LiveConfig(), qs)
		for i, r := range reads {
			org := bundle.Origin{Source: r.Statement, StartedAt: r.StartedAt.UTC(), ElapsedMs: r.Elapsed.Milliseconds()}
			if r.Err != nil {
				add(bundleMember{path: stmts[i].path, origin: org, skip: r.Err.Error()})
				continue
			}
			red.LearnTableHosts(r.Table.Cols, r.Table.Rows)
			add(bundleMember{path: stmts[i].path, json: tableJSON(r), origin: org})
		}
	} else {
		for _, s := range stmts {
			liveOnly(s.path, s.part, s.q)
		}
	}
	for _, p := range []string{"topology", "config", "variables"} {
		if !o.included(p) {
			notIncluded(p+"/", p)
		}
	}

	if o.included("metrics") {
		members = append(members, bundleMetrics(o, live, snap, red)...)
	} else {
		notIncluded("metrics/", "metrics")
	}

	return o.writeBundle(kind, started, red, members)
}

// snapshotJSON writes a snapshot as `dorisdiag snapshot` does.
type snapshotJSON struct{ s *snapshot.Snapshot }

func (s snapshotJSON) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s.s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func snapshotSource(kind string, src *cmdutil.Source, cfg cmdutil.Config) string {
	switch kind {
	case "demo":
		return "--demo " + src.Demo()
	case "file":
		return "--snapshot " + strings.Join(cfg.Snapshots, " ")
	}
	return "dorisdiag snapshot of the live cluster (SQL reads of the system tables, /metrics of every node)"
}

// bundleCheck renders check over the bundle's snapshot, JSON and markdown,
// with check's thresholds (the defaults, or --config's) and the critical
// gate.
func bundleCheck(snap *snapshot.Snapshot, opt check.Options, linted []metrics.Input) ([]byte, []byte, error) {
	opt.Metrics.Linted = linted
	res := check.Run([]*snapshot.Snapshot{snap}, opt)
	doc := report.CheckDoc{Result: res, FailOn: diag.SeverityCritical.String(), Passed: !diag.AtOrAbove(res.Findings, diag.SeverityCritical)}
	var j, m bytes.Buffer
	if err := report.Emit(&j, report.NewStyle(&j, false), report.FormatJSON, doc); err != nil {
		return nil, nil, err
	}
	if err := report.Emit(&m, report.NewStyle(&m, false), report.FormatMarkdown, doc); err != nil {
		return nil, nil, err
	}
	return j.Bytes(), m.Bytes(), nil
}

// bundleDoctor: doctor's reading (live) or the snapshot's doctor section.
func bundleDoctor(o *BundleOptions, src *cmdutil.Source, live bool, snap *snapshot.Snapshot, red *bundle.Redactor) []bundleMember {
	t := time.Now()
	dsnap := snap
	source := "the snapshot's doctor section"
	if live {
		source = "dorisdiag doctor (config and net) of the live cluster"
		var err error
		if dsnap, err = doctorcmd.ReadLive(o.Common, src, snap); err != nil {
			return []bundleMember{{path: "doctor/doctor.json", origin: bundle.Origin{Source: source}, skip: err.Error()}}
		}
	} else if snap.Doctor == nil {
		return []bundleMember{{path: "doctor/doctor.json", origin: bundle.Origin{Source: source},
			skip: "the snapshot holds no doctor section (doctor runs live; dorisdiag doctor --save FILE keeps one)"}}
	}
	red.LearnSnapshot(dsnap)
	doc := doctorcmd.Document(dsnap)
	org := bundle.Origin{Source: source, StartedAt: t.UTC(), ElapsedMs: time.Since(t).Milliseconds()}
	var j, m bytes.Buffer
	if err := report.Emit(&j, report.NewStyle(&j, false), report.FormatJSON, doc); err != nil {
		return []bundleMember{{path: "doctor/doctor.json", origin: org, skip: err.Error()}}
	}
	if err := report.Emit(&m, report.NewStyle(&m, false), report.FormatMarkdown, doc); err != nil {
		return []bundleMember{{path: "doctor/doctor.md", origin: org, skip: err.Error()}}
	}
	d := dsnap.Doctor
	return []bundleMember{
		{path: "doctor/doctor.json", json: json.RawMessage(j.Bytes()), origin: org},
		{path: "doctor/doctor.md", text: m.Bytes(), origin: org},
		{path: "config/doctor.json", json: map[string]any{"session": d.Session, "config": d.Config, "gaps": d.Gaps}, origin: org},
		{path: "net/doctor.json", json: map[string]any{"frontends": d.Frontends, "backends": d.Backends, "hops": d.Hops, "clocks": d.Clocks,
			"net_elapsed_ms": d.NetElapsedMs, "timeout_ms": d.TimeoutMs, "effective_policy": d.EffectivePolicy, "policy_source": d.PolicySource}, origin: org},
	}
}

// tableJSON is a statement's result as rows of column → cell text (NULL
// as null), so a configuration row's Key and Value stand together.
func tableJSON(r scrape.TableRead) any {
	rows := make([]map[string]*string, 0, len(r.Table.Rows))
	for _, row := range r.Table.Rows {
		m := make(map[string]*string, len(r.Table.Cols))
		for i, c := range r.Table.Cols {
			if i < len(row) {
				m[c] = row[i]
			}
		}
		rows = append(rows, m)
	}
	return map[string]any{"statement": r.Statement, "columns": r.Table.Cols, "rows": rows}
}

// bundleMetrics: the raw /metrics of every node (the bodies the snapshot
// keeps) and of each --metrics URL.
func bundleMetrics(o *BundleOptions, live bool, snap *snapshot.Snapshot, red *bundle.Redactor) []bundleMember {
	var out []bundleMember
	used := map[string]int{}
	name := func(kind, target string) string {
		base := "metrics/" + kind + "-" + safeName(target)
		used[base]++
		if used[base] > 1 {
			base += "-" + strconv.Itoa(used[base])
		}
		return base + ".prom"
	}
	for _, p := range snap.Metrics {
		org := bundle.Origin{Source: "GET " + p.URL, StartedAt: p.FetchedAt}
		if p.URL == "" {
			org.Source = "the snapshot's /metrics of " + p.Target
		}
		path := name(p.Kind, p.Target)
		switch {
		case p.Error != "":
			out = append(out, bundleMember{path: path, origin: org, skip: p.Error})
		case p.Body == "":
			out = append(out, bundleMember{path: path, origin: org, skip: "no body kept in the snapshot"})
		default:
			out = append(out, bundleMember{path: path, text: []byte(p.Body), origin: org})
		}
	}
	if len(snap.Metrics) == 0 {
		out = append(out, bundleMember{path: "metrics/", skip: "the snapshot holds no /metrics payload"})
	}
	for i, u := range o.Metrics {
		path := "metrics/extra-" + strconv.Itoa(i+1) + ".prom"
		red.LearnURL(u)
		if !live {
			out = append(out, bundleMember{path: path, origin: bundle.Origin{Source: "GET " + u}, skip: "--metrics is fetched in live mode only"})
			continue
		}
		out = append(out, fetchExtraMetrics(o, path, u, red))
	}
	return out
}

func fetchExtraMetrics(o *BundleOptions, path, u string, red *bundle.Redactor) bundleMember {
	t := time.Now()
	org := bundle.Origin{Source: "GET " + u, StartedAt: t.UTC()}
	fo, err := o.HTTPFetch(scrape.FetchOptions{RequestTimeout: o.Config.Timeout})
	if err != nil {
		return bundleMember{path: path, origin: org, skip: err.Error()}
	}
	var body []byte
	_, err = scrape.FetchMetricsTo(context.Background(), scrape.NewClient(fo), u, fo, func(r io.Reader) error {
		b, err := io.ReadAll(r)
		body = b
		return err
	})
	org.ElapsedMs = time.Since(t).Milliseconds()
	if err != nil {
		return bundleMember{path: path, origin: org, skip: err.Error()}
	}
	red.LearnProm(string(body))
	return bundleMember{path: path, text: body, origin: org}
}

// safeName keeps a target's host:port readable in a file name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-') // never '_': a name stays whole for the redactor
		}
	}
	if b.Len() == 0 || b.Len() > 100 {
		return "node"
	}
	return b.String()
}

// writeBundle streams the members into the archive (temporary file,
// rename, mode 0600), then the names file beside it.
func (o *BundleOptions) writeBundle(kind string, started time.Time, red *bundle.Redactor, members []bundleMember) error {
	v := readVersion()
	dir := "dorisdiag-bundle-" + started.UTC().Format("20060102T150405Z")
	m := bundle.Manifest{Tool: bundle.Tool{Name: "dorisdiag", Version: v.Version, Revision: v.Revision, VCSTime: v.Time, Modified: v.Modified, GoVersion: v.GoVersion},
		CommandLine: o.CommandLine, Source: kind, StartedAt: started.UTC()}
	mapping := ""
	if o.RedactNames {
		mapping = filepath.Base(o.mappingPath())
	}
	var final bundle.Manifest
	err := fileio.WriteAtomic(o.File, func(w io.Writer) error {
		bw := bundle.NewWriter(w, dir, red, m, o.MaxMember)
		for _, mb := range members {
			var err error
			switch {
			case mb.skip != "":
				bw.Skip(mb.path, mb.origin.Source, mb.skip)
			case mb.json != nil:
				err = bw.AddJSON(mb.path, mb.json, mb.origin)
			default:
				err = bw.AddText(mb.path, mb.text, mb.origin)
			}
			if err != nil {
				return err
			}
		}
		if err := bw.Close(time.Now(), mapping); err != nil {
			return err
		}
		final = bw.Manifest()
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.File, err)
	}
	if o.RedactNames {
		data, err := json.MarshalIndent(map[string]any{"kind": "bundle_names", "archive": filepath.Base(o.File), "names": red.Mapping()}, "", "  ")
		if err != nil {
			return err
		}
		if err := fileio.WriteFileAtomic(o.mappingPath(), append(data, '\n')); err != nil {
			return fmt.Errorf("writing %s: %w", o.mappingPath(), err)
		}
	}
	if o.Config.Output == string(report.FormatJSON) {
		enc := json.NewEncoder(o.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(final)
	}
	var skipped []string
	for _, s := range final.Skipped {
		skipped = append(skipped, s.Path)
	}
	sort.Strings(skipped)
	fmt.Fprintf(o.IO.Out, "wrote %s: %d files, %d skipped (manifest.json says why)\n", o.File, len(final.Files), len(final.Skipped))
	if o.RedactNames {
		fmt.Fprintf(o.IO.Out, "names: %d pseudonyms, the mapping in %s (keep it: it is not in the archive)\n", len(red.Mapping()), o.mappingPath())
	}
	return nil
}
