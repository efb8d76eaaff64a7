//go:build unix

package fileio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// A FIFO with no writer is refused at once: the open used to block forever
// (issue 14: `mkfifo f; dorisdiag check --snapshot f`). If the refusal
// regressed, the open would block and the test would hang rather than
// pass, so it runs the open in a goroutine with no writer ever coming.
func TestOpenInputRefusesFIFOWithoutBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	mkfifo(t, p)
	f, _, err := OpenInput(p)
	if err == nil {
		f.Close()
		t.Fatal("a FIFO was opened as an input")
	}
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is a FIFO (named pipe), not a regular file") ||
		!strings.Contains(err.Error(), "- to read standard input") {
		t.Fatalf("error %q, want the FIFO refusal with the stdin hint", err)
	}
}

// The check after the open refuses what the open found, so a FIFO swapped
// in after the path was checked is not read (and, opened O_NONBLOCK, does
// not block the open).
func TestOpenNonBlockingDoesNotBlockOnFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	mkfifo(t, p)
	f, err := openNonBlocking(p)
	if err != nil {
		t.Fatalf("non-blocking open of a FIFO: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Mode().IsRegular() {
		t.Fatalf("fstat of the FIFO: %v, %v", fi, err)
	}
}

func TestOpenInputRefusesDirectoryAndDevice(t *testing.T) {
	for path, want := range map[string]string{
		t.TempDir(): "is a directory, not a regular file",
		"/dev/zero": "is a character device, not a regular file",
		"/dev/null": "is a character device, not a regular file",
	} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		f, _, err := OpenInput(path)
		if err == nil {
			f.Close()
			t.Fatalf("%s was opened as an input", path)
		}
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %q, want %q", path, err, want)
		}
	}
}

func TestOpenInputReadsRegularFileAndSymlink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "in")
	os.WriteFile(p, []byte("data"), 0o600)
	l := filepath.Join(dir, "link")
	os.Symlink(p, l)
	for _, path := range []string{p, l} {
		f, fi, err := OpenInput(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != "data" || fi.Size() != 4 {
			t.Fatalf("%s: read %q, %v, size %d", path, b, err, fi.Size())
		}
	}
	if _, err := ReadInput(p, 3); err == nil || !strings.Contains(err.Error(), "larger than 3 bytes") {
		t.Fatalf("ReadInput over the limit: %v", err)
	}
}

// /dev/null (and any device) is refused as an output by the check alone:
// issue 14 had `snapshot -f /dev/null`, run as root, replace /dev/null with
// a regular file. The test never calls WriteAtomic on it, so a regression
// cannot damage the machine running the tests.
func TestCheckOutputRefusesDevice(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	for _, p := range []string{"/dev/null", "/dev/zero"} {
		_, err := CheckOutput(p)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is a character device") || !strings.Contains(err.Error(), "- for standard output") {
			t.Fatalf("CheckOutput(%s) = %v, want the device refusal", p, err)
		}
	}
	// A symbolic link to a device is judged by the device.
	l := filepath.Join(t.TempDir(), "null")
	os.Symlink("/dev/null", l)
	if _, err := CheckOutput(l); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("CheckOutput(link to /dev/null) = %v, want the device refusal", err)
	}
}

// A FIFO or a directory target is refused and left as it was, and no
// temporary file is left behind.
func TestWriteAtomicRefusesFIFOAndDirectory(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	for p, want := range map[string]string{fifo: "is a FIFO (named pipe)", sub: "is a directory"} {
		called := false
		err := WriteAtomic(p, func(w io.Writer) error { called = true; return nil })
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
			t.Fatalf("WriteAtomic(%s) = %v, want %q", p, err, want)
		}
		if called {
			t.Fatalf("WriteAtomic(%s) wrote before refusing", p)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
	if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
		t.Fatalf("the directory was replaced: %v %v", fi, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("left behind: %v", ents)
	}
}

// A new path and an existing regular file are written with mode 0600 (a
// 0644 file is replaced by a 0600 one); a symbolic link to a regular file
// keeps being a link, to the new content.
func TestWriteAtomicModeAndTargets(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	os.WriteFile(existing, []byte("old"), 0o644)
	link := filepath.Join(dir, "link")
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink(target, link)
	for _, p := range []string{filepath.Join(dir, "new"), existing, link} {
		if err := WriteFileAtomic(p, []byte("new")); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, _ := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if string(b) != "new" || fi.Mode().Perm() != Mode {
			t.Fatalf("%s: %q mode %v, want \"new\" mode %v", p, b, fi.Mode().Perm(), Mode)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", fi, err)
	}
	// A failed write leaves the old file and no temporary file.
	err := WriteAtomic(existing, func(w io.Writer) error { w.Write([]byte("half")); return errors.New("boom") })
	if err == nil {
		t.Fatal("a failed write reported success")
	}
	if b, _ := os.ReadFile(existing); string(b) != "new" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}
