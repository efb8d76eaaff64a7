package exporter

// DropBodies forgets the encoded /metrics bodies, as a new published round
// does (benchmarks of the first scrape after a round).
func (e *Exporter) DropBodies() {
	e.enc.mu.Lock()
	e.enc.cur = nil
	e.enc.mu.Unlock()
}
