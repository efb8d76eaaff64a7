package exporter

import "sort"

// DropBodies forgets the encoded /metrics bodies, as a new published round
// does (benchmarks of the first scrape after a round).
func (e *Exporter) DropBodies() {
	e.enc.mu.Lock()
	e.enc.cur = nil
	e.enc.mu.Unlock()
}

// SeriesNames lists every family the exporter can serve (besides the Go and
// process collectors' go_* and process_*), sorted: for the tests of
// package exporter_test (the PromQL of the dashboards and rules names only
// these).
func SeriesNames() []string {
	n := append(append([]string(nil), newDescs().names...), LabelValuesTruncated) // the serving path adds it to the collector's
	sort.Strings(n)
	return n
}
