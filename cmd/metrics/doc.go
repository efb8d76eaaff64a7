// Package metrics is the `dorisdiag metrics` group: `lint` of a /metrics
// payload (a file, stdin or a snapshot; `--fix`) and `scrape` of the
// cluster's FE and BE endpoints.
package metrics
