package cmdutil

import (
	"io"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// One command shape (style.md: cli/cli's pkg/cmd/pr/list): every command
// has an options struct, a constructor NewCmdX(f, runF) whose RunE only
// validates flags and then calls runF (tests: to check flag parsing apart
// from behaviour) or the command's run function xRun(opts). A run reads its
// options and writes one stream; nothing writes into what commands share.
// --watch is package cmd/watch, one wrapper around any run function.

// Factory holds what commands share, each expensive dependency as a
// function (style.md: cli/cli pkg/cmdutil/factory.go): nothing is read or
// dialled until a command's run calls it, so --help, a flag error, tso (but
// tso headroom --table, which reads its source) and explain never open a file
// or a socket.
type Factory struct {
	IOStreams *IOStreams
	// Config is the root's flags as parsed; a command copies it into its
	// options when it runs.
	Config func() Config
	// Source selects the source of snapshots the flags name (--snapshot,
	// --demo, --host). Selecting reads nothing; Source.Load does.
	Source func(SourceOptions) *Source
	// HTTPFetch completes the options of an HTTP fetch from the connection
	// flags (credentials, scheme, TLS, the test dialer); it dials nothing.
	HTTPFetch func(scrape.FetchOptions) (scrape.FetchOptions, error)
	// LoadConfig reads a --config FILE (docs/check.md "Config file") for
	// the commands outside package cmd; the root sets it (nil: no config
	// file support, an error).
	LoadConfig func(path string) (FileConfig, error)
}

// FileConfig is what a command outside package cmd takes from --config
// FILE: the external consumers, their thresholds, the TTL assumption, the
// gate and the policy.
type FileConfig struct {
	Consumers         []snapshot.ExternalConsumer
	AssumeTTLEnforced *bool
	MinHeadroom       *time.Duration
	MaxPublishAge     *time.Duration
	FailOn            string
	Policy            diag.Policy
}

// Config is the root's persistent flags (docs/cli.md), bound once and read
// by every command. No run writes it: a command's own choices (check's
// --fail-on from --config, snapshot's collection knobs) stay in its options.
type Config struct {
	Output  string
	NoColor bool
	NoPager bool
	FailOn  string
	Timeout time.Duration
	Conn    ConnOptions
	// Snapshots and Demo select the source with Conn.Host (one of the three).
	Snapshots []string
	Demo      string
	// AssumeTTLEnforced is --assume-ttl-enforced (ttl_enforcement.go); nil
	// when not given.
	AssumeTTLEnforced *bool
	// Cluster is --cluster: the cluster label of every -o prom series and
	// of the exporter's (ClusterName gives the default).
	Cluster string
}

// ClusterName is the cluster label: --cluster, else the FE host given,
// else "demo-SCENARIO" for --demo; "" for --snapshot files without
// --cluster (no label: a saved file names no cluster of its own).
func (cfg Config) ClusterName() string {
	switch {
	case cfg.Cluster != "":
		return cfg.Cluster
	case cfg.Conn.Host != "":
		return cfg.Conn.Host
	case cfg.Demo != "":
		return "demo-" + cfg.Demo
	}
	return ""
}

// connOptions are the live-cluster flags. The password is never a flag
// (visible in /proc and shell history): DORISDIAG_PASSWORD, then MYSQL_PWD.
type ConnOptions struct {
	Host     string
	Port     int
	HTTPPort int
	User     string
	TLS      bool
	TLSCA    string
	// HTTPScheme and AllowHTTPCredentials: docs/security.md "Network".
	HTTPScheme           string
	AllowHTTPCredentials bool
	FEHTTPSPort          int
}

// newFactory wires the Factory over the streams and the root's flags (cfg is
// read when a command runs, after the flags are parsed).
func NewFactory(ios *IOStreams, cfg *Config) *Factory {
	f := &Factory{IOStreams: ios, Config: func() Config { return *cfg }}
	f.HTTPFetch = func(fo scrape.FetchOptions) (scrape.FetchOptions, error) { return httpFetch(ios, *cfg, fo) }
	f.Source = func(opt SourceOptions) *Source {
		return &Source{cfg: *cfg, in: ios.In, password: ios.password(), fetch: f.HTTPFetch, opt: opt, setMemoryLimit: ios.SetMemoryLimit, goMemLimit: ios.getenv("GOMEMLIMIT")}
	}
	return f
}

// Common is what every run reads besides its own flags: the streams and the
// root's flags. NewCmdX fills it when the command runs.
type Common struct {
	IO     *IOStreams
	Config Config
}

func (f *Factory) Common() Common {
	c := Common{IO: f.IOStreams}
	if f.Config != nil {
		c.Config = f.Config()
	}
	return c
}

func (c Common) Color() bool { return c.IO.colorEnabled(c.Config.NoColor) }

// style is the rendering style of output written to w.
func (c Common) style(w io.Writer) report.Style {
	return report.NewStyle(w, c.Color()).WithWidth(c.IO.width()).WithCluster(c.Config.ClusterName())
}

// OutputFormat validates -o against what a command supports.
func (c Common) OutputFormat(supported ...report.Format) (report.Format, error) {
	f, err := report.ParseFormat(c.Config.Output, supported...)
	if err != nil {
		return "", UsageError{err}
	}
	return f, nil
}

// CheckFormat validates -o against the formats report registers for kind,
// before any work is done (a bad -o is exit 2, not a failed collection).
func (c Common) CheckFormat(kind string) error {
	_, err := c.OutputFormat(report.Formats(kind)...)
	return err
}

// FailOn resolves --fail-on; def is the command's default ("none" for most,
// "critical" for check).
func (c Common) FailOn(def string) (diag.Severity, error) { return c.Config.CheckFailOn(def) }

func (cfg Config) CheckFailOn(def string) (diag.Severity, error) {
	v := cfg.FailOn
	if v == "" {
		v = def
	}
	s, err := diag.ParseSeverity(v)
	if err != nil || s == diag.SeverityInfo {
		return 0, UsageErrorf("--fail-on %q: want none, warning or critical", v)
	}
	return s, nil
}

// Gate turns findings into the exit code contract: errFindings when any
// reaches --fail-on (def when the flag is not given).
func (c Common) Gate(fs []diag.Finding, def string) error {
	th, err := c.FailOn(def)
	if err != nil {
		return err
	}
	if diag.AtOrAbove(fs, th) {
		return ErrFindings
	}
	return nil
}

// Emit writes a command's one document to stdout in the -o format
// (docs/cli.md).
func (c Common) Emit(d report.Doc) error { return c.emitTo(c.IO.Out, nil, d) }

// EmitRound writes a round's document to the round's stream, with its
// "watch" field under --watch.
func (c Common) EmitRound(r watch.Round, d report.Doc) error { return c.emitTo(r.Out, r.Watch, d) }

// ShowOne is a round of a command that shows one named object (`streams
// show`, `mv explain`): the object arg names among refs — or the usage error
// u words, listing them — then show's document of it, emitted and gated on
// its findings (--fail-on defaults to none: a view, not a check).
func (c Common) ShowOne(r watch.Round, u NameUsage, arg *string, refs []ObjectRef, show func(ObjectRef) (report.Doc, []diag.Finding)) error {
	ref, err := u.Resolve(arg, refs)
	if err != nil {
		return err
	}
	d, fs := show(ref)
	if err := c.EmitRound(r, d); err != nil {
		return err
	}
	return c.Gate(fs, "none")
}

func (c Common) emitTo(w io.Writer, wr *report.WatchRound, d report.Doc) error {
	f, err := c.OutputFormat(report.Formats(d.Kind())...)
	if err != nil {
		return err
	}
	if wd, ok := d.(report.Watched); ok && wr != nil {
		d = wd.WithWatch(wr)
	}
	if c.pagerWanted(w, wr, f) {
		return c.emitPaged(f, d)
	}
	return report.Emit(w, c.style(w), f, d)
}

// watchAfterRound, when set (tests only), is called after each --watch
// round has been written (watch.Env.AfterRound).
var WatchAfterRound func(round int)

// Watched runs run once, or every --watch interval (package cmd/watch),
// over the snapshots of src.
func (c Common) Watched(src *Source, o watch.Options, run watch.Func) error {
	return watch.Run(o, watch.Env{
		Out: c.IO.Out, Err: c.IO.Err, IsTTY: c.IO.IsTTY,
		Format:     report.Format(c.Config.Output),
		Cluster:    c.Config.ClusterName(),
		Source:     src,
		EmitError:  func(w io.Writer, d report.Doc) error { return c.emitTo(w, nil, d) },
		Verdict:    func(err error) bool { return err == ErrFindings },
		AfterRound: WatchAfterRound,
	}, run)
}

// httpFetch completes the options of an HTTP fetch with what every fetch
// shares (docs/security.md "Credentials", "Network"): the credentials for a
// Basic challenge, the scheme and CA of --tls/--tls-ca/--http-scheme, the
// refusal of a cleartext challenge under --tls unless
// --allow-http-credentials, the test dialer, and the Doris lint profile
// (diag/metrics) for the /metrics bodies it lints.
func httpFetch(ios *IOStreams, cfg Config, fo scrape.FetchOptions) (scrape.FetchOptions, error) {
	// Every /metrics body is a Doris payload: linted with the Doris
	// profile as it streams in, its Master marker read from that lint.
	fo.Lint = metrics.LintOptions(fo.Lint)
	fo.Master = metrics.IsMaster
	conn := cfg.Conn
	tlsOn := conn.TLS || conn.TLSCA != ""
	fo.Credentials = httpCredentials(conn, ios.password())
	fo.DialContext = ios.DialContext
	fo.Scheme = conn.HTTPScheme
	if fo.Scheme == "" {
		fo.Scheme = "http"
		if tlsOn {
			fo.Scheme = "https"
		}
	}
	fo.NoCleartextCredentials = tlsOn && !conn.AllowHTTPCredentials
	if !conn.AllowHTTPCredentials {
		// Over plain HTTP, only the nodes the cluster lists (added by the
		// caller that knows them) get the password.
		fo.PlainHTTPCredentialsTo = map[string]bool{}
	}
	fo.FEHTTPSPort = conn.FEHTTPSPort
	if tlsOn || fo.Scheme == "https" {
		c, err := scrape.HTTPSConfig(conn.TLSCA)
		if err != nil {
			return fo, err
		}
		fo.TLS = c
	}
	return fo, nil
}

// httpCredentials are the user's, for a node that answers /metrics with a
// 401 Basic challenge (a BE with enable_all_http_auth=true); scrape sends
// them only then, and only to the host:port that asked (docs/snapshot.md
// "Credentials over HTTP").
func httpCredentials(conn ConnOptions, password string) *scrape.Credentials {
	user := conn.User
	if user == "" {
		user = "root"
	}
	return &scrape.Credentials{User: user, Password: password}
}
