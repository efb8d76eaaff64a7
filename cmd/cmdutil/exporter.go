package cmdutil

// The exporter is its own binary (docs/exporter.md "Install"): dorisdiag
// links nothing of it, and `dorisdiag exporter` replaces itself with
// ExporterBinary (cmd's exporter shim). What both name is here, once.
const (
	// ExporterBinary is the exporter's program: cmd/dorisdiag-exporter.
	ExporterBinary = "dorisdiag-exporter"
	// ExporterInstall installs it.
	ExporterInstall = "go install github.com/dorisdiag/dorisdiag/cmd/dorisdiag-exporter@latest"
	// ExporterShort is the one-line description of `exporter`, the same in
	// dorisdiag's command list and in dorisdiag-exporter's help.
	ExporterShort = "Long-running Prometheus exporter of the monitoring design's series (doris_fe_changelog_*, doris_fe_ivm_*)"
)
