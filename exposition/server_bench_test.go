package exposition

import "testing"

// BenchmarkPrometheusServer50MB: the server's verdict over the clean 50 MB
// Master FE payload, for comparison with BenchmarkLintClean50MB (the verdict
// is a second pass over the bytes, run when a report asks for it).
func BenchmarkPrometheusServer50MB(b *testing.B) {
	clean, _ := payloads(b)
	b.SetBytes(int64(len(clean)))
	b.ReportAllocs()
	for b.Loop() {
		if PrometheusServer(clean).Verdict != ServerKept {
			b.Fatal("the clean payload is dropped")
		}
	}
}
