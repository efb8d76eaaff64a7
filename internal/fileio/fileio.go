// Package fileio is the one place dorisdiag opens a file it reads or
// replaces a file it writes (docs/security.md "Files").
//
// Inputs (--snapshot FILE, metrics lint FILE, --config FILE, --tls-ca FILE)
// must be regular files: a FIFO, a device, a socket or a directory is
// refused at once, before a read can block or run unbounded (a FIFO used to
// hang on open; /dev/zero used to be read to the size limit). "-" (stdin)
// is the caller's business: it is never a path here.
//
// Outputs (snapshot -f, -f/--watch -f, metrics scrape --save, metrics lint
// --fix -w) are written by WriteAtomic: a temporary file in the target's
// directory, fsync, rename. The target must be a regular file or not exist:
// a device, a FIFO or a directory is refused before anything is written, so
// `snapshot -f /dev/null` run as root can no longer replace /dev/null with a
// regular file. Everything is written with mode Mode (0600: a snapshot
// names every object of the cluster), except what a caller writes with
// WriteAtomicMode: a node_exporter textfile is written 0644 by default
// (--file-mode), so a collector running as another user can read it.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mode is the file mode of every file dorisdiag writes.
const Mode fs.FileMode = 0o600

// kind names a file mode that is not a regular file, as a user reads it.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "not a regular file"
	}
	return "not a regular file"
}

// ErrNotRegular is wrapped by every refusal of a file that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

type notRegularError struct {
	path, what, hint string
}

func (e *notRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file%s", e.path, e.what, e.hint)
}

func (e *notRegularError) Unwrap() error { return ErrNotRegular }

// OpenInput opens path for reading, refusing anything but a regular file
// (symbolic links are followed). The path is checked before it is opened
// (so a FIFO is never opened), opened non-blocking (so a FIFO swapped in
// between cannot block the open) and checked again on the open file (so
// what is read is what was checked). The returned FileInfo is the open
// file's.
func OpenInput(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &notRegularError{path, kind(fi.Mode()), inputHint}
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &notRegularError{path, kind(fi.Mode()), inputHint}
	}
	return f, fi, nil
}

// inputHint tells how to read from a pipe anyway.
const inputHint = ": give a file, or - to read standard input"

// ReadInput reads a whole regular file of at most max bytes (OpenInput's
// rules), refusing a larger one with an error that names the limit.
func ReadInput(path string, max int64) ([]byte, error) {
	f, fi, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}

// CheckOutput says whether path may be replaced by WriteAtomic: it must not
// exist or be a regular file (a symbolic link is judged by what it points
// to). It writes nothing. It returns the path the rename will replace: the
// link's target for a symbolic link, so that the link itself survives.
func CheckOutput(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if errors.Is(err, fs.ErrNotExist) {
			// A dangling link: creating its target is what writing
			// through the link would do; refuse instead of guessing.
			return "", fmt.Errorf("%s is a symbolic link to a missing file", path)
		}
		if err != nil {
			return "", err
		}
		if fi, err = os.Stat(target); err != nil {
			return "", err
		}
		if !fi.Mode().IsRegular() {
			return "", &notRegularError{path, kind(fi.Mode()), outputHint}
		}
		return target, nil
	}
	if !fi.Mode().IsRegular() {
		return "", &notRegularError{path, kind(fi.Mode()), outputHint}
	}
	return path, nil
}

// outputHint tells how to write to a pipe or a terminal anyway.
const outputHint = ": give a regular file or a new path, or - for standard output"

// WriteAtomic replaces path with what write writes, the node_exporter
// textfile way: a temporary file in the same directory (mode Mode), fsync,
// rename. A reader sees the old file or the new one, never a half-written
// one; on any error the temporary file is removed and path is untouched.
// path must pass CheckOutput, before anything is written and again just
// before the rename.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return WriteAtomicMode(path, Mode, write)
}

// TextfileMode is the default mode of a node_exporter textfile (-o prom -f):
// readable by a collector running as another user (docs/security.md "Files").
const TextfileMode fs.FileMode = 0o644

// ParseMode reads a --file-mode value: octal permission bits, 0000–0777
// ("0644", "644", "0o640").
func ParseMode(s string) (fs.FileMode, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0o"), "0O")
	v, err := strconv.ParseUint(t, 8, 32)
	if err != nil || t == "" || v > 0o777 {
		return 0, fmt.Errorf("%q is not an octal file mode between 0000 and 0777", s)
	}
	return fs.FileMode(v), nil
}

// WriteAtomicMode is WriteAtomic with the file's permission bits (the
// process umask does not apply: the mode is set with chmod).
func WriteAtomicMode(path string, mode fs.FileMode, write func(io.Writer) error) (err error) {
	target, err := CheckOutput(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(mode.Perm()); err != nil {
		return err
	}
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	// Again: the target may have been replaced by a FIFO or a device while
	// the file was written.
	if again, cerr := CheckOutput(path); cerr != nil {
		return cerr
	} else if again != target {
		return fmt.Errorf("%s changed while it was written", path)
	}
	if err = os.Rename(tmp, target); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // the rename itself survives a crash; best effort
		d.Close()
	}
	return nil
}

// WriteFileAtomic is WriteAtomic of data.
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicMode(path, Mode, data)
}

// WriteFileAtomicMode is WriteAtomicMode of data.
func WriteFileAtomicMode(path string, mode fs.FileMode, data []byte) error {
	return WriteAtomicMode(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
