package cmd

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestMetricsScrapeDiscoversFromLiveCluster: with no --targets, metrics
// scrape discovers the FEs and BEs over the real MySQL protocol (SHOW
// FRONTENDS / SHOW BACKENDS of the emulator) and fetches each /metrics; a
// follower that accepts and never answers is named with its timeout.
func TestMetricsScrapeDiscoversFromLiveCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	snap, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpAddr := ln.Addr().String()
	ln.Close()
	_, hp, _ := net.SplitHostPort(httpAddr)
	httpPort, _ := strconv.Atoi(hp)
	silent := testnet.SilentListener(t)
	_, sp, _ := net.SplitHostPort(silent)
	silentPort, _ := strconv.Atoi(sp)
	snap.Frontends = []snapshot.Node{
		{Kind: "fe", ID: "fe1", Host: "127.0.0.1", HTTPPort: httpPort, QueryPort: 9030, IsMaster: true, Alive: true},
		{Kind: "fe", ID: "fe2", Host: "127.0.0.1", HTTPPort: silentPort, QueryPort: 9030, Alive: true},
	}
	snap.Backends = nil
	e, err := emulator.New(snap, emulator.Options{HTTPAddr: httpAddr})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	host, port, _ := net.SplitHostPort(e.Addr())
	out, stderr, code := run(t, nil, "", "metrics", "scrape", "--host", host, "--port", port, "--http-port", hp,
		"--header-timeout", "300ms", "--connect-timeout", "300ms", "-o", "json", "--fail-on", "critical")
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1 (a silent FE, a raw quote on the Master): %s", code, stderr)
	}
	var doc struct {
		Discovery string
		Targets   []struct {
			Target    struct{ Kind, Host string }
			Reachable bool
			Error     string
			Parseable *bool
			IsMaster  bool `json:"is_master"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Discovery != "live" || len(doc.Targets) != 2 {
		t.Fatalf("%+v", doc)
	}
	m, f := doc.Targets[0], doc.Targets[1]
	if !m.Reachable || m.Parseable == nil || *m.Parseable || !m.IsMaster {
		t.Errorf("master: %+v", m)
	}
	if f.Reachable || !strings.Contains(f.Error, silent+" accepted the connection but sent no response headers within 300ms") {
		t.Errorf("silent follower: %+v", f)
	}
}
