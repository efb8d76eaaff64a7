// Package syntax is the byte-level grammar of the Prometheus text format
// (text/plain; version=0.0.4) that holds no state between lines: reading a
// payload line by line within bounds, telling an OpenMetrics payload apart,
// escaping and reading label values and HELP text, where a sample's value
// and timestamp are, whether a line parses on syntax alone, and the hash
// of the series sets.
//
// The linter's engine (package exposition) carries the state expfmt carries
// from line to line (families, types, series) and decides what is a problem;
// this package only answers questions about bytes, so the engine and the
// repairs read a line by the same rules. It imports nothing of the project.
package syntax
