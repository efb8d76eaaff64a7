package cmd

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/emutest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/roundtrip"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

func TestSnapshotDemoSummaryGolden(t *testing.T) {
	for _, name := range []string{"incident", "legacy"} {
		for _, f := range []string{"table", "json", "markdown"} {
			out, stderr, code := run(t, nil, "", "snapshot", "--demo", name, "--summary", "-o", f)
			if code != cmdutil.ExitOK {
				t.Fatalf("%s -o %s: exit %d: %s", name, f, code, stderr)
			}
			golden(t, "snapshot_summary_"+name+"."+map[string]string{"table": "txt", "json": "json", "markdown": "md"}[f], out)
		}
	}
}

func TestSnapshotDemoIsLoadable(t *testing.T) {
	out, stderr, code := run(t, nil, "", "snapshot", "--demo", "incident")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s, err := snapshot.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scenario.Load("incident")
	if len(s.Streams) != len(want.Streams) || s.Cluster.CurrentTSO != want.Cluster.CurrentTSO {
		t.Errorf("demo snapshot differs from the scenario")
	}
}

func TestSnapshotFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.json")
	if _, stderr, code := run(t, nil, "", "snapshot", "--demo", "legacy", "-f", path); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fromFile, stderr, code := run(t, nil, "", "snapshot", "--snapshot", path, "--summary", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fromDemo, _, _ := run(t, nil, "", "snapshot", "--demo", "legacy", "--summary", "-o", "json")
	if strings.Replace(fromFile, `"file": "`+path+`",`, "", 1) == fromDemo {
		return
	}
	// The file source adds its path; everything else is the same.
	if !strings.Contains(fromFile, `"scenario": "legacy"`) || !strings.Contains(fromFile, `"current_tso": "470819222323200000"`) {
		t.Errorf("summary of the saved file:\n%s", fromFile)
	}
}

func TestSnapshotUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"snapshot", "--demo", "incident", "-o", "markdown"},
		{"snapshot", "--demo", "incident", "--tasks-per-mv", "-1"},
		{"snapshot", "--demo", "nope"},
		{"snapshot"},
	} {
		if _, _, code := run(t, nil, "", args...); code != cmdutil.ExitError {
			t.Errorf("%v: exit %d, want %d", args, code, cmdutil.ExitError)
		}
	}
}

// liveArgs starts the emulator over a scenario and returns the connection
// flags that point dorisdiag at it.
func liveArgs(t *testing.T, snap *snapshot.Snapshot, opts emulator.Options) []string {
	t.Helper()
	_, c := emutest.Start(t, snap, opts)
	return emutest.Flags(c)
}

// TestSnapshotLiveEqualsDemo is the "done when": the live snapshot
// of the emulated incident (and legacy) cluster has the demo's content, and
// the summary shows every source captured.
func TestSnapshotLiveEqualsDemo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		legacy bool
	}{{"incident", false}, {"legacy", true}, {"healthy", false}} {
		want, err := scenario.Load(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		args := liveArgs(t, want, emulator.Options{Legacy: tc.legacy})
		out, stderr, code := run(t, nil, "", append([]string{"snapshot"}, args...)...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		got, err := snapshot.Decode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		legacy := tc.legacy || tc.name == "legacy"
		var wb, gb strings.Builder
		_ = snapshot.Write(&wb, roundtrip.Comparable(want, legacy))
		_ = snapshot.Write(&gb, roundtrip.Comparable(got, legacy))
		if wb.String() != gb.String() {
			t.Errorf("%s: live snapshot differs from the demo", tc.name)
		}
		sum, stderr, code := run(t, nil, "", append([]string{"snapshot", "--summary"}, args...)...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%s --summary: exit %d: %s", tc.name, code, stderr)
		}
		if !strings.Contains(sum, "could not read: nothing") || !strings.Contains(sum, "source: live 127.0.0.1:") {
			t.Errorf("%s summary:\n%s", tc.name, sum)
		}
		for _, src := range []string{snapshot.SourceTableStreams, snapshot.SourceTableStreamConsumption, snapshot.SourceMVInfos, snapshot.SourceTasks, snapshot.SourceJobs, snapshot.SourceFrontends} {
			if !strings.Contains(sum, "\n"+src+" ") {
				t.Errorf("%s summary lacks %s", tc.name, src)
			}
		}
		flat := strings.Join(strings.Fields(sum), " ")
		if tc.legacy && !strings.Contains(flat, " "+snapshot.SourceIVMMVStatus+" no 0 ") {
			t.Errorf("legacy summary does not record ivm_mv_status as absent:\n%s", sum)
		}
	}
}

// TestSnapshotPasswordNeverShown: the password from DORISDIAG_PASSWORD or
// MYSQL_PWD appears in no output, error or snapshot.
func TestSnapshotPasswordNeverShown(t *testing.T) {
	const secret = "Pw-9f2-never-print-me"
	snap, _ := scenario.Load("incident")
	args := liveArgs(t, snap, emulator.Options{User: "diag", Password: secret})
	args = append(args, "--user", "diag")
	for _, env := range []map[string]string{{"DORISDIAG_PASSWORD": secret}, {"MYSQL_PWD": secret}} {
		for _, extra := range [][]string{{"snapshot", "--with-metrics"}, {"snapshot", "--summary", "-o", "json"}} {
			out, stderr, code := run(t, env, "", append(extra, args...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("%v: exit %d: %s", extra, code, stderr)
			}
			if strings.Contains(out+stderr, secret) {
				t.Fatalf("%v: the password appears in the output", extra)
			}
		}
	}
	wrong := "Wrong-" + secret
	out, stderr, code := run(t, map[string]string{"DORISDIAG_PASSWORD": wrong}, "", append([]string{"snapshot"}, args...)...)
	if code != cmdutil.ExitError {
		t.Fatalf("wrong password: exit %d", code)
	}
	if strings.Contains(out+stderr, wrong) || !strings.Contains(stderr, "127.0.0.1") {
		t.Fatalf("wrong password: stderr %q", stderr)
	}
}

// TestLiveMetricsCredentials: FEs serve a public /metrics (MetricsAction),
// BEs run with enable_all_http_auth=true (http_handler_with_auth.cpp).
// `snapshot --with-metrics` (the connected FE) and `check` (every FE and BE
// from SHOW FRONTENDS/BACKENDS, which name the emulator's 127.0.0.1
// listeners): no FE request carries an Authorization header; each BE gets
// one request without it, then — after its 401 Basic challenge — exactly
// one with it; the password appears in no output.
func TestLiveMetricsCredentials(t *testing.T) {
	const secret = "Pw-4c1-metrics"
	snap, _ := scenario.Load("incident")
	e, err := emulator.New(snap, emulator.Options{User: "diag", Password: secret, BEHTTP: true, EnableAllHTTPAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	conn := []string{"--host", host, "--port", port, "--http-port", hport, "--user", "diag"}
	env := map[string]string{"DORISDIAG_PASSWORD": secret}

	out, stderr, code := run(t, env, "", append([]string{"snapshot", "--with-metrics"}, conn...)...)
	if code != cmdutil.ExitOK || strings.Contains(out+stderr, secret) {
		t.Fatalf("snapshot: exit %d (or the password shown): %s", code, stderr)
	}
	for _, r := range e.HTTPRequests() {
		if r.Authorization || r.Server != "fe" {
			t.Errorf("snapshot --with-metrics: %+v, want FE requests without Authorization only", r)
		}
	}

	before := len(e.HTTPRequests())
	out, stderr, _ = run(t, env, "", append([]string{"check", "-o", "json"}, conn...)...)
	if strings.Contains(out+stderr, secret) {
		t.Fatal("check: the password appears in the output")
	}
	if strings.Contains(out, "HTTP 401") || strings.Contains(out, "HTTP 403") {
		t.Errorf("check: a node refused the scrape: %s", out)
	}
	per := map[string][]bool{}
	for _, r := range e.HTTPRequests()[before:] {
		per[r.Server] = append(per[r.Server], r.Authorization)
		if r.Server == "fe" && r.Authorization {
			t.Errorf("check: credentials sent to the FE: %+v", r)
		}
	}
	for _, b := range snap.Backends {
		name := "be " + b.ID
		if a := per[name]; len(a) != 2 || a[0] || !a[1] {
			t.Errorf("check: %s Authorization per request %v, want [false true]", name, a)
		}
	}
}

// TestSnapshotUnreachable: no FE listening is exit 2 with the host named.
func TestSnapshotUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(addr)
	_, stderr, code := run(t, nil, "", "snapshot", "--host", host, "--port", port, "--timeout", "2s")
	if code != cmdutil.ExitError || !strings.Contains(stderr, addr) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestSnapshotGarbageFE: an "FE" that answers the MySQL handshake with
// garbage is exit 2 and exactly one stderr line naming the host. The MySQL
// driver's own logger ("[mysql] 2026/.. packets.go:100 unexpected EOF")
// writes to the process's real stderr, so the command runs in a child
// process (this test binary re-executed) to see it.
func TestSnapshotGarbageFE(t *testing.T) {
	if addr := os.Getenv("DORISDIAG_TEST_GARBAGE_FE"); addr != "" {
		host, port, _ := net.SplitHostPort(addr)
		os.Exit(Main([]string{"snapshot", "--host", host, "--port", port, "--timeout", "2s"}, cmdutil.System()))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("\xff\x00\x00\x00garbage, not a handshake\n"))
			c.Close()
		}
	}()
	child := exec.Command(os.Args[0], "-test.run=^TestSnapshotGarbageFE$")
	child.Env = append(os.Environ(), "DORISDIAG_TEST_GARBAGE_FE="+ln.Addr().String())
	var stdout, stderr bytes.Buffer
	child.Stdout, child.Stderr = &stdout, &stderr
	err = child.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cmdutil.ExitError {
		t.Fatalf("child: %v, want exit 2; stderr %q", err, stderr.String())
	}
	got := stderr.String()
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "dorisdiag: ") || !strings.Contains(got, ln.Addr().String()) {
		t.Fatalf("stderr %q; want one line naming %s", got, ln.Addr())
	}
}
