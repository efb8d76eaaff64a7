package exporter

import (
	"context"
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// ExporterOptions are the inputs of `dorisdiag exporter` (docs/exporter.md).
type ExporterOptions struct {
	cmdutil.Common
	Source     func(cmdutil.SourceOptions) *cmdutil.Source
	LoadConfig func(string) (cmdutil.FileConfig, error)
	// ConfigFile is --config: its consumers: are read every live round
	// (docs/consumers.md), its assume_ttl_enforced applied.
	ConfigFile string
	// Context is the command's: the exporter stops when it is done.
	Context context.Context

	ListenAddresses []string
	TelemetryPath   string
	WebConfigFile   string
	Interval        time.Duration
	RoundTimeout    time.Duration
	DesignSeries    string
	MVQuota         int
	StreamQuota     int
	LogLevel        string

	level slog.Level // --log.level, parsed by validate
}

// NewCmdExporter builds `dorisdiag exporter`.
func NewCmdExporter(f *cmdutil.Factory, runF func(*ExporterOptions) error) *cobra.Command {
	o := &ExporterOptions{Source: f.Source, LoadConfig: f.LoadConfig}
	c := &cobra.Command{
		Use:   "exporter",
		Short: cmdutil.ExporterShort,
		Long: `exporter runs the read-only collector and the same diagnosis as check every
--interval (the sampler of apache/doris#69907 §3, client-side), keeps the
design's change points in memory so that pending ages become PRECISE, and
serves the design's series under their own names (apache/doris#69907 §2
"Reference") on --web.listen-address, so that the design's alert rules and
dashboards work on builds that do not export them yet. One exporter per
cluster.

On a build whose own monitor exports those series (the probe finds the sampled
columns), it serves only the server-vs-client cross-check and its own
dorisdiag_exporter_* series (--design-series auto). With --demo the
scenario's cluster clock advances by one --interval per round.

/metrics is encoded once per round and format (Prometheus text, OpenMetrics,
gzip). /healthz answers while the process runs, without authentication even
when --web.config.file turns basic auth on; /readyz once a round completed
within two intervals. SIGTERM or SIGINT stops it gracefully. docs/exporter.md
lists every series, the flags, and how to run it under systemd and Kubernetes.`,
		Example: `  dorisdiag exporter --demo incident --web.listen-address 127.0.0.1:10930
  DORISDIAG_PASSWORD=... dorisdiag exporter --host fe1 --user monitor
  dorisdiag exporter --host fe1 --web.config.file web.yml --interval 30s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Common, o.Context = f.Common(), cmd.Context()
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return exporterRun(o)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&o.ListenAddresses, "web.listen-address", []string{exporter.DefaultListenAddress}, "address to listen on for HTTP (repeatable)")
	fl.StringVar(&o.TelemetryPath, "web.telemetry-path", "/metrics", "path under which to expose the metrics")
	fl.StringVar(&o.WebConfigFile, "web.config.file", "", "exporter-toolkit web configuration file (TLS, basic auth): https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md")
	fl.DurationVar(&o.Interval, "interval", exporter.DefaultInterval, "time between rounds (the design's changelog_ivm_monitor_interval_seconds)")
	fl.DurationVar(&o.RoundTimeout, "round-timeout", 0, "timeout of one round's collection (default: the interval)")
	fl.StringVar(&o.DesignSeries, "design-series", exporter.ModeAuto, "serve the design's doris_fe_* series: auto (unless the build's own monitor does), on, off")
	fl.IntVar(&o.MVQuota, "mv-quota", round.DefaultObjectQuota, "IVM MVs with per-object series, lowest IDs first (the design's prom_output_ivm_mv_metrics_limit); 0 for none")
	fl.StringVar(&o.ConfigFile, "config", "", "YAML file: its consumers: are read every live round (dorisdiag_consumer_* series), its assume_ttl_enforced applied (docs/consumers.md)")
	fl.IntVar(&o.StreamQuota, "stream-quota", round.DefaultObjectQuota, "user streams with per-object series, lowest IDs first (prom_output_table_stream_metrics_limit); 0 for none")
	fl.StringVar(&o.LogLevel, "log.level", "info", "log level on stderr: debug, info, warn, error")
	return c
}

// validate checks the flags before anything is opened.
func (o *ExporterOptions) validate() error {
	if o.WebConfigFile != "" {
		// Opened as a snapshot is (fileio.OpenInput): a FIFO or a device is
		// refused before exporter-toolkit's read could block on it.
		f, _, err := fileio.OpenInput(o.WebConfigFile)
		if err != nil {
			return cmdutil.UsageErrorf("--web.config.file: %v", err)
		}
		_ = f.Close()
	}
	if o.Interval < time.Second {
		return cmdutil.UsageErrorf("--interval must be at least 1s, got %s", o.Interval)
	}
	if o.RoundTimeout < 0 {
		return cmdutil.UsageErrorf("--round-timeout must not be negative, got %s", o.RoundTimeout)
	}
	if o.MVQuota < 0 || o.StreamQuota < 0 {
		return cmdutil.UsageErrorf("--mv-quota and --stream-quota must be 0 or more")
	}
	if len(o.TelemetryPath) == 0 || o.TelemetryPath[0] != '/' {
		return cmdutil.UsageErrorf("--web.telemetry-path must start with /, got %q", o.TelemetryPath)
	}
	switch o.DesignSeries {
	case exporter.ModeAuto, exporter.ModeOn, exporter.ModeOff:
	default:
		return cmdutil.UsageErrorf("--design-series must be auto, on or off, got %q", o.DesignSeries)
	}
	if err := o.level.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return cmdutil.UsageErrorf("--log.level %q: want debug, info, warn or error", o.LogLevel)
	}
	return nil
}

// exporterGCPercent is the exporter process's GOGC unless the environment
// sets one (docs/exporter.md "Resources").
const exporterGCPercent = 50

// exporterRun serves the design's series until the context is done or a
// signal stops it.
func exporterRun(o *ExporterOptions) error {
	sopt := cmdutil.SourceOptions{}
	assume := o.Config.AssumeTTLEnforced
	if o.ConfigFile != "" {
		if o.LoadConfig == nil {
			return cmdutil.UsageErrorf("--config is not available here")
		}
		fc, err := o.LoadConfig(o.ConfigFile)
		if err != nil {
			return err
		}
		sopt.Consumers = fc.Consumers
		if assume == nil {
			assume = fc.AssumeTTLEnforced
		}
	}
	src := o.Source(sopt)
	kind, err := src.Kind()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(o.IO.Err, &slog.HandlerOptions{Level: o.level}))
	opt := exporter.Options{Interval: o.Interval, RoundTimeout: o.RoundTimeout, DesignSeries: o.DesignSeries,
		TelemetryPath: o.TelemetryPath, Logger: logger, Cluster: o.Config.ClusterName(),
		Diag: round.Options{MVQuota: quotaOpt(o.MVQuota), StreamQuota: quotaOpt(o.StreamQuota)}}
	switch kind {
	case "file":
		return cmdutil.UsageErrorf("exporter needs a source that changes: --host HOST (live) or --demo [SCENARIO]; a --snapshot file is analysed by check")
	case "demo":
		s, err := scenario.Load(src.Demo())
		if err != nil {
			return cmdutil.UsageErrorf("--demo: %v", err)
		}
		opt.Source, opt.Demo = exporter.DemoSource(s, o.Interval), true
	default:
		opt.Source = exporter.LiveSource(src.LiveConfig())
	}
	opt.Source = assumeTTLSource(opt.Source, assume)
	if os.Getenv("GOGC") == "" {
		// The resident set is the round's own, not the scrapes' (10
		// concurrent scrapers add nothing measurable): a collection that
		// falls inside a round, while its snapshot and analysis are live,
		// sets the next heap goal at twice that. GOGC=50 sets it at 1.5×:
		// 186 → 176 MB peak at scale for about 4% more CPU a round
		// (docs/performance.md "Serving /metrics"). GOGC in the environment wins.
		debug.SetGCPercent(exporterGCPercent)
	}
	e, err := exporter.New(opt)
	if err != nil {
		return err
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// Graceful stop on SIGTERM (systemd, Kubernetes) and SIGINT, registered
	// before the listeners open.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	ls, err := exporter.Listen(o.ListenAddresses)
	if err != nil {
		return err
	}
	for _, l := range ls {
		logger.Info("listening", "address", l.Addr().String(), "telemetry_path", o.TelemetryPath, "source", kind, "interval", o.Interval.String())
	}
	if err := e.Serve(ctx, ls, o.WebConfigFile); err != nil {
		return fmt.Errorf("exporter: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// quotaOpt maps the flag (0 = none) to diag's option (0 = default, negative = none).
func quotaOpt(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// assumeTTLSource records --assume-ttl-enforced in every round of the
// exporter, so its series and rules say what check says.
func assumeTTLSource(src exporter.Source, flag *bool) exporter.Source {
	if flag == nil || src == nil {
		return src
	}
	return func(ctx context.Context, round int) (*snapshot.Snapshot, error) {
		s, err := src(ctx, round)
		if err == nil {
			cmdutil.ApplyTTLAssumption([]*snapshot.Snapshot{s}, flag, nil)
		}
		return s, err
	}
}
