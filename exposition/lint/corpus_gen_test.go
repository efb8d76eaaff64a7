package lint

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var writeCorpus = flag.Bool("write-corpus", false, "write the fuzz seeds and fixtures into testdata/fuzz")

// TestWriteCorpus commits the seed corpus as files (go test fuzz v1), so the
// seeds also run from testdata/fuzz without -fuzz.
func TestWriteCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("set -write-corpus to rewrite testdata/fuzz")
	}
	// Only the small seeds: the fixture payloads (7-16 KB) made the fuzzer
	// spend its budget minimising; TestFixturesAgreeWithExpfmt runs them.
	inputs := append([]string(nil), fuzzSeeds...)
	for _, target := range []string{"FuzzLintAgreesWithExpfmt", "FuzzFixParses"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			name := fmt.Sprintf("seed-%x", sha256.Sum256([]byte(in)))[:21]
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
