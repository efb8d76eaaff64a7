// Package streams diagnoses table streams (apache/doris#69907 §1 S4): is a
// consumer falling behind, will the TTL catch up with it, has it already
// lost changes? For every stream of a snapshot it computes the state
// (§3 "States"), each partition's pending age with its precision — from one
// snapshot, a series, or an exporter's change points — the retention, what
// the next read does, the verdict and the what-if plan of `headroom`, and
// the findings of the stream checks, whose codes are declared beside them.
// An IVM MV's internal streams are analysed here too; package mv reads them.
package streams
