package snapshot_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// BenchmarkLoadScaleFile decodes a scale snapshot file (written by
// `dorisdiag snapshot --demo scale -f FILE`, named by DORISDIAG_SCALE_FILE).
func BenchmarkLoadScaleFile(b *testing.B) {
	path := os.Getenv("DORISDIAG_SCALE_FILE")
	if path == "" {
		b.Skip("set DORISDIAG_SCALE_FILE")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := snapshot.Load(bytes.NewReader(data), 0); err != nil {
			b.Fatal(err)
		}
	}
}
