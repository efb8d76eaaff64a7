//go:build unix

package cmd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// docs/security.md "Files": every rule below is one of issue 14's cases.

func mkfifo(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// runNoHang runs dorisdiag in-process; if it blocks on the FIFO (what it
// used to do: `mkfifo f; dorisdiag check --snapshot f` hung on the open),
// a watchdog opens the FIFO for writing and closes it, which unblocks the
// open, and the test fails as a hang. The watchdog only detects a hang;
// no test asserts how long anything takes.
func runNoHang(t *testing.T, fifo string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var done atomic.Bool
	var fired atomic.Bool
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for !done.Load() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !done.Load() {
			fired.Store(true)
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}
	}()
	out, stderr, code := run(t, nil, stdin, args...)
	done.Store(true)
	if fired.Load() {
		t.Fatalf("%v blocked on the FIFO until a writer came", args)
	}
	return out, stderr, code
}

// Why 8 (issue 14): a FIFO given as an input file is refused at once, exit
// 2 (a bad input file, docs/cli.md "Exit codes"), with the hint to use -.
func TestInputFIFORefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir)
	for _, args := range [][]string{
		{"check", "--snapshot", fifo},
		{"streams", "--snapshot", fifo},
		{"metrics", "lint", fifo},
		{"metrics", "lint", "--fix", fifo},
		{"check", "--demo", "incident", "--config", fifo},
	} {
		out, stderr, code := runNoHang(t, fifo, "", args...)
		if code != cmdutil.ExitError {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
		if !strings.Contains(stderr, fifo+" is a FIFO (named pipe), not a regular file: give a file, or - to read standard input") {
			t.Errorf("%v: stderr %q, want the FIFO refusal", args, stderr)
		}
		if out != "" {
			t.Errorf("%v: printed %q on stdout", args, out)
		}
	}
}

// Directories and devices are refused as inputs the same way.
func TestInputDirectoryAndDeviceRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"check", "--snapshot", dir},
		{"metrics", "lint", dir},
		{"check", "--snapshot", "/dev/zero"},
		{"metrics", "lint", "/dev/zero"},
		{"check", "--demo", "incident", "--config", "/dev/zero"},
	} {
		_, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%v: exit %d %q, want 2 and the refusal", args, code, stderr)
		}
	}
}

// --snapshot - reads standard input, once.
func TestSnapshotFromStdin(t *testing.T) {
	snap, _, code := run(t, nil, "", "snapshot", "--demo", "incident")
	if code != cmdutil.ExitOK {
		t.Fatal("snapshot --demo incident failed")
	}
	out, stderr, code := run(t, nil, snap, "streams", "--snapshot", "-", "-o", "json")
	if code != cmdutil.ExitOK || !strings.Contains(out, `"streams"`) {
		t.Fatalf("streams --snapshot -: exit %d %s", code, stderr)
	}
	if _, stderr, code := run(t, nil, snap, "check", "--snapshot", "-", "--snapshot", "-"); code != cmdutil.ExitError || !strings.Contains(stderr, "can be given once") {
		t.Errorf("two --snapshot -: exit %d %q", code, stderr)
	}
	if _, stderr, code := run(t, nil, "\x00\x00\x00", "check", "--snapshot", "-"); code != cmdutil.ExitError || !strings.Contains(stderr, "standard input: not a dorisdiag snapshot") {
		t.Errorf("NULs on stdin: exit %d %q", code, stderr)
	}
}

// peakMemoryEnv names the file testbin.DorisdiagTest writes its peak
// resident set (VmHWM: its own, unlike the rusage max RSS, which a child
// started by os/exec inherits from this large test process) and total heap
// allocation to.
const peakMemoryEnv = "DORISDIAG_TEST_PEAK_MEMORY_FILE"

// childPeak runs dorisdiag (testbin.DorisdiagTest) with args and stdin, and
// returns its exit code, stderr, peak resident set (VmHWM) and total heap
// allocation.
func childPeak(t *testing.T, stdin *os.File, args ...string) (int, string, int64, int64) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "peak")
	c := exec.Command(testbin.Build(t, testbin.DorisdiagTest), args...)
	c.Env = append(os.Environ(), peakMemoryEnv+"="+report)
	c.Stdin = stdin
	var stderr strings.Builder
	c.Stderr = &stderr
	c.Run()
	if c.ProcessState == nil {
		t.Fatalf("%v did not run: %s", args, stderr.String())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("%v: no peak report: %v %s", args, err, stderr.String())
	}
	var hwm, alloc int64
	fmt.Sscanf(string(b), "%d %d", &hwm, &alloc)
	return c.ProcessState.ExitCode(), stderr.String(), hwm, alloc
}

// Why 11 (issue 14): `dorisdiag check --snapshot - < /dev/zero` reached
// 1.27 GB resident before the 512 MiB refusal. It is refused after its first
// bytes: the child's peak resident set and total heap allocation (an upper
// bound of its peak heap) exceed those of `dorisdiag version` (the same
// binary doing nothing) by a few MB, not by the 512 MiB it used to buffer.
func TestDevZeroOnStdinRefusedAfterFirstBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero")
	}
	defer zero.Close()
	_, _, baseHWM, baseAlloc := childPeak(t, zero, "version")
	code, stderr, hwm, alloc := childPeak(t, zero, "check", "--snapshot", "-")
	if code != cmdutil.ExitError {
		t.Fatalf("exit %d, want 2: %s", code, stderr)
	}
	if !strings.Contains(stderr, `standard input: not a dorisdiag snapshot`) || !strings.Contains(stderr, `'\x00'`) {
		t.Errorf("stderr %q, want the refusal naming the NUL byte", stderr)
	}
	t.Logf("child: peak RSS (VmHWM) %d MB (version: %d MB), total heap allocation %d MB (version: %d MB)", hwm>>20, baseHWM>>20, alloc>>20, baseAlloc>>20)
	if alloc-baseAlloc > 16<<20 {
		t.Errorf("refusing /dev/zero allocated %d MB more heap than version, want under 16 MB (it used to buffer 512 MiB)", (alloc-baseAlloc)>>20)
	}
	if hwm < 0 {
		t.Skip("no VmHWM in /proc/self/status")
	}
	if hwm-baseHWM > 32<<20 {
		t.Errorf("refusing /dev/zero: peak RSS %d MB over version's, want under 32 MB (it was 1.27 GB)", (hwm-baseHWM)>>20)
	}
}

// Why 3 (issue 14): an output target that is a FIFO, a directory or a
// character device is refused before anything is written, and left as it
// was (`snapshot -f /dev/null` as root replaced /dev/null with a regular
// file). The device is a node made in the test's own directory, with
// /dev/null's numbers (1, 3), when the test may make one (root): a
// regression replaces that node, never the real /dev/null; /dev/null
// itself is covered by internal/fileio's TestCheckOutputRefusesDevice,
// which never writes. Exit 2; nothing on stdout.
func TestOutputFIFOAndDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	payload := filepath.Join(dir, "in.prom")
	os.WriteFile(payload, []byte("# TYPE x counter\nx 1\n"), 0o600)
	targets := []struct{ path, want string }{{fifo, "is a FIFO (named pipe), not a regular file"}, {sub, "is a directory, not a regular file"}}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o600, 1<<8|3); err == nil {
		targets = append(targets, struct{ path, want string }{null, "is a character device, not a regular file"})
	} else {
		t.Logf("no device node (%v): the device target is covered by TestCheckOutputRefusesDevice only", err)
	}
	for _, target := range targets {
		for _, args := range [][]string{
			{"snapshot", "--demo", "incident", "-f", target.path},
			{"snapshot", "--demo", "incident", "--summary", "-f", target.path},
			{"check", "--demo", "incident", "-o", "prom", "--fail-on", "none", "-f", target.path},
			{"check", "--demo", "incident", "-o", "prom", "--watch", "10ms", "--watch-rounds", "1", "-f", target.path},
			{"metrics", "lint", "--fix", payload, "-w", target.path},
			{"metrics", "scrape", "--snapshot", payload, "--targets", "127.0.0.1:1", "--save", target.path},
		} {
			out, stderr, code := runNoHang(t, fifo, "", args...)
			if code != cmdutil.ExitError || !strings.Contains(stderr, target.path+" "+target.want) || !strings.Contains(stderr, "- for standard output") {
				t.Errorf("%v: exit %d %q, want 2 and %q", args, code, stderr, target.want)
			}
			if out != "" {
				t.Errorf("%v: printed %q on stdout", args, out)
			}
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
		t.Errorf("the directory was replaced: %v %v", fi, err)
	}
	if len(targets) == 3 {
		if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("the device node was replaced: %v %v", fi, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(targets)+1 {
		t.Errorf("files left behind: %v", ents)
	}
}

// Why 11 (issue 14, the file part): one mode, 0600, for everything the
// tool writes (`metrics scrape --save` wrote 0644, and so did -f); an
// existing 0644 file is replaced by a 0600 one — except a node_exporter
// textfile (-o prom -f), written 0644 so that a collector running as
// another user reads it (issue 20 item 4; --file-mode changes it).
func TestEveryOutputIs0600(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.json")
	if _, stderr, code := run(t, nil, "", "snapshot", "--demo", "incident", "-f", snap); code != cmdutil.ExitOK {
		t.Fatal(stderr)
	}
	payload := filepath.Join(dir, "in.prom")
	os.WriteFile(payload, []byte("# TYPE x counter\nx 1\n"), 0o600)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("# TYPE x counter\nx 1\n")) }))
	defer srv.Close()
	target := "fe=" + strings.TrimPrefix(srv.URL, "http://")
	for i, args := range [][]string{
		{"snapshot", "--demo", "incident", "-f", "F"},
		{"snapshot", "--demo", "incident", "--summary", "-f", "F"},
		{"check", "--demo", "incident", "-o", "prom", "--fail-on", "none", "-f", "F"},
		{"check", "--demo", "incident", "-o", "prom", "--fail-on", "none", "--watch", "10ms", "--watch-rounds", "1", "-f", "F"},
		{"metrics", "lint", "--fix", payload, "-w", "F"},
		{"metrics", "scrape", "--snapshot", snap, "--targets", target, "--fail-on", "none", "--save", "F"},
		{"bundle", "--demo", "incident", "--force", "-f", "F"},
	} {
		for _, existing := range []bool{false, true} {
			f := filepath.Join(dir, fmt.Sprintf("out%d-%v", i, existing))
			if existing {
				os.WriteFile(f, []byte("old"), 0o644)
			}
			a := append([]string(nil), args...)
			a[len(a)-1] = f
			if _, stderr, code := run(t, nil, "", a...); code != cmdutil.ExitOK {
				t.Fatalf("%v: exit %d %s", a, code, stderr)
			}
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatalf("%v: %v", a, err)
			}
			want := os.FileMode(0o600)
			if args[0] == "check" {
				want = 0o644 // -o prom: a node_exporter textfile
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%v (existing %v): mode %v, want %v", args[:2], existing, fi.Mode().Perm(), want)
			}
			if b, _ := os.ReadFile(f); string(b) == "old" {
				t.Errorf("%v: file not replaced", args[:2])
			}
		}
	}
}

// -f - is stdout, for snapshot and for -f of every command.
func TestDashFileIsStdout(t *testing.T) {
	out, stderr, code := run(t, nil, "", "snapshot", "--demo", "incident", "-f", "-")
	var doc struct{ Kind string }
	if code != cmdutil.ExitOK || json.Unmarshal([]byte(out), &doc) != nil || doc.Kind != "snapshot" {
		t.Fatalf("snapshot -f -: exit %d %s %.80q", code, stderr, out)
	}
	out, stderr, code = run(t, nil, "", "check", "--demo", "incident", "-o", "prom", "--fail-on", "none", "-f", "-")
	if code != cmdutil.ExitOK || !strings.Contains(out, "# TYPE dorisdiag_") {
		t.Fatalf("check -f -: exit %d %s %.80q", code, stderr, out)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Fatal(`-f - wrote a file named "-"`)
	}
	if _, stderr, code := run(t, nil, "", "snapshot", "--demo", "incident", "--summary", "-f", "-"); code != cmdutil.ExitError || !strings.Contains(stderr, "both go to stdout") {
		t.Errorf("--summary -f -: exit %d %q", code, stderr)
	}
}

// Issue 25 Why 5: --web.config.file naming a FIFO is refused at once (it
// blocked forever in open(2), deaf to SIGTERM), as snapshots are.
func TestWebConfigFIFORefusedAtOnce(t *testing.T) {
	fifo := mkfifo(t, t.TempDir())
	_, stderr, code := runNoHang(t, fifo, "", "exporter", "--demo", "incident", "--web.listen-address", "127.0.0.1:0", "--web.config.file", fifo)
	if code != cmdutil.ExitError || !strings.Contains(stderr, "--web.config.file: "+fifo+" is a FIFO") {
		t.Errorf("exit %d, stderr %q: want 2 and the FIFO refusal", code, stderr)
	}
}
