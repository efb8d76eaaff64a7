// Package changepoints is the change-point memory of a long-running
// exporter: the sampler of apache/doris#69907 §3 "Definitions" → "Pending
// age", run client-side across rounds, which makes a pending age PRECISE.
// Package streams applies it to a stream's partitions.
package changepoints
