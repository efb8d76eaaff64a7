// Command dorisdiag-exporter is `dorisdiag exporter`: the long-running
// Prometheus exporter of the monitoring design's series, as its own program,
// so that dorisdiag links nothing of client_golang, exporter-toolkit,
// protobuf or procfs (docs/exporter.md, docs/performance.md "Start-up and
// binary size"). It takes the arguments of `dorisdiag exporter`, which
// replaces itself with this program:
//
//	dorisdiag-exporter --demo incident --web.listen-address 127.0.0.1:10930
//	go install github.com/dorisdiag/dorisdiag/cmd/dorisdiag-exporter@latest
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/cmd/exporter"
)

func main() {
	os.Exit(cmd.MainExporter(os.Args[1:], cmdutil.System(), func(f *cmdutil.Factory) *cobra.Command {
		return exporter.NewCmdExporter(f, nil)
	}))
}
