package cmd

import "github.com/spf13/cobra"

// commandTree lists the top-level commands, explicit and in one place
// (style.md: an explicit slice, not init() magic). Each constructor lives in
// its own file.
func commandTree() []func(*globalOptions) *cobra.Command {
	return []func(*globalOptions) *cobra.Command{
		newVersionCmd,
		newTSOCmd,
		newSnapshotCmd,
		newStreamsCmd,
		newHeadroomCmd,
		newMVCmd,
		newExplainCmd,
		newMetricsCmd,
		newCheckCmd,
		newDemoCmd,
		newExporterCmd,
	}
}
