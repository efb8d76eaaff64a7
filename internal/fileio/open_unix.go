//go:build unix

package fileio

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only with O_NONBLOCK, so that the open of
// a FIFO swapped in after the check returns at once instead of waiting for
// a writer; the flag is cleared again for the reads (a regular file ignores
// it anyway).
func openNonBlocking(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), false) })
	}
	return f, nil
}
