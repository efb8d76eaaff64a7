package cmdutil

import "github.com/dorisdiag/dorisdiag/internal/fileio"

// checkOutput refuses, before any work, an output path WriteAtomic would
// refuse after it: a device, a FIFO, a directory ("" and "-" are stdout).
func CheckOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	_, err := fileio.CheckOutput(path)
	return err
}
