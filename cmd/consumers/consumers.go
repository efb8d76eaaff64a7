// Package consumers is `dorisdiag consumers` (docs/consumers.md): the
// external consumers declared in the config file, their retention
// headroom, what a restart from their published offset does now and --in
// a while, and whether they still publish.
package consumers

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/consumers"
	"github.com/dorisdiag/dorisdiag/report"
	consumersreport "github.com/dorisdiag/dorisdiag/report/consumers"
)

// ConsumersOptions are the inputs of `dorisdiag consumers`.
type ConsumersOptions struct {
	cmdutil.Common
	Source     func(cmdutil.SourceOptions) *cmdutil.Source
	LoadConfig func(string) (cmdutil.FileConfig, error)

	ConfigFile    string
	MinHeadroom   time.Duration
	MaxPublishAge time.Duration
	In            time.Duration
	Watch         watch.Options
	// Given: the flags given on the command line (they win over --config).
	Given map[string]bool
}

// NewCmdConsumers builds `dorisdiag consumers`.
func NewCmdConsumers(f *cmdutil.Factory, runF func(*ConsumersOptions) error) *cobra.Command {
	o := &ConsumersOptions{Source: f.Source, LoadConfig: f.LoadConfig}
	c := &cobra.Command{
		Use:   "consumers",
		Short: "External consumers' offset tables (Flink Doris connector): headroom, restart verdict, publisher",
		Long: `consumers judges the readers that keep their own position outside Doris and
publish it to an offset table (the Flink Doris connector's
source.binlog.offset-table and source.binlog.consumer-id), declared under
consumers: in the --config file. For each: the newest published offset and
the zone it was written in (with the UTC instant), the retention headroom
before the source table's TTL reaches it, what a restart from it does now and
--in a while (min_delta: rejected; detail, append_only: silently clipped, and
which window is lost), the exact restart setting, and how long ago the job
last published.

A live run reads the offset tables; --snapshot and --demo judge what the
snapshot recorded. Exit codes as check's gate: 1 when a finding reaches
--fail-on (default critical).`,
		Example: `  dorisdiag consumers --demo incident            # exits 1: two consumers' offsets expired
  dorisdiag consumers --host fe1 --config dorisdiag.yaml --in 8h
  dorisdiag consumers --snapshot snap.json -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.Common = f.Common()
			o.Given = map[string]bool{}
			c.Flags().Visit(func(fl *pflag.Flag) { o.Given[fl.Name] = true })
			if o.MinHeadroom <= 0 || o.MaxPublishAge <= 0 || o.In < 0 {
				return cmdutil.UsageErrorf("--min-headroom and --max-publish-age must be positive, --in not negative")
			}
			if err := o.CheckFormat("consumers"); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.ConfigFile, "config", "", "YAML file whose consumers: list declares the consumers (docs/consumers.md)")
	fl.DurationVar(&o.MinHeadroom, "min-headroom", consumers.DefaultMinHeadroom, "CONSUMER_HEADROOM_LOW below this retention headroom")
	fl.DurationVar(&o.MaxPublishAge, "max-publish-age", consumers.DefaultMaxPublishAge, "CONSUMER_PUBLISHER_STALE when the newest offset row is older (a consumer's max_publish_age wins)")
	fl.DurationVar(&o.In, "in", 0, "also judge a restart from each offset this much later (e.g. 8h)")
	watch.AddFlags(c, &o.Watch)
	return c
}

func run(o *ConsumersOptions) error {
	sopt := cmdutil.SourceOptions{}
	failOn := "critical"
	opt := consumers.Options{MinHeadroom: o.MinHeadroom, MaxPublishAge: o.MaxPublishAge, In: o.In}
	var pol diag.Policy
	if o.ConfigFile != "" {
		if o.LoadConfig == nil {
			return cmdutil.UsageErrorf("--config is not available here")
		}
		fc, err := o.LoadConfig(o.ConfigFile)
		if err != nil {
			return err
		}
		sopt.Consumers, sopt.AssumeTTLEnforced, pol = fc.Consumers, fc.AssumeTTLEnforced, fc.Policy
		if fc.FailOn != "" {
			failOn = fc.FailOn
		}
		if fc.MinHeadroom != nil && !o.Given["min-headroom"] {
			opt.MinHeadroom = *fc.MinHeadroom
		}
		if fc.MaxPublishAge != nil && !o.Given["max-publish-age"] {
			opt.MaxPublishAge = *fc.MaxPublishAge
		}
	}
	src := o.Source(sopt)
	return o.Watched(src, o.Watch, func(r watch.Round) error {
		last := r.Series[len(r.Series)-1]
		res := consumers.Analyze(last, opt)
		kept, _ := pol.Apply(res.Findings)
		diag.SortFindings(kept)
		if kept == nil {
			kept = []diag.Finding{}
		}
		cs := append([]consumers.Consumer{}, res.Consumers...)
		consumersreport.Sort(cs)
		ttl := last.TTL()
		doc := consumersreport.Doc{Now: res.Now, CurrentTSO: res.CurrentTSO.String(), MinHeadroomThreshold: opt.MinHeadroom.Seconds(),
			MaxPublishAgeThreshold: opt.MaxPublishAge.Seconds(), TTLEnforcement: &ttl, Consumers: cs, Findings: kept}
		if o.In > 0 {
			v := o.In.Seconds()
			doc.InSeconds = &v
		}
		if err := o.EmitRound(r, doc); err != nil {
			return err
		}
		return o.Gate(kept, failOn)
	})
}

var _ report.Doc = consumersreport.Doc{}
