package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/scrape/collect"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

func ScenarioNames() []string { return scenario.Names() }

// SourceOptions are a command's own knobs of a live collection.
type SourceOptions struct {
	// TasksPerMV and WithMetrics: dorisdiag snapshot --tasks-per-mv,
	// --with-metrics.
	TasksPerMV  int
	WithMetrics bool
	// AttachMetrics: a live collection also fetches /metrics of every FE and
	// BE, linted as each body streams in (check, unless --no-metrics).
	AttachMetrics bool
	// KeepMetricsBodies: with AttachMetrics, each body is kept in the
	// snapshot too (bundle: the snapshot re-lints them offline).
	KeepMetricsBodies bool
	// MetricsTargets, when set, replace the FEs and BEs discovered from
	// SHOW FRONTENDS/BACKENDS (nodes whose advertised address is not the
	// one this machine reaches).
	MetricsTargets []scrape.Target
	// AssumeTTLEnforced is the config file's assume_ttl_enforced (check
	// --config); the --assume-ttl-enforced flag wins over it.
	AssumeTTLEnforced *bool
	// Consumers are the config file's external consumers: a live
	// collection reads their offset tables (docs/consumers.md).
	Consumers []snapshot.ExternalConsumer
	// Tables are more tables ("db.tbl") whose TTL a live collection reads
	// (tso headroom --table).
	Tables []string
	// LimitMemory: --snapshot files set a soft memory limit from their size
	// (check, whose lean run fits in it: memlimit.go).
	LimitMemory bool
}

// Source is where a command's snapshots come from: --snapshot files, a
// --demo scenario, or the live cluster of the connection flags. Building
// one reads nothing; Load reads the files, the scenario or the cluster
// (style.md: lazy Factory). One Source serves one command run.
type Source struct {
	cfg      Config
	in       io.Reader // standard input, for --snapshot -
	password string
	fetch    func(scrape.FetchOptions) (scrape.FetchOptions, error)
	opt      SourceOptions
	// linted: the /metrics of each live snapshot this source took with
	// AttachMetrics, linted as each body streamed in (no body is kept:
	// check's memory does not grow with the number of nodes).
	linted map[*snapshot.Snapshot][]metrics.Input
	// setMemoryLimit is IOStreams.SetMemoryLimit (memlimit.go).
	setMemoryLimit func(int64) int64
	// goMemLimit is the GOMEMLIMIT environment variable: any value, "off"
	// included, leaves the runtime's limit as the user set it.
	goMemLimit string
}

// Files reports a --snapshot series (watch.Source).
func (s *Source) Files() bool { return len(s.cfg.Snapshots) > 0 }

// Check validates the source flags (watch.Source).
func (s *Source) Check() error {
	_, err := s.Kind()
	return err
}

// Kind names the selected source ("file", "demo", "live"), or an error
// when the flags conflict or select none.
func (s *Source) Kind() (string, error) {
	n := 0
	kind := ""
	if len(s.cfg.Snapshots) > 0 {
		n++
		kind = "file"
	}
	if s.cfg.Demo != "" {
		n++
		kind = "demo"
	}
	if s.cfg.Conn.Host != "" {
		n++
		kind = "live"
	}
	switch {
	case n > 1:
		return "", UsageErrorf("choose one source: --snapshot FILE, --demo [SCENARIO] or --host HOST")
	case n == 0:
		return "", UsageErrorf("no source: give --host HOST (live cluster), --snapshot FILE, or --demo [SCENARIO]")
	}
	return kind, nil
}

// Demo is the --demo scenario's name.
func (s *Source) Demo() string { return s.cfg.Demo }

// LiveConfig is the collector configuration of the connection flags.
func (s *Source) LiveConfig() scrape.Config {
	c := s.cfg.Conn
	return scrape.Config{
		Host:     c.Host,
		Port:     c.Port,
		HTTPPort: c.HTTPPort,
		User:     c.User,
		Password: s.password,
		TLS:      c.TLS || c.TLSCA != "",
		TLSCA:    c.TLSCA,
		Timeout:  s.cfg.Timeout,

		HTTPScheme:           c.HTTPScheme,
		AllowHTTPCredentials: c.AllowHTTPCredentials,
		FEHTTPSPort:          c.FEHTTPSPort,

		TasksPerMV:  s.opt.TasksPerMV,
		WithMetrics: s.opt.WithMetrics,
		Consumers:   s.opt.Consumers,
		Tables:      s.opt.Tables,
	}
}

// Load returns the selected snapshots, oldest first (one for a demo or a
// live cluster; one per --snapshot file).
func (s *Source) Load() ([]*snapshot.Snapshot, error) {
	snaps, err := s.load()
	if err == nil {
		ApplyTTLAssumption(snaps, s.cfg.AssumeTTLEnforced, s.opt.AssumeTTLEnforced)
	}
	return snaps, err
}

func (s *Source) load() ([]*snapshot.Snapshot, error) {
	kind, err := s.Kind()
	if err != nil {
		return nil, err
	}
	switch kind {
	case "file":
		return s.loadFiles()
	case "demo":
		snap, err := scenario.Load(s.cfg.Demo)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		return []*snapshot.Snapshot{snap}, nil
	default:
		snap, err := s.collectLive()
		if err != nil {
			return nil, err
		}
		return []*snapshot.Snapshot{snap}, nil
	}
}

func (s *Source) loadFiles() ([]*snapshot.Snapshot, error) {
	s.limitMemory()
	var out []*snapshot.Snapshot
	stdin := false
	for _, p := range s.cfg.Snapshots {
		var snap *snapshot.Snapshot
		var err error
		if p == "-" {
			// Standard input can be read once; whatever it is (a pipe, a
			// terminal, /dev/zero), Load refuses a stream that is not JSON
			// after its first bytes.
			if stdin {
				return nil, UsageErrorf("--snapshot - (standard input) can be given once")
			}
			stdin = true
			if snap, err = snapshot.Load(s.in, 0); err != nil {
				return nil, fmt.Errorf("standard input: %w", err)
			}
			snap.Source.File = "-"
		} else if snap, err = snapshot.LoadFile(p, 0); err != nil {
			return nil, err
		}
		out = append(out, snap)
	}
	// A series is analysed oldest first (the last is "now"): order the files
	// by cluster time, whatever order they were given in.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Cluster.CurrentTSO < out[j].Cluster.CurrentTSO })
	return out, nil
}

// collectLive takes one snapshot of the live cluster within --timeout per hop.
func (s *Source) collectLive() (*snapshot.Snapshot, error) {
	cfg := s.LiveConfig()
	ctx, cancel := collectContext(cfg)
	defer cancel()
	snap, err := collect.Collect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errors.New("collector returned no snapshot")
	}
	if s.opt.AttachMetrics {
		if err := s.attachMetrics(snap); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// attachMetrics fetches /metrics of every FE and BE (scrape.AttachMetrics)
// for check to lint them all.
func (s *Source) attachMetrics(snap *snapshot.Snapshot) error {
	fallback := scrape.Target{Kind: "fe", Host: net.JoinHostPort(s.cfg.Conn.Host, strconv.Itoa(s.cfg.Conn.HTTPPort))}
	fo, err := s.fetch(scrape.FetchOptions{RequestTimeout: s.cfg.Timeout, KeepBody: s.opt.KeepMetricsBodies})
	if err != nil {
		return err
	}
	res := scrape.AttachMetrics(context.Background(), snap, s.opt.MetricsTargets, fallback, fo)
	in := make([]metrics.Input, len(res))
	for i, r := range res {
		in[i] = metrics.Input{Kind: r.Target.Kind, Source: r.Target.Host, URL: r.URL, Lint: r.Lint, Err: r.Err}
	}
	if s.linted == nil {
		s.linted = map[*snapshot.Snapshot][]metrics.Input{}
	}
	clear(s.linted) // only the latest live snapshot's are asked for
	s.linted[snap] = in
	return nil
}

// Linted is the /metrics analysis input of a live snapshot whose bodies were
// linted as they streamed in (AttachMetrics), nil otherwise.
func (s *Source) Linted(snap *snapshot.Snapshot) []metrics.Input { return s.linted[snap] }

// collectContext bounds a whole live collection: each hop has its own
// --timeout inside the collector; the whole run gets room for its fixed
// number of queries plus one per database, and never more than ten minutes.
func collectContext(cfg scrape.Config) (context.Context, context.CancelFunc) {
	total := cfg.Timeout * 30
	if total > 10*time.Minute {
		total = 10 * time.Minute
	}
	return context.WithTimeout(context.Background(), total)
}
