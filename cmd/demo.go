package cmd

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/report/demo"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// DemoOptions are the inputs of `dorisdiag demo`.
type DemoOptions struct {
	cmdutil.Common

	Scenario string
	Width    int
}

// NewCmdDemo builds `dorisdiag demo`.
func NewCmdDemo(f *cmdutil.Factory, runF func(*DemoOptions) error) *cobra.Command {
	o := &DemoOptions{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "The main job on a bundled scenario, no server needed: check, then the worst MV and stream explained",
		Long: `demo runs what an on-call engineer runs first, on the bundled "incident"
scenario (or --scenario): the check overview with every finding on one line,
then "mv explain" of the worst MV and "streams show" of the worst user
stream, and says which commands to run against a real cluster.`,
		Example: `  dorisdiag demo
  dorisdiag demo --scenario legacy     # a build without the monitoring tables
  dorisdiag demo --demo healthy --width 100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Common = f.Common()
			if err := o.CheckFormat("demo"); err != nil {
				return err
			}
			// demo only ever reads a bundled scenario: a source flag must not
			// be silently ignored (docs/check.md "dorisdiag demo").
			if o.Config.Conn.Host != "" || len(o.Config.Snapshots) > 0 {
				return cmdutil.UsageErrorf("demo runs on a bundled scenario (--scenario); use check, mv explain or streams show with --host or --snapshot")
			}
			// --demo NAME names the scenario too.
			if d := o.Config.Demo; d != "" {
				if cmd.Flags().Changed("scenario") && d != o.Scenario {
					return cmdutil.UsageErrorf("--demo %s and --scenario %s disagree: give one", d, o.Scenario)
				}
				o.Scenario = d
			}
			if runF != nil {
				return runF(o)
			}
			return demoRun(o)
		},
	}
	c.Flags().StringVar(&o.Scenario, "scenario", "incident", "bundled scenario: healthy, incident, legacy, scale")
	c.Flags().IntVar(&o.Width, "width", 160, "cut finding lines to this many columns (0: never)")
	return c
}

// demoRun runs check on the scenario and renders the demo's screen.
func demoRun(o *DemoOptions) error {
	snap, err := scenario.Load(o.Scenario)
	if err != nil {
		return cmdutil.UsageError{Err: err}
	}
	res := check.Run([]*snapshot.Snapshot{snap}, check.Options{})
	if err := o.Emit(demo.DemoDoc{Check: res, Width: o.Width}); err != nil {
		return err
	}
	return o.Gate(res.Findings, "none")
}
