// Package exporter is `dorisdiag exporter`: its flags, handed to
// exporter.Run. Only the dorisdiag-exporter binary (cmd/dorisdiag-exporter)
// links it; `dorisdiag exporter` execs that binary (cmd's exporter shim), so
// that dorisdiag links nothing of client_golang, exporter-toolkit or their
// dependencies (internal/archtest TestDorisdiagLinksNoExporter).
package exporter
