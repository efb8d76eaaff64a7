// Package refresh classifies an MV's refresh tasks and summarises its
// refresh history (apache/doris#69907 §3 "Refresh result, method and
// fallback"; §1 S3): one tasks() row becomes a TaskClass — its result
// (typed RefreshResult), its method (typed RefreshMethod), whether it was a
// fallback, the failure reason inferred from the error text (the IVM
// reasons, the failing stage, the retryable bounded-read errors 5100 and
// 5101) — and the bounded window of tasks becomes a History: the last
// success and failure, consecutive failures, fallbacks in the window, the
// duration trend.
//
// It reads only the snapshot's rows: it raises no finding and declares no
// code. The checks that judge a history (MV_CONSECUTIVE_FAILURES,
// MV_INCR_WINDOW_NOT_READY, ...) stay in package mv beside their
// declarations; mv and the exporter's round counters import this package,
// never the reverse.
package refresh
