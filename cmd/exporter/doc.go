// Package exporter is `dorisdiag exporter`: its flags, handed to
// exporter.Run.
package exporter
