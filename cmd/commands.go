package cmd

import "github.com/spf13/cobra"

// commandTree lists the top-level commands, explicit and in one place
// (style.md: an explicit slice, not init() magic). Each constructor lives in
// its own file and has the one shape NewCmdX(f, runF) (factory.go); the tree
// passes no runF, so each command runs its own xRun.
func commandTree() []func(*Factory) *cobra.Command {
	return []func(*Factory) *cobra.Command{
		func(f *Factory) *cobra.Command { return NewCmdVersion(f, nil) },
		NewCmdTSO,
		func(f *Factory) *cobra.Command { return NewCmdSnapshot(f, nil) },
		func(f *Factory) *cobra.Command { return NewCmdStreams(f, nil) },
		func(f *Factory) *cobra.Command { return NewCmdHeadroom(f, nil) },
		NewCmdMV,
		func(f *Factory) *cobra.Command { return NewCmdExplain(f, nil) },
		NewCmdMetrics,
		func(f *Factory) *cobra.Command { return NewCmdCheck(f, nil) },
		func(f *Factory) *cobra.Command { return NewCmdDoctor(f, nil) },
		func(f *Factory) *cobra.Command { return NewCmdDemo(f, nil) },
		func(f *Factory) *cobra.Command { return NewCmdExporter(f, nil) },
	}
}
