// Package mv diagnoses IVM materialized views (apache/doris#69907 §1 S1–S3):
// is an MV fresh, how far behind and why; has it stopped refreshing; has
// incremental refresh turned into recomputation? It builds on the stream
// analysis of the MV's internal streams (package streams): dependencies,
// the freshness state and data delay (§3), the lagging reason, the MV
// checks (their codes declared beside them; their list is also the order of
// `mv explain`), the headline and the SQL to paste. The refresh history and
// the classification of each task are package refresh (diag/mv/refresh),
// which the checks read.
package mv
