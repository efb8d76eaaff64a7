package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// Regression tests for issue 12's metrics bullets: linters fail by default,
// a saved payload is judged by its own time, and offline is offline.

// TestMetricsLintBrokenFileExits1: `dorisdiag metrics lint broken.prom;
// echo $?` prints 1 on a payload a Prometheus server drops (a raw quote);
// --fail-on none opts out. A payload the server keeps while expfmt rejects
// it (a\q) is a warning (issue 21): exit 0, 1 at --fail-on warning.
func TestMetricsLintBrokenFileExits1(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "kept.prom")
	if err := os.WriteFile(kept, []byte("# TYPE x counter\nx{user=\"a\\q\"} 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := run(t, nil, "", "metrics", "lint", kept, "--no-color"); code != cmdutil.ExitOK || !strings.Contains(out, "DOES NOT PARSE") {
		t.Errorf("metrics lint of a payload the server keeps: exit %d, want 0\n%s", code, out)
	}
	if _, _, code := run(t, nil, "", "metrics", "lint", kept, "--fail-on", "warning"); code != cmdutil.ExitFindings {
		t.Errorf("--fail-on warning: exit %d, want 1", code)
	}
	broken := filepath.Join(t.TempDir(), "broken.prom")
	if err := os.WriteFile(broken, []byte("# TYPE x counter\nx{user=\"a\"q\"} 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, nil, "", "metrics", "lint", broken, "--no-color")
	if code != cmdutil.ExitFindings {
		t.Fatalf("metrics lint broken.prom: exit %d, want 1\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "DOES NOT PARSE") {
		t.Errorf("output does not say the payload does not parse:\n%s", out)
	}
	if _, _, code := run(t, nil, "", "metrics", "lint", broken, "--fail-on", "none"); code != cmdutil.ExitOK {
		t.Errorf("--fail-on none: exit %d, want 0", code)
	}
	if _, _, code := run(t, nil, "# TYPE x counter\nx{a=\"b\"} abc\n", "metrics", "lint", "-", "--fix"); code != cmdutil.ExitFindings {
		t.Errorf("--fix that cannot repair everything: exit %d, want 1", code)
	}
}

// TestMetricsScrapeAllUnreachableExits1: every target refusing the
// connection is exit 1 by default (it was 0), 0 only with --fail-on none.
func TestMetricsScrapeAllUnreachableExits1(t *testing.T) {
	var targets []string
	for i := 0; i < 2; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, "fe="+l.Addr().String())
		l.Close() // nothing listens there any more: connection refused
	}
	args := []string{"metrics", "scrape", "--targets", strings.Join(targets, ","), "--connect-timeout", "1s", "--no-color"}
	out, stderr, code := run(t, nil, "", args...)
	if code != cmdutil.ExitFindings {
		t.Fatalf("every target unreachable: exit %d, want 1\n%s%s", code, out, stderr)
	}
	if strings.Count(out, "METRICS_TARGET_UNREACHABLE") < 2 {
		t.Errorf("want a METRICS_TARGET_UNREACHABLE per target:\n%s", out)
	}
	if _, _, code := run(t, nil, "", append(args, "--fail-on", "none")...); code != cmdutil.ExitOK {
		t.Errorf("--fail-on none: exit %d, want 0", code)
	}
}

// TestMetricsLintSavedFileJudgedByItsOwnTime: a file saved when the monitor
// was fresh is not METRICS_MONITOR_STALE tomorrow; the file's modification
// time is the instant judged, --now overrides it.
func TestMetricsLintSavedFileJudgedByItsOwnTime(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "fe.prom")
	if err := os.WriteFile(saved, []byte(readFixture(t, "fe_master.prom")), 0o644); err != nil {
		t.Fatal(err)
	}
	// Saved 10 s after the monitor's last round (the fixture's timestamp).
	at := time.Unix(1796083200, 0)
	if err := os.Chtimes(saved, at, at); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, nil, "", "metrics", "lint", saved, "--no-color", "-o", "json")
	if code != cmdutil.ExitOK || strings.Contains(out, "METRICS_MONITOR_STALE") {
		t.Fatalf("saved file judged against the wall clock: exit %d\n%s%s", code, out, stderr)
	}
	out, _, code = run(t, nil, "", "metrics", "lint", saved, "--now", "1796090000", "-o", "json")
	if code != cmdutil.ExitFindings || !strings.Contains(out, "METRICS_MONITOR_STALE") {
		t.Errorf("--now 2 h later must find the monitor stale: exit %d\n%s", code, out)
	}
}

// offlineRun runs dorisdiag with a dialer that fails the test on any
// connection attempt.
func offlineRun(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" },
		DialContext: func(_ context.Context, network, addr string) (net.Conn, error) {
			t.Errorf("%v: dialed %s %s: --demo and --snapshot must never open a socket", args, network, addr)
			return nil, &net.OpError{Op: "dial", Net: network, Err: os.ErrPermission}
		}}
	code := Main(args, ios)
	if code == cmdutil.ExitError {
		t.Errorf("%v: exit 2: %s", args, errb.String())
	}
	return out.String(), code
}

// TestMetricsOfflineNeverDials: metrics scrape and lint on --demo and
// --snapshot analyse the stored payloads; nothing is fetched.
func TestMetricsOfflineNeverDials(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "incident.json")
	demo, _, code := run(t, nil, "", "snapshot", "--demo", "incident")
	if code != cmdutil.ExitOK {
		t.Fatalf("snapshot --demo incident: exit %d", code)
	}
	if err := os.WriteFile(snap, []byte(demo), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"metrics", "scrape", "--demo", "incident", "--no-color"},
		{"metrics", "scrape", "--snapshot", snap, "-o", "markdown"},
		{"metrics", "lint", "--demo", "incident"},
		{"metrics", "lint", "--snapshot", snap, "-o", "json"},
	} {
		if _, code := offlineRun(t, args...); code != cmdutil.ExitFindings {
			t.Errorf("%v: exit %d, want 1 (the incident has an unparseable Master payload)", args, code)
		}
	}
	out, code := offlineRun(t, "metrics", "scrape", "--demo", "incident", "-o", "json")
	var doc struct {
		Kind      string
		Stored    bool
		Discovery string
		Targets   []struct {
			Target struct{ Host string }
			URL    string
		}
		Findings []struct{ Code string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Kind != "metrics_scrape" || !doc.Stored || doc.Discovery != "demo" || len(doc.Targets) == 0 || code != cmdutil.ExitFindings {
		t.Errorf("kind %q stored %v discovery %q targets %d exit %d", doc.Kind, doc.Stored, doc.Discovery, len(doc.Targets), code)
	}
	for _, tg := range doc.Targets {
		if !strings.HasSuffix(strings.Split(tg.Target.Host, ":")[0], ".invalid") {
			t.Errorf("a bundled payload names %q, not a .invalid host", tg.Target.Host)
		}
	}
	if _, _, code := run(t, nil, "", "metrics", "scrape", "--demo", "incident", "--save", filepath.Join(t.TempDir(), "x.json")); code != cmdutil.ExitError {
		t.Errorf("--save with --demo: exit %d, want 2 (the payloads are already stored)", code)
	}
}
