// Package consumers answers, for a reader that keeps its own position
// outside Doris (the Flink Doris connector's offset table,
// docs/consumers.md), the questions dorisdiag answers for table streams:
// how long until the TTL reaches its offset (retention headroom), what a
// restart from it does now and in a while (rejected for min_delta, silently
// clipped for detail and append_only), whether its publisher still
// publishes, and the exact restart setting. Pure: "now" is the snapshot's
// cluster time; the offsets are read in the zone the connector wrote them
// in.
package consumers
