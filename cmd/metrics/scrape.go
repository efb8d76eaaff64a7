package metrics

import (
	"context"
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	metricsreport "github.com/dorisdiag/dorisdiag/report/metrics"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// metricsScrapeFailOn is the default --fail-on of metrics scrape, as for
// check: an unreachable target or an unparseable payload fails the run.
const MetricsScrapeFailOn = "critical"

// MetricsScrapeOptions are the inputs of `metrics scrape`.
type MetricsScrapeOptions struct {
	payloadOptions

	Targets        string
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration
	RequestTimeout time.Duration
	Concurrency    int
	Save           string
}

// NewCmdMetricsScrape builds `metrics scrape`.
func NewCmdMetricsScrape(f *cmdutil.Factory, runF func(*MetricsScrapeOptions) error) *cobra.Command {
	o := &MetricsScrapeOptions{payloadOptions: newPayloadOptions(f)}
	c := &cobra.Command{
		Use:   "scrape",
		Short: "Fetch and lint /metrics of every FE and BE, concurrently, with named timeouts",
		Long: `scrape fetches /metrics from every FE and BE — the --targets list, or the
frontends and backends of --host (SHOW FRONTENDS / SHOW BACKENDS) —
concurrently, each bounded by a connect, a response-header and a
whole-request timeout. It lints each payload, checks that only the Master FE
exports state series, and summarises per host: reachable or not (with the
timeout that fired), parse status, problems, series, bytes and fetch time.
With --snapshot or --demo (and no --targets) it fetches nothing: it analyses
the payloads stored in the snapshot, judged against its cluster time.
--save stores the payloads into a snapshot file. Exits 1 on a critical
finding (an unreachable target, an unparseable payload) unless --fail-on
says otherwise.`,
		Example: `  dorisdiag metrics scrape --targets fe1.demo.invalid:8030,fe2.demo.invalid:8030,be5.demo.invalid:8040
  dorisdiag metrics scrape --host fe1 --save snap.json
  dorisdiag metrics scrape --demo incident    # exits 1: a payload does not parse
  dorisdiag metrics scrape --targets fe=fe1:18030,be=be1:18040 -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return metricsScrapeRun(o)
		},
	}
	c.Flags().StringVar(&o.Targets, "targets", "", "host:port,... to scrape (fe= / be= prefixes; port 8030 is an FE, 8040 a BE); default: discover from --host")
	c.Flags().DurationVar(&o.ConnectTimeout, "connect-timeout", 2*time.Second, "TCP connect timeout per host")
	c.Flags().DurationVar(&o.HeaderTimeout, "header-timeout", 5*time.Second, "time from the request sent to the response headers, per host")
	c.Flags().DurationVar(&o.RequestTimeout, "request-timeout", 0, "whole-request timeout per host, body included (default --timeout)")
	c.Flags().Int64Var(&o.MaxBytes, "max-bytes", scrape.DefaultMaxBytes, "refuse a /metrics body larger than this (after decompression)")
	c.Flags().IntVar(&o.Concurrency, "concurrency", 8, "hosts fetched at once")
	c.Flags().StringVar(&o.Save, "save", "", "write the source snapshot with the payloads to this file")
	o.Conform.add(c)
	return c
}

// validate checks -o, --fail-on and --save before any work.
func (o *MetricsScrapeOptions) validate() error {
	if err := o.CheckFormat("metrics_scrape"); err != nil {
		return err
	}
	if _, err := o.FailOn(MetricsScrapeFailOn); err != nil {
		return err
	}
	if o.Save == "-" {
		return cmdutil.UsageErrorf("--save -: the report goes to stdout; give --save FILE")
	}
	if err := cmdutil.CheckOutput(o.Save); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	return nil
}

// metricsScrapeRun fetches and lints every target, or analyses the payloads
// a snapshot stores.
func metricsScrapeRun(o *MetricsScrapeOptions) error {
	start := time.Now()
	var targets []scrape.Target
	if o.Targets != "" {
		var err error
		if targets, err = scrape.ParseTargets(o.Targets); err != nil {
			return cmdutil.UsageErrorf("--targets: %v", err)
		}
	}
	var snap *snapshot.Snapshot
	discovery, now := "targets", start
	if o.Targets == "" || o.Save != "" {
		src := o.Source(cmdutil.SourceOptions{})
		kind, err := src.Kind()
		if err != nil {
			if o.Save != "" {
				return cmdutil.UsageErrorf("--save needs a snapshot to store the payloads into: give --host, --snapshot or --demo")
			}
			return cmdutil.UsageErrorf("no targets: give --targets host:port,... or a source (--host, --snapshot, --demo) to discover FEs and BEs from")
		}
		if o.Targets == "" && kind != "live" && o.Save != "" {
			return cmdutil.UsageErrorf("--save with --%s: the payloads are already stored in it; give --targets to fetch new ones", kind)
		}
		snaps, err := src.Load()
		if err != nil {
			return err
		}
		snap = snaps[len(snaps)-1]
		if o.Targets == "" && kind != "live" {
			return o.runStored(snap, kind)
		}
		if kind == "live" {
			// Judge the monitor's staleness by the cluster's clock (its
			// current TSO, read just now), not this machine's: client clock
			// skew must not make a healthy monitor look stale.
			now = snap.Cluster.Now.Add(time.Since(start))
		}
		if o.Targets == "" {
			discovery = kind
			if targets = scrape.TargetsFromSnapshot(snap); len(targets) == 0 {
				return fmt.Errorf("the %s source lists no frontends or backends with an HTTP port: give --targets", kind)
			}
		}
	}
	opt, err := o.Conform.analysisOptions(now, true)
	if err != nil {
		return err
	}
	rt := o.RequestTimeout
	if rt <= 0 {
		rt = o.Config.Timeout
	}
	fo, err := o.HTTPFetch(scrape.FetchOptions{ConnectTimeout: o.ConnectTimeout, HeaderTimeout: o.HeaderTimeout, RequestTimeout: rt, MaxBytes: o.MaxBytes,
		Concurrency: o.Concurrency, KeepBody: o.Save != ""})
	if err != nil {
		return err
	}
	if snap != nil {
		// The nodes the cluster lists, and the --host FE, may get the
		// password over plain HTTP; a --targets entry that is none of them
		// may not (docs/security.md "Credentials").
		fo.PlainHTTPCredentialsTo = scrape.ListedNodes(fo.PlainHTTPCredentialsTo, snap,
			scrape.Target{Host: net.JoinHostPort(o.Config.Conn.Host, strconv.Itoa(o.Config.Conn.HTTPPort))})
	}
	results := scrape.ScrapeAll(context.Background(), scrape.NewClient(fo), targets, fo)
	in := make([]metrics.Input, len(results))
	fetches := make([]metricsreport.ScrapeFetch, len(results))
	for i, r := range results {
		in[i] = metrics.Input{Kind: r.Target.Kind, Source: r.Target.Host, URL: r.URL, Lint: r.Lint, Err: r.Err}
		fetches[i] = metricsreport.ScrapeFetch{Reachable: r.Reachable, Status: r.Status, Bytes: r.Bytes, FetchTime: r.FetchTime}
	}
	a := metrics.AnalyzePayloads(in, opt)
	if o.Save != "" {
		if err := savePayloads(snap, scrape.Payloads(results, start), o.Save); err != nil {
			return err
		}
	}
	if err := o.Emit(metricsreport.NewMetricsScrapeDoc(a, fetches, discovery)); err != nil {
		return err
	}
	return o.Gate(a.Findings, MetricsScrapeFailOn)
}

// runStored analyses the payloads a snapshot (--snapshot, --demo) stores,
// judged against its cluster time: offline is offline, nothing is fetched.
func (o *MetricsScrapeOptions) runStored(s *snapshot.Snapshot, kind string) error {
	if len(s.Metrics) == 0 {
		return fmt.Errorf("the %s snapshot holds no /metrics payloads and --%s fetches none: give --targets or --host", kind, kind)
	}
	opt, err := o.Conform.analysisOptions(s.Cluster.Now, true)
	if err != nil {
		return err
	}
	a := metrics.Analyze(s, opt)
	if err := o.Emit(metricsreport.NewMetricsScrapeDoc(a, nil, kind)); err != nil {
		return err
	}
	return o.Gate(a.Findings, MetricsScrapeFailOn)
}

// savePayloads stores the payloads into the source snapshot and writes it.
func savePayloads(s *snapshot.Snapshot, payloads []snapshot.MetricsPayload, path string) error {
	out := *s
	out.Metrics = payloads
	// Atomically, mode 0600, a regular file or a new path only (fileio):
	// it used to be written in place with mode 0644.
	if err := fileio.WriteAtomic(path, func(w io.Writer) error { return snapshot.Write(w, &out) }); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	return nil
}
