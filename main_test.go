package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// BenchmarkTSODecodeProcess measures `dorisdiag tso decode` as a whole
// process — fork, exec, Go runtime start, cobra, decode, print — because it
// runs in cron and CI loops (design.md budget: under 20 ms). The binary is
// built once (testbin), outside the timed loop.
func BenchmarkTSODecodeProcess(b *testing.B) {
	bin := testbin.Dorisdiag(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exec.Command(bin, "tso", "decode", "469067681628160003").Output()
		if err != nil || len(out) == 0 {
			b.Fatalf("tso decode: %v", err)
		}
	}
}
