package cmd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryDoesNotLinkGMS: the dorisdiag binary must not link
// go-mysql-server (the emulator adds ~50 MB; design.md "The pipeline").
// Test imports do not count: go list -deps of the main package lists what
// the binary links.
func TestBinaryDoesNotLinkGMS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/dorisdiag/dorisdiag").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/dolthub/") || strings.HasSuffix(pkg, "/fixtures/emulator") {
			t.Errorf("the dorisdiag binary links %s", pkg)
		}
	}
}
