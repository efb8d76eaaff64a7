package cmd

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/scrape"
)

// TestOfflineNeverOpensASocket (issue 12, "Offline is offline"): every
// command on --demo incident and on a --snapshot file runs with a
// process-wide dial guard in scrape (the one package that opens sockets:
// MySQL and every HTTP fetch) and a failing IOStreams.DialContext; any
// connection attempt, to any address, fails the test. On main `metrics
// scrape --demo incident` sent HTTP GETs to 10.0.1.11–.23.
func TestOfflineNeverOpensASocket(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "incident.json")
	if _, stderr, code := run(t, nil, "", "snapshot", "--demo", "incident", "-f", snap); code != cmdutil.ExitOK {
		t.Fatalf("snapshot --demo incident -f: exit %d: %s", code, stderr)
	}
	var current []string
	defer scrape.SetDialGuard(func(network, addr string) error {
		t.Errorf("%v: dialed %s %s: --demo and --snapshot must never open a socket", current, network, addr)
		return errors.New("offline test: no socket")
	})()

	perSource := [][]string{
		{"check"},
		{"check", "-o", "json"},
		{"check", "-o", "prom"},
		{"streams"},
		{"streams", "show", "demo.s_orders_cdc"},
		{"mv", "list"},
		{"mv", "explain", "demo.mv_orders_daily"},
		{"snapshot", "--summary"},
		{"headroom"},
		{"metrics", "lint"},
		{"metrics", "scrape"},
	}
	var all [][]string
	for _, src := range [][]string{{"--demo", "incident"}, {"--snapshot", snap}} {
		for _, c := range perSource {
			all = append(all, append(append([]string(nil), c...), src...))
		}
	}
	all = append(all,
		[]string{"snapshot", "--demo", "incident"},
		[]string{"check", "--demo", "incident", "--watch", "10ms", "--watch-rounds", "2", "-o", "json"},
		[]string{"streams", "--demo", "incident", "--watch", "10ms", "--watch-rounds", "2"},
		[]string{"mv", "list", "--demo", "incident", "--watch", "10ms", "--watch-rounds", "2"},
		[]string{"demo"},
		[]string{"demo", "--scenario", "legacy"},
		[]string{"explain"},
		[]string{"explain", "STREAM_HEADROOM_LOW"},
	)
	for _, args := range all {
		current = args
		var out, errb bytes.Buffer
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" },
			DialContext: func(_ context.Context, network, addr string) (net.Conn, error) {
				t.Errorf("%v: IOStreams.DialContext %s %s: --demo and --snapshot must never open a socket", args, network, addr)
				return nil, &net.OpError{Op: "dial", Net: network, Err: os.ErrPermission}
			}}
		code := Main(args, ios)
		if code == cmdutil.ExitError {
			t.Errorf("%v: exit 2: %s", args, errb.String())
		}
		if out.Len() == 0 {
			t.Errorf("%v: no output", args)
		}
		checkEmitted(t, args, out.String())
	}
}

// TestOfflineGuardCatchesALiveRun: the guard is not vacuous: the same
// harness on --host (a loopback port) is refused by it.
func TestOfflineGuardCatchesALiveRun(t *testing.T) {
	var dialed []string
	defer scrape.SetDialGuard(func(network, addr string) error {
		dialed = append(dialed, addr)
		return errors.New("offline test: no socket")
	})()
	_, stderr, code := run(t, nil, "", "streams", "--host", "127.0.0.1", "--port", "1", "--timeout", "2s")
	if code != cmdutil.ExitError || len(dialed) == 0 || dialed[0] != "127.0.0.1:1" || !strings.Contains(stderr, "offline test: no socket") {
		t.Errorf("exit %d, dialed %v, stderr %q", code, dialed, stderr)
	}
}
