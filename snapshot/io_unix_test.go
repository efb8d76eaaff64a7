//go:build unix

package snapshot

import (
	"strings"
	"syscall"
	"testing"
)

// TestLoadFileRefusesFIFO: a FIFO with no writer is refused without being
// opened (it blocked the open forever, issue 14: a regression hangs here).
func TestLoadFileRefusesFIFO(t *testing.T) {
	fifo := t.TempDir() + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	_, err := LoadFile(fifo, 0)
	if err == nil || !strings.Contains(err.Error(), "is a FIFO (named pipe), not a regular file: give a file, or - to read standard input") {
		t.Fatalf("error %v, want the FIFO refusal", err)
	}
}
