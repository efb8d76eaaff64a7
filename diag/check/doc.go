// Package check is `dorisdiag check`: every analysis over a series of
// snapshots (streams, MVs, /metrics, sources), the overview printed before
// the findings, all findings in the one order their declarations give,
// a config file's policy applied, and the worst MV and stream to look at.
package check
