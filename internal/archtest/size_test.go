package archtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxPackageLines is issue 19's bound on a package: "no package of the module
// over ~3,000 non-test lines". Past it, a package holds more than one
// concept a reader can keep in mind: cut it by concept, as docs/architecture.md
// says for diag, report, exposition, scrape and the emulator.
const maxPackageLines = 3000

// Why (issue 19): fixtures/emulator was 3,488 non-test lines. Every package
// of the module is within the bound, counted over its non-test .go files.
func TestNoPackageOverThreeThousandLines(t *testing.T) {
	for _, p := range load(t) {
		n := 0
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			n += bytes.Count(b, []byte("\n"))
		}
		if n > maxPackageLines {
			t.Errorf("%s: %d non-test lines, over %d: cut it by concept (docs/architecture.md)", p.ImportPath, n, maxPackageLines)
		}
	}
}
