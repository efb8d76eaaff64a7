package lint_test

import (
	"github.com/dorisdiag/dorisdiag/exposition/consumers"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"testing"
)

// BenchmarkPrometheusServer50MB: the server's verdict over the clean 50 MB
// Master FE payload, for comparison with BenchmarkLintClean50MB (the verdict
// is a second pass over the bytes, run when a report asks for it).
func BenchmarkPrometheusServer50MB(b *testing.B) {
	clean, _ := lint.Payloads(b)
	b.SetBytes(int64(len(clean)))
	b.ReportAllocs()
	for b.Loop() {
		if consumers.PrometheusServer(clean).Verdict != consumers.ServerKept {
			b.Fatal("the clean payload is dropped")
		}
	}
}
