// Package metrics renders the /metrics documents: `metrics lint` of a
// payload or of a snapshot, `metrics scrape` and `metrics fix` (kinds
// "metrics_*"). Its renderers register with report from an init.
package metrics
