package exporter

import "sort"

// SeriesNames lists every family the exporter can serve (besides the Go and
// process collectors' go_* and process_*), sorted: for the tests of
// package exporter_test (the PromQL of the dashboards and rules names only
// these).
func SeriesNames() []string {
	n := append([]string(nil), newDescs().names...)
	sort.Strings(n)
	return n
}
