package cmdutil

import (
	"math"
	"os"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The soft memory limit of a check of snapshot files: 3× their size, less
// what the process holds outside the Go heap (the mapped binary: the max
// RSS measured sits up to 13 MB over the limit) with a margin, and never
// below memoryFloor.
const (
	memoryFloor   = 64 << 20
	memoryOutside = 24 << 20
)

// limitMemory sets a soft memory limit (runtime/debug.SetMemoryLimit) of
// 3× the size of the --snapshot files, less memoryOutside, before they are
// read: issue 24's bound on a check of a snapshot. The collector then runs
// as the heap nears the limit instead of letting it grow to twice the live
// data (GOGC=100), so the peak follows what the diagnosis holds, not the
// garbage made on the way. It is a soft limit: a live heap above it is
// never refused, only collected more often (the runtime caps the
// collector at about half the CPU). Nothing is set when GOMEMLIMIT is (even "off"),
// when a file is standard input or a gzip bundle (whose snapshot is larger
// than the file), outside the real process (IOStreams.SetMemoryLimit), or
// for a command that holds every stream's diagnosis (only check asks:
// SourceOptions.LimitMemory).
func (s *Source) limitMemory() {
	// GOMEMLIMIT=off reads back as no limit, like an unset one: the
	// environment is asked too, so that a user's "off" wins.
	if !s.opt.LimitMemory || s.setMemoryLimit == nil || s.goMemLimit != "" || s.setMemoryLimit(-1) != math.MaxInt64 {
		return
	}
	var total int64
	for _, p := range s.cfg.Snapshots {
		if p == "-" {
			return
		}
		// Stat before open: opening a FIFO for reading blocks until a
		// writer comes, and the loader refuses anything but a regular
		// file with its own message.
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return
		}
		f, err := os.Open(p)
		if err != nil {
			return
		}
		var magic [2]byte
		n, _ := f.ReadAt(magic[:], 0)
		fi, err := f.Stat()
		f.Close()
		if err != nil || !fi.Mode().IsRegular() || (n == 2 && snapshot.IsGzip(magic[:])) {
			return
		}
		total += fi.Size()
	}
	if total > 0 {
		s.setMemoryLimit(max(memoryFloor, 3*total-memoryOutside))
	}
}
