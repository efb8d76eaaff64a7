package cmdutil

import (
	"os"
	"testing"
)

// /dev/null is a character device but no terminal: output sent there is
// never paged, coloured or redrawn (it was: the pager ran under it).
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatalf("isTerminal(%s) = true", os.DevNull)
	}
}
