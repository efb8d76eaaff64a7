package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// Start-up budgets (docs/performance.md "Start-up and binary size"): what
// this module's package initialisers allocate when `dorisdiag tso decode`
// starts, read from the runtime's own trace (GODEBUG=inittrace=1; bytes and
// allocations, which are the same on every run of one binary — no clock is
// asserted). Tables, regular expressions and registries a command may need
// are built at their first use (sync.OnceValue); one built at start again —
// the 231 KB column lists of doris, the 45 KB of scrape/doctor's regexps,
// diag/metrics' 17 KB of design tables all were — fails here.
const (
	initBytesPerPackage = 12 << 10
	initBytesModule     = 80 << 10
)

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, [0-9.]+ ms clock, (\d+) bytes, (\d+) allocs$`)

func TestTSODecodeInitsStayWithinBudget(t *testing.T) {
	cmd := exec.Command(testbin.Dorisdiag(t), "tso", "decode", "470819222323200000")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tso decode: %v\n%s", err, stderr.String())
	}
	var total, pkgs int
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != testbin.Module && !strings.HasPrefix(m[1], testbin.Module+"/") {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		pkgs++
		total += n
		if n > initBytesPerPackage {
			t.Errorf("%s allocates %d bytes at start (budget %d): build what it makes at its first use (sync.OnceValue)", m[1], n, initBytesPerPackage)
		}
	}
	if pkgs == 0 {
		t.Fatalf("no init trace of this module's packages on stderr:\n%s", stderr.String())
	}
	if total > initBytesModule {
		t.Errorf("this module's %d package initialisers allocate %d bytes at start (budget %d)", pkgs, total, initBytesModule)
	}
	if !strings.Contains(stdout.String(), "2026-11-30T10:00:00.000Z") {
		t.Errorf("tso decode printed %q", stdout.String())
	}
}
