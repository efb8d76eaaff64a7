// Package round is the per-round computation of `dorisdiag exporter`
// (docs/exporter.md): the values of the design's series from one snapshot,
// with the same analyses as `check`, the change points of the earlier rounds
// and the counters kept since the exporter started. Pure: the time is the
// snapshot's cluster time; package exporter renders the result.
package round
