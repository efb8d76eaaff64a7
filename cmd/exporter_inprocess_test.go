package cmd

import (
	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/cmd/exporter"
)

// The tests of this package run `exporter` in-process, and read its flags
// for the documentation tests, through the tree dorisdiag-exporter runs
// (MainExporter): the real command, not the shim that execs the binary. The
// shim is tested on the built binaries (exporter_shim_test.go); the
// dorisdiag binary links none of this (internal/archtest).
func init() {
	exporterCommand = func(f *cmdutil.Factory) *cobra.Command { return exporter.NewCmdExporter(f, nil) }
}
