package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// sourceOptions select where snapshots come from: --snapshot files, a
// --demo scenario, or the live cluster of the connection flags. Nothing
// dials until a command asks for snapshots (style.md: lazy Factory).
type sourceOptions struct {
	Snapshots []string
	Demo      string
	// Live-collection knobs a command may set before loadSnapshots
	// (dorisdiag snapshot --tasks-per-mv, --with-metrics).
	TasksPerMV  int
	WithMetrics bool
}

func scenarioNames() []string { return scenario.Names() }

// password reads the secret from the environment only (design.md "Secrets").
func (g *globalOptions) password() string {
	if g.ios.Getenv == nil {
		return ""
	}
	if p := g.ios.Getenv("DORISDIAG_PASSWORD"); p != "" {
		return p
	}
	return g.ios.Getenv("MYSQL_PWD")
}

// httpCredentials are the user's, for a node that answers /metrics with a
// 401 Basic challenge (a BE with enable_all_http_auth=true); scrape sends
// them only then, and only to the host:port that asked (docs/snapshot.md
// "Credentials over HTTP").
func (g *globalOptions) httpCredentials() *scrape.Credentials {
	user := g.Conn.User
	if user == "" {
		user = "root"
	}
	return &scrape.Credentials{User: user, Password: g.password()}
}

// liveConfig is the collector configuration of the connection flags.
func (g *globalOptions) liveConfig() scrape.Config {
	return scrape.Config{
		Host:     g.Conn.Host,
		Port:     g.Conn.Port,
		HTTPPort: g.Conn.HTTPPort,
		User:     g.Conn.User,
		Password: g.password(),
		TLS:      g.Conn.TLS || g.Conn.TLSCA != "",
		TLSCA:    g.Conn.TLSCA,
		Timeout:  g.Timeout,

		HTTPScheme:           g.Conn.HTTPScheme,
		AllowHTTPCredentials: g.Conn.AllowHTTPCredentials,
		FEHTTPSPort:          g.Conn.FEHTTPSPort,

		TasksPerMV:  g.Source.TasksPerMV,
		WithMetrics: g.Source.WithMetrics,
	}
}

// sourceKind names the selected source, or an error when the flags conflict
// or select none.
func (g *globalOptions) sourceKind() (string, error) {
	n := 0
	kind := ""
	if len(g.Source.Snapshots) > 0 {
		n++
		kind = "file"
	}
	if g.Source.Demo != "" {
		n++
		kind = "demo"
	}
	if g.Conn.Host != "" {
		n++
		kind = "live"
	}
	switch {
	case n > 1:
		return "", usageErrorf("choose one source: --snapshot FILE, --demo [SCENARIO] or --host HOST")
	case n == 0:
		return "", usageErrorf("no source: give --host HOST (live cluster), --snapshot FILE, or --demo [SCENARIO]")
	}
	return kind, nil
}

// loadSnapshots returns the selected snapshots, oldest first (one for a demo
// or a live cluster; one per --snapshot file).
func (g *globalOptions) loadSnapshots() ([]*snapshot.Snapshot, error) {
	kind, err := g.sourceKind()
	if err != nil {
		return nil, err
	}
	switch kind {
	case "file":
		var out []*snapshot.Snapshot
		stdin := false
		for _, p := range g.Source.Snapshots {
			var s *snapshot.Snapshot
			var err error
			if p == "-" {
				// Standard input can be read once; whatever it is (a pipe,
				// a terminal, /dev/zero), Load refuses a stream that is not
				// JSON after its first bytes.
				if stdin {
					return nil, usageErrorf("--snapshot - (standard input) can be given once")
				}
				stdin = true
				if s, err = snapshot.Load(g.ios.In, 0); err != nil {
					return nil, fmt.Errorf("standard input: %w", err)
				}
				s.Source.File = "-"
			} else if s, err = snapshot.LoadFile(p, 0); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		// A series is analysed oldest first (the last is "now"): order the
		// files by cluster time, whatever order they were given in.
		sort.SliceStable(out, func(i, j int) bool { return out[i].Cluster.CurrentTSO < out[j].Cluster.CurrentTSO })
		return out, nil
	case "demo":
		s, err := scenario.Load(g.Source.Demo)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		return []*snapshot.Snapshot{s}, nil
	default:
		s, err := g.collectLive()
		if err != nil {
			return nil, err
		}
		return []*snapshot.Snapshot{s}, nil
	}
}

// collectLive takes one snapshot of the live cluster within --timeout per hop.
func (g *globalOptions) collectLive() (*snapshot.Snapshot, error) {
	cfg := g.liveConfig()
	ctx, cancel := g.contextFor(cfg)
	defer cancel()
	s, err := scrape.Collect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New("collector returned no snapshot")
	}
	if g.withMetrics {
		if err := g.attachMetrics(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// attachMetrics fetches /metrics of every FE and BE (scrape.AttachMetrics):
// check lints them all (S5, T8).
func (g *globalOptions) attachMetrics(s *snapshot.Snapshot) error {
	fallback := scrape.Target{Kind: "fe", Host: net.JoinHostPort(g.Conn.Host, strconv.Itoa(g.Conn.HTTPPort))}
	fo, err := g.httpFetch(scrape.FetchOptions{RequestTimeout: g.Timeout})
	if err != nil {
		return err
	}
	res := scrape.AttachMetrics(context.Background(), s, g.metricsTargets, fallback, fo)
	in := make([]diag.MetricsInput, len(res))
	for i, r := range res {
		in[i] = diag.MetricsInput{Kind: r.Target.Kind, Source: r.Target.Host, URL: r.URL, Lint: r.Lint, Err: r.Err}
	}
	g.linted = map[*snapshot.Snapshot][]diag.MetricsInput{s: in}
	return nil
}

// lintedFor is the /metrics analysis input of a live snapshot whose bodies
// were linted as they streamed in (attachMetrics), nil otherwise.
func (g *globalOptions) lintedFor(s *snapshot.Snapshot) []diag.MetricsInput {
	return g.linted[s]
}

// httpFetch completes the options of an HTTP fetch with what every fetch
// shares (docs/security.md "Credentials", "Network"): the credentials for a
// Basic challenge, the scheme and CA of --tls/--tls-ca/--http-scheme, the
// refusal of a cleartext challenge under --tls unless
// --allow-http-credentials, the test dialer, and the Doris lint profile
// (diag/metrics) for the /metrics bodies it lints.
func (g *globalOptions) httpFetch(fo scrape.FetchOptions) (scrape.FetchOptions, error) {
	// Every /metrics body is a Doris payload: linted with the Doris
	// profile as it streams in, its Master marker read from that lint.
	fo.Lint = metrics.LintOptions(fo.Lint)
	fo.Master = metrics.IsMaster
	tlsOn := g.Conn.TLS || g.Conn.TLSCA != ""
	fo.Credentials = g.httpCredentials()
	fo.DialContext = g.dialContext()
	fo.Scheme = g.Conn.HTTPScheme
	if fo.Scheme == "" {
		fo.Scheme = "http"
		if tlsOn {
			fo.Scheme = "https"
		}
	}
	fo.NoCleartextCredentials = tlsOn && !g.Conn.AllowHTTPCredentials
	fo.FEHTTPSPort = g.Conn.FEHTTPSPort
	if tlsOn || fo.Scheme == "https" {
		c, err := scrape.HTTPSConfig(g.Conn.TLSCA)
		if err != nil {
			return fo, err
		}
		fo.TLS = c
	}
	return fo, nil
}

// contextFor bounds a whole live collection: each hop has its own --timeout
// inside the collector; the whole run gets room for its fixed number of
// queries plus one per database, and never more than ten minutes.
func (g *globalOptions) contextFor(cfg scrape.Config) (context.Context, context.CancelFunc) {
	total := cfg.Timeout * 30
	if total > 10*time.Minute {
		total = 10 * time.Minute
	}
	return context.WithTimeout(context.Background(), total)
}
