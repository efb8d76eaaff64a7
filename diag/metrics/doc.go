// Package metrics is the one analysis of FE/BE /metrics payloads
// (docs/metrics.md): the exposition linter's problems, conformance to the
// monitoring design's series (apache/doris#69907 §2), the S5 signals of the
// TTL cleanup, the rule that only the Master FE exports state series, and
// the findings and codes of all of it. `metrics lint`, `metrics scrape` and
// `check` call the same AnalyzePayloads.
package metrics
