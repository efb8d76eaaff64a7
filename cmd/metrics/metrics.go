package metrics

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/scrape"
)

// NewCmdMetrics builds the `metrics` group.
func NewCmdMetrics(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "metrics",
		Short: "Lint FE/BE /metrics payloads and check them against the monitoring design",
		Long: `metrics lint checks one /metrics payload (a file, a URL or stdin): every
exposition-format problem with file:line:col, the family, the label and a fix,
Doris quirks recognised, and the changelog/IVM series checked against the
monitoring design. metrics scrape fetches /metrics from every FE and BE.`,
	}
	c.AddCommand(NewCmdMetricsLint(f, nil), NewCmdMetricsScrape(f, nil))
	return c
}

// payloadOptions are the inputs both commands share: the common flags, the
// factory's lazy source and HTTP fetch, the size cap of a payload (each
// command words its --max-bytes) and the design parameters.
type payloadOptions struct {
	cmdutil.Common
	Source    func(cmdutil.SourceOptions) *cmdutil.Source
	HTTPFetch func(scrape.FetchOptions) (scrape.FetchOptions, error)
	MaxBytes  int64
	Conform   conformFlags
}

func newPayloadOptions(f *cmdutil.Factory) payloadOptions {
	return payloadOptions{Source: f.Source, HTTPFetch: f.HTTPFetch}
}

// conformFlags are the design parameters both commands share.
type conformFlags struct {
	Now             string
	MonitorInterval time.Duration
	MVLimit         int
	StreamLimit     int
	SeriesBudget    int
	TTLCleanupAge   time.Duration
	NoConform       bool
}

func (f *conformFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.Now, "now", "", "judge staleness against this time (RFC 3339 or unix seconds; default: now)")
	c.Flags().DurationVar(&f.MonitorInterval, "monitor-interval", 15*time.Second, "changelog_ivm_monitor_interval_seconds: stale after 2x")
	c.Flags().IntVar(&f.MVLimit, "mv-limit", 1000, "prom_output_ivm_mv_metrics_limit (0 = none)")
	c.Flags().IntVar(&f.StreamLimit, "stream-limit", 1000, "prom_output_table_stream_metrics_limit (0 = none)")
	c.Flags().IntVar(&f.SeriesBudget, "series-budget", 9100, "changelog/IVM series budget (apache/doris#69907 \"A bounded number of series\": about 9,100 with the default quotas)")
	c.Flags().DurationVar(&f.TTLCleanupAge, "ttl-cleanup-max-age", time.Hour, "report a BE whose last successful changelog TTL cleanup is older")
	c.Flags().BoolVar(&f.NoConform, "no-conform", false, "skip the checks against the monitoring design")
}

func (f *conformFlags) options(defaultNow time.Time) (metrics.ConformOptions, error) {
	now := defaultNow
	if f.Now != "" {
		if secs, err := strconv.ParseFloat(f.Now, 64); err == nil {
			now = time.Unix(0, int64(secs*1e9)).UTC()
		} else if t, err := cmdutil.ParseTimeArg(f.Now, "UTC"); err == nil {
			now = t
		} else {
			return metrics.ConformOptions{}, cmdutil.UsageErrorf("--now: %v", err)
		}
	}
	lim := func(n int) int {
		if n == 0 {
			return -1 // Conform: negative means a quota of 0
		}
		return n
	}
	return metrics.ConformOptions{Now: now, MonitorInterval: f.MonitorInterval, MVLimit: lim(f.MVLimit), StreamLimit: lim(f.StreamLimit),
		SeriesBudget: f.SeriesBudget, TTLCleanupMaxAge: f.TTLCleanupAge}, nil
}

// analysisOptions is the policy every metrics command hands diag.
func (f *conformFlags) analysisOptions(now time.Time, includeStyle bool) (metrics.Options, error) {
	c, err := f.options(now)
	if err != nil {
		return metrics.Options{}, err
	}
	return metrics.Options{Conform: c, NoConform: f.NoConform, IncludeStyle: includeStyle}, nil
}
