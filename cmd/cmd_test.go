package cmd

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// run executes dorisdiag in-process with buffers and a fixed environment.
func run(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(stdin), Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] }}
	code = Main(args, ios)
	checkEmitted(t, args, out.String()) // docs/schema: every JSON document a test prints is valid
	return out.String(), errb.String(), code
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run go test ./cmd -update): %v", path, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden (run go test ./cmd -update to accept):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestExitCodeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"no-such-command"},
		{"version", "--no-such-flag"},
		{"version", "-o", "yaml"},
		{"version", "--fail-on", "sometimes"},
		{"version", "--timeout", "-1s"},
		{"version", "extra-arg"},
	} {
		_, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError {
			t.Errorf("%v: exit %d, want %d", args, code, cmdutil.ExitError)
		}
		if !strings.HasPrefix(stderr, "dorisdiag: ") {
			t.Errorf("%v: stderr %q does not start with \"dorisdiag: \"", args, stderr)
		}
		if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "Usage:") {
			t.Errorf("%v: stderr carries a stack or a usage dump: %q", args, stderr)
		}
	}
}

func TestExitCodeOK(t *testing.T) {
	out, _, code := run(t, nil, "", "version")
	if code != cmdutil.ExitOK || !strings.HasPrefix(out, "dorisdiag ") {
		t.Fatalf("version: exit %d, out %q", code, out)
	}
}

func TestNoSourceIsExit2(t *testing.T) {
	if _, err := testFactory(&cmdutil.Config{}).Source(cmdutil.SourceOptions{}).Load(); err == nil {
		t.Fatal("no source selected: want an error")
	}
	two := &cmdutil.Config{Demo: "incident", Conn: cmdutil.ConnOptions{Host: "h"}}
	if _, err := testFactory(two).Source(cmdutil.SourceOptions{}).Kind(); err == nil {
		t.Fatal("two sources: want an error")
	}
}

func TestGateFailOn(t *testing.T) {
	fs := []diag.Finding{{Code: streams.CodeDisabled, Severity: diag.SeverityWarning}}
	for _, tc := range []struct {
		failOn, def string
		want        int
	}{
		{"", "none", cmdutil.ExitOK},
		{"", "critical", cmdutil.ExitOK},
		{"warning", "none", cmdutil.ExitFindings},
		{"critical", "none", cmdutil.ExitOK},
		{"none", "critical", cmdutil.ExitOK},
	} {
		c := cmdutil.Common{IO: &cmdutil.IOStreams{}, Config: cmdutil.Config{FailOn: tc.failOn}}
		if got := cmdutil.ExitCodeFor(c.Gate(fs, tc.def), io.Discard, "dorisdiag"); got != tc.want {
			t.Errorf("--fail-on %q (default %s) with a warning: exit %d, want %d", tc.failOn, tc.def, got, tc.want)
		}
	}
}

// Colour only on a TTY, and never with --no-color or NO_COLOR.
func TestColorPolicy(t *testing.T) {
	args := []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z"}
	for _, tc := range []struct {
		tty     bool
		env     map[string]string
		extra   []string
		wantANS bool
	}{
		{tty: true, wantANS: true},
		{tty: false, wantANS: false},
		{tty: true, env: map[string]string{"NO_COLOR": "1"}, wantANS: false},
		{tty: true, extra: []string{"--no-color"}, wantANS: false},
	} {
		var out, errb bytes.Buffer
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, IsTTY: tc.tty, Getenv: func(k string) string { return tc.env[k] }}
		Main(append(append([]string{}, args...), tc.extra...), ios)
		if got := strings.Contains(out.String(), "\x1b["); got != tc.wantANS {
			t.Errorf("tty=%v env=%v extra=%v: ANSI present=%v, want %v", tc.tty, tc.env, tc.extra, got, tc.wantANS)
		}
	}
}

func TestJoinDemoValue(t *testing.T) {
	got := strings.Join(joinDemoValue([]string{"mv", "list", "--demo", "healthy", "--watch", "30s", "--demo", "mv_x", "--watch", "x", "--", "--demo", "legacy"}), " ")
	want := "mv list --demo=healthy --watch=30s --demo mv_x --watch x -- --demo legacy"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUnknownDemoScenarioIsNamed(t *testing.T) {
	_, stderr, code := run(t, nil, "", "mv", "list", "--demo", "nope")
	if code != cmdutil.ExitError || !strings.Contains(stderr, `unknown scenario "nope"`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// A bare --demo before a command name still means the default scenario.
	if _, stderr, code := run(t, nil, "", "--demo", "mv", "list"); code != cmdutil.ExitOK {
		t.Errorf("--demo mv list: exit %d, stderr %q", code, stderr)
	}
}

// Snapshot files form a series oldest first whatever order they are given in.
func TestSnapshotSeriesOrderedByClusterTime(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, shift := range []int64{0, -60_000, -30_000} { // newest given first
		s, err := scenario.Load("incident")
		if err != nil {
			t.Fatal(err)
		}
		s.Cluster.CurrentTSO += tso.TSO(shift << 18)
		s.Cluster.Now = time.Time{}
		var buf bytes.Buffer
		if err := snapshot.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		os.WriteFile(p, buf.Bytes(), 0o644)
		paths = append(paths, p)
	}
	series, err := testFactory(&cmdutil.Config{Snapshots: paths}).Source(cmdutil.SourceOptions{}).Load()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(series); i++ {
		if series[i-1].Cluster.CurrentTSO > series[i].Cluster.CurrentTSO {
			t.Fatalf("series not ordered by cluster time at %d", i)
		}
	}
}
