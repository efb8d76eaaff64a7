package cmd

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// watchLine is the head of one NDJSON line of --watch -o json.
type watchLine struct {
	Kind  string `json:"kind"`
	Watch *struct {
		Round    int    `json:"round"`
		Time     string `json:"time"`
		Interval string `json:"interval"`
	} `json:"watch"`
	Error             string `json:"error"`
	FailingSinceRound int    `json:"failing_since_round"`
	LastGoodRound     int    `json:"last_good_round"`
}

// ndjsonLines parses stdout line by line, as `jq -c .kind` would: every
// line must be one whole JSON document.
func ndjsonLines(t *testing.T, args []string, out string) []watchLine {
	t.Helper()
	var got []watchLine
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if err := validateDocument([]byte(line)); err != nil {
			t.Errorf("%v: line %d: %v\n%.300s", args, i+1, err, line)
		}
		var l watchLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%v: line %d is not one JSON document: %v\n%.300s", args, i+1, err, line)
		}
		got = append(got, l)
	}
	return got
}

// TestWatchJSONIsNDJSON is the issue's "done when": `check --demo incident
// --watch 1s --watch-rounds 3 -o json | jq -c .kind` prints three lines. It
// failed on main: "# round N" lines between indented documents. Every
// command that has --watch (addWatchFlags) is run.
func TestWatchJSONIsNDJSON(t *testing.T) {
	for _, c := range []struct {
		args []string
		kind string
	}{
		{[]string{"check"}, "check"},
		{[]string{"streams"}, "streams"},
		{[]string{"streams", "show", "demo.s_orders_cdc"}, "stream"},
		{[]string{"mv", "list"}, "mv_list"},
		{[]string{"mv", "explain", "demo.mv_orders_daily"}, "mv_explain"},
	} {
		args := append(append([]string(nil), c.args...), "--demo", "incident", "--watch", "10ms", "--watch-rounds", "3", "-o", "json")
		out, stderr, code := run(t, nil, "", args...)
		if code == cmdutil.ExitError {
			t.Fatalf("%v: exit 2: %s", args, stderr)
		}
		lines := ndjsonLines(t, args, out)
		if len(lines) != 3 {
			t.Fatalf("%v: %d lines, want 3:\n%s", args, len(lines), out)
		}
		for i, l := range lines {
			if l.Kind != c.kind || l.Watch == nil || l.Watch.Round != i+1 || l.Watch.Time == "" || l.Watch.Interval != "10ms" {
				t.Errorf("%v: line %d: kind %q watch %+v", args, i+1, l.Kind, l.Watch)
			}
		}
	}
	// Without --watch the document is unchanged: indented, no "watch".
	out, _, _ := run(t, nil, "", "check", "--demo", "incident", "-o", "json")
	if strings.Contains(out, `"watch"`) || !strings.Contains(out, "\n  \"kind\"") {
		t.Errorf("check -o json without --watch changed:\n%.300s", out)
	}
}

// startEmulator serves scenario name on 127.0.0.1 and returns the source
// flags and the emulator (the test closes it to make a round fail).
func startEmulator(t *testing.T, name string) ([]string, *emulator.Emulator) {
	t.Helper()
	snap, err := scenario.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	e, err := emulator.New(snap, emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	return []string{"--host", host, "--port", port, "--http-port", hport, "--timeout", "5s"}, e
}

// closeAfterRound1 makes every round after the first fail: the cluster goes
// away once round 1 is written.
func closeAfterRound1(t *testing.T, e *emulator.Emulator) {
	t.Helper()
	cmdutil.WatchAfterRound = func(round int) {
		if round == 1 {
			e.Close()
		}
	}
	t.Cleanup(func() { cmdutil.WatchAfterRound = nil })
}

// TestWatchFailedRoundNeverLies: on main a failed round redrew the previous
// round under a new header, the screen ended in the old findings and the
// exit was that of the old data. Now each failed round says so, shows no old
// data as current, and the exit is 2.
func TestWatchFailedRoundNeverLies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	t.Run("pipe", func(t *testing.T) {
		live, e := startEmulator(t, "healthy")
		closeAfterRound1(t, e)
		args := append([]string{"streams", "--watch", "10ms", "--watch-rounds", "3", "--no-color"}, live...)
		out, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError {
			t.Fatalf("exit %d, want 2 (the last round failed)\n%s%s", code, out, stderr)
		}
		i := strings.Index(out, "# round 2 FAILED")
		if i < 0 || !strings.Contains(out, "# round 3 FAILED") || !strings.Contains(out, "failing since round 2") ||
			!strings.Contains(out, "the newest data is from round 1") || !strings.Contains(out, "it is not current") {
			t.Fatalf("the failed rounds do not say so:\n%s", out)
		}
		if rest := out[i:]; strings.Contains(rest, "No findings") || strings.Contains(rest, "s_") || strings.Count(rest, "\n") != 5 {
			t.Errorf("after the failure, old data is written again:\n%s", rest)
		}
		if !strings.Contains(stderr, "round 2:") || !strings.Contains(stderr, e.Addr()) {
			t.Errorf("stderr does not name the failed round and the host: %q", stderr)
		}
	})
	t.Run("tty", func(t *testing.T) {
		live, e := startEmulator(t, "healthy")
		closeAfterRound1(t, e)
		var outb, errb bytes.Buffer
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &outb, Err: &errb, IsTTY: true, Getenv: func(string) string { return "" }}
		code := Main(append([]string{"streams", "--watch", "10ms", "--watch-rounds", "2", "--no-color"}, live...), ios)
		screens := strings.Split(outb.String(), "\x1b[H\x1b[2J")
		final := screens[len(screens)-1]
		if code != cmdutil.ExitError || !strings.HasPrefix(final, "# round 2 FAILED") || !strings.Contains(final, "from round 1") {
			t.Fatalf("exit %d; the last screen must start with the failure:\n%s", code, final)
		}
		if strings.Contains(final, "# round 2 at cluster time") {
			t.Errorf("old data is shown under a new round header:\n%s", final)
		}
		// Issue 25 Why 7: the banner is pinned — the screen also ends with
		// it, so a long old output cannot scroll it out of sight.
		if lines := strings.Split(strings.TrimRight(final, "\n"), "\n"); len(lines) < 2 ||
			!strings.HasPrefix(lines[len(lines)-2], "# round 2 FAILED") || !strings.Contains(lines[len(lines)-1], "it is not current") {
			t.Errorf("the last screen does not end with the failure banner:\n%s", final)
		}
	})
	t.Run("json", func(t *testing.T) {
		live, e := startEmulator(t, "healthy")
		closeAfterRound1(t, e)
		args := append([]string{"check", "--no-metrics", "--watch", "10ms", "--watch-rounds", "3", "-o", "json"}, live...)
		out, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError {
			t.Fatalf("exit %d, want 2\n%s", code, stderr)
		}
		lines := ndjsonLines(t, args, out)
		if len(lines) != 3 || lines[0].Kind != "check" || lines[1].Kind != "watch_error" || lines[2].Kind != "watch_error" {
			t.Fatalf("want check, watch_error, watch_error:\n%s", out)
		}
		for _, l := range lines[1:] {
			if l.Error == "" || l.FailingSinceRound != 2 || l.LastGoodRound != 1 || l.Watch == nil {
				t.Errorf("watch_error %+v", l)
			}
		}
		if lines[2].Watch.Round != 3 {
			t.Errorf("last round %d", lines[2].Watch.Round)
		}
	})
	t.Run("prom", func(t *testing.T) {
		live, e := startEmulator(t, "healthy")
		closeAfterRound1(t, e)
		file := filepath.Join(t.TempDir(), "dorisdiag.prom")
		_, stderr, code := run(t, nil, "", append([]string{"check", "--no-metrics", "--watch", "10ms", "--watch-rounds", "2", "-o", "prom", "-f", file}, live...)...)
		data, err := os.ReadFile(file)
		if code != cmdutil.ExitError || err != nil {
			t.Fatalf("exit %d (%s), %v", code, stderr, err)
		}
		got := clusterLabel.ReplaceAllString(string(data), "")
		if !strings.Contains(got, "dorisdiag_watch_round_failed 1\n") || !strings.Contains(got, "dorisdiag_watch_round 2\n") ||
			strings.Contains(got, "dorisdiag_findings") {
			t.Errorf("the textfile of a failed round must say so and export no old finding count:\n%s", got)
		}
	})
}

// TestWatchPromNeedsFile: -o prom --watch appended textfiles to stdout under
// "# round" lines; it now needs -f FILE (usage error, exit 2).
func TestWatchPromNeedsFile(t *testing.T) {
	_, stderr, code := run(t, nil, "", "check", "--demo", "incident", "--watch", "10ms", "--watch-rounds", "1", "-o", "prom")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "-f FILE") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, _, code := run(t, nil, "", "check", "--demo", "incident", "--watch-rounds", "2"); code != cmdutil.ExitError {
		t.Errorf("--watch-rounds without --watch: exit %d, want 2", code)
	}
}

// TestWatchPromFileReplacedAtomically: each round renames a new file over
// the target (a new inode each round, never a rewrite in place), leaves no
// temp file behind, and the exit is that of the last round.
func TestWatchPromFileReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dorisdiag.prom")
	var seen []os.FileInfo
	cmdutil.WatchAfterRound = func(round int) {
		fi, err := os.Stat(file)
		if err != nil {
			t.Errorf("round %d: %v", round, err)
			return
		}
		seen = append(seen, fi)
	}
	defer func() { cmdutil.WatchAfterRound = nil }()
	out, stderr, code := run(t, nil, "", "check", "--demo", "incident", "--watch", "10ms", "--watch-rounds", "3", "-o", "prom", "-f", file)
	if code != cmdutil.ExitFindings || out != "" {
		t.Fatalf("exit %d, want 1 (the incident); stdout %q; stderr %s", code, out, stderr)
	}
	if len(seen) != 3 {
		t.Fatalf("%d rounds seen", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if os.SameFile(seen[i-1], seen[i]) {
			t.Errorf("round %d rewrote the file in place: want a rename of a new file", i+1)
		}
	}
	if seen[2].Mode().Perm() != 0o644 {
		// A node_exporter textfile is 0644 (issue 20; docs/security.md
		// "Files"): a collector running as another user reads it.
		t.Errorf("mode %v, want 0644", seen[2].Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	data, _ := os.ReadFile(file)
	if got := clusterLabel.ReplaceAllString(clusterFirst.ReplaceAllString(string(data), "{"), ""); !strings.Contains(got, "dorisdiag_watch_round 3\n") || !strings.Contains(got, "dorisdiag_watch_round_failed 0\n") ||
		!strings.Contains(got, `dorisdiag_findings{severity="critical"}`) || strings.Contains(got, "# round") {
		t.Errorf("textfile:\n%s", got)
	}
}
