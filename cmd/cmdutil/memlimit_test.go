package cmdutil

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// limitMemory sets 3× the snapshot files, less what lives outside the heap,
// only for regular files, and never over a GOMEMLIMIT the user set ("off"
// reads back as no limit, like an unset one, so the environment is asked).
// A FIFO is not opened: opening it for reading blocked `check --snapshot
// FIFO` until a writer came, where every other command refuses it at once.
func TestLimitMemory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	if err := os.WriteFile(file, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 100<<20); err != nil { // sparse: only its size is read
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		name, snapshot, env string
		want                int64 // 0: not set
	}{
		{"a regular file", file, "", 3*(100<<20) - memoryOutside},
		{"GOMEMLIMIT=off", file, "off", 0},
		{"GOMEMLIMIT set", file, "1GiB", 0},
		{"standard input", "-", "", 0},
		{"a FIFO", fifo, "", 0},
	} {
		var set int64
		s := &Source{cfg: Config{Snapshots: []string{c.snapshot}}, opt: SourceOptions{LimitMemory: true}, goMemLimit: c.env,
			setMemoryLimit: func(n int64) int64 {
				if n >= 0 {
					set = n
				}
				return math.MaxInt64
			}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		done := make(chan struct{})
		go func() { s.limitMemory(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			// Unblock the open so the goroutine ends, then fail.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			<-done
			t.Errorf("%s: limitMemory blocked", c.name)
		}
		cancel()
		if set != c.want {
			t.Errorf("%s: limit %d, want %d", c.name, set, c.want)
		}
	}
}
