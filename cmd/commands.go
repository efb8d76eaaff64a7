package cmd

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/cmd/consumers"
	"github.com/dorisdiag/dorisdiag/cmd/doctor"
	"github.com/dorisdiag/dorisdiag/cmd/metrics"
	"github.com/dorisdiag/dorisdiag/cmd/mv"
	"github.com/dorisdiag/dorisdiag/cmd/snapshot"
	"github.com/dorisdiag/dorisdiag/cmd/streams"
	"github.com/dorisdiag/dorisdiag/cmd/tso"
)

import "github.com/spf13/cobra"

// commandTree lists the top-level commands, explicit and in one place
// (style.md: an explicit slice, not init() magic). Each constructor lives in
// its own file and has the one shape NewCmdX(f, runF) (factory.go); the tree
// passes no runF, so each command runs its own xRun. exporter builds the
// `exporter` command: the shim that execs dorisdiag-exporter in dorisdiag
// (exporterCommand), the real one in dorisdiag-exporter (MainExporter).
func commandTree(exporter func(*cmdutil.Factory) *cobra.Command) []func(*cmdutil.Factory) *cobra.Command {
	return []func(*cmdutil.Factory) *cobra.Command{
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdVersion(f, nil) },
		tso.NewCmdTSO,
		func(f *cmdutil.Factory) *cobra.Command { return snapshot.NewCmdSnapshot(f, nil) },
		func(f *cmdutil.Factory) *cobra.Command { return streams.NewCmdStreams(f, nil) },
		func(f *cmdutil.Factory) *cobra.Command { return consumers.NewCmdConsumers(f, nil) },
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdHeadroom(f, nil) },
		mv.NewCmdMV,
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdExplain(f, nil) },
		metrics.NewCmdMetrics,
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdCheck(f, nil) },
		func(f *cmdutil.Factory) *cobra.Command { return doctor.NewCmdDoctor(f, nil) },
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdBundle(f, nil) },
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdDemo(f, nil) },
		exporter,
	}
}
