package cmd

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/emutest"
	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// startTLSEmulator starts the incident scenario with MySQL TLS, BEs that
// require Basic auth (enable_all_http_auth=true), an account with a
// password, and — when httpsToo — every HTTP listener on HTTPS with the same
// test CA. It returns the emulator, the connection flags and the CA file.
func startTLSEmulator(t *testing.T, secret string, httpsToo bool, extra emulator.Options) (*emulator.Emulator, []string, string) {
	t.Helper()
	serverTLS, caPEM := selfSignedCA(t)
	snap, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	opts := extra
	opts.User, opts.Password, opts.TLSConfig = "diag", secret, serverTLS
	opts.BEHTTP, opts.EnableAllHTTPAuth = true, true
	if httpsToo {
		opts.HTTPTLSConfig = serverTLS
	}
	e, err := emulator.New(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	return e, []string{"--host", host, "--port", port, "--http-port", hport, "--user", "diag", "--tls-ca", ca}, ca
}

// TestTLSSpeaksHTTPSToEveryHTTPPort (issue 14, "The password goes out in
// cleartext Basic auth": every live command sent it to /api/tso over plain
// HTTP even with --tls): with --tls-ca, /api/tso, the FE's /metrics and
// every BE's /metrics are fetched over HTTPS verified with the same CA; the
// FE /metrics gets no credentials, each BE one request without them, then
// one with them after its 401 Basic challenge; the password is in no output.
func TestTLSSpeaksHTTPSToEveryHTTPPort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	const secret = "Pw-7e2-https"
	// No tso_status, no SHOW TSO STATUS: the clock comes from /api/tso,
	// which asks for credentials ("Need auth information.").
	e, conn, _ := startTLSEmulator(t, secret, true, emulator.Options{NoTSOStatus: true, NoShowTSO: true})
	env := map[string]string{"DORISDIAG_PASSWORD": secret}
	out, stderr, code := run(t, env, "", append([]string{"check", "-o", "json"}, conn...)...)
	if code == cmdutil.ExitError || strings.Contains(out+stderr, secret) {
		t.Fatalf("check: exit %d (or the password shown): %s", code, stderr)
	}
	if strings.Contains(out, "HTTP 401") || strings.Contains(out, "HTTP 403") || strings.Contains(out, "certificate") {
		t.Errorf("check: a node refused the scrape or the certificate: %s", out)
	}
	per := map[string][]bool{}
	var tsoAuth []bool
	for _, r := range e.HTTPRequests() {
		if !r.TLS {
			t.Errorf("plain HTTP under --tls: %+v", r)
		}
		switch {
		case strings.HasPrefix(r.Path, "/api/tso"):
			tsoAuth = append(tsoAuth, r.Authorization)
		case r.Path == "/metrics" && strings.HasPrefix(r.Server, "fe"):
			if r.Authorization {
				t.Errorf("credentials sent to the FE /metrics: %+v", r)
			}
		default:
			per[r.Server] = append(per[r.Server], r.Authorization)
		}
	}
	if len(tsoAuth) != 2 || tsoAuth[0] || !tsoAuth[1] {
		t.Errorf("/api/tso Authorization per request %v, want [false true] (asked, then answered once, over HTTPS)", tsoAuth)
	}
	snap, _ := scenario.Load("incident")
	for _, b := range snap.Backends {
		if a := per["be "+b.ID]; len(a) != 2 || a[0] || !a[1] {
			t.Errorf("be %s Authorization per request %v, want [false true]", b.ID, a)
		}
	}
}

// TestTLSRefusesCleartextChallenge: --tls with the HTTP ports left on plain
// HTTP (--http-scheme http): the BEs' Basic challenge is refused, no request
// carries credentials, and the finding says why and how to allow it;
// --allow-http-credentials then answers it.
func TestTLSRefusesCleartextChallenge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	const secret = "Pw-5d1-cleartext"
	e, conn, _ := startTLSEmulator(t, secret, false, emulator.Options{})
	env := map[string]string{"DORISDIAG_PASSWORD": secret}
	args := append([]string{"check", "-o", "json", "--http-scheme", "http"}, conn...)
	out, stderr, code := run(t, env, "", args...)
	if code == cmdutil.ExitError || strings.Contains(out+stderr, secret) {
		t.Fatalf("check: exit %d (or the password shown): %s", code, stderr)
	}
	if !strings.Contains(out, "over plain HTTP; not sent") || !strings.Contains(out, "--allow-http-credentials") {
		t.Errorf("check: no finding says the cleartext challenge was refused:\n%s", out)
	}
	for _, r := range e.HTTPRequests() {
		if r.Authorization {
			t.Errorf("credentials sent over plain HTTP under --tls: %+v", r)
		}
	}

	before := len(e.HTTPRequests())
	out, stderr, code = run(t, env, "", append(args, "--allow-http-credentials")...)
	if code == cmdutil.ExitError || strings.Contains(out+stderr, secret) || strings.Contains(out, "HTTP 401") {
		t.Fatalf("check --allow-http-credentials: exit %d: %s\n%s", code, stderr, out)
	}
	sent := 0
	for _, r := range e.HTTPRequests()[before:] {
		if r.Authorization {
			sent++
		}
	}
	if snap, _ := scenario.Load("incident"); sent != len(snap.Backends) {
		t.Errorf("with --allow-http-credentials: %d requests with credentials, want one per BE (%d)", sent, len(snap.Backends))
	}

	// metrics lint of an http:// URL under --tls: the same refusal.
	be := e.BEHTTPAddrs()[0]
	_, stderr, code = run(t, env, "", "metrics", "lint", "--tls", "--user", "diag", "http://"+be+"/metrics")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "over plain HTTP; not sent") || strings.Contains(stderr, secret) {
		t.Errorf("metrics lint http:// under --tls: exit %d, stderr %q", code, stderr)
	}
}

// --http-scheme takes http or https only (exit 2).
func TestHTTPSchemeUsage(t *testing.T) {
	_, stderr, code := run(t, nil, "", "check", "--demo", "--http-scheme", "ftp")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "--http-scheme") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestNoCredentialsToPublicMetrics (issue 14: "snapshot --with-metrics sends
// Authorization: Basic to the FE /metrics, which needs no auth"): FEs and BEs
// that ask for nothing (the BE default, enable_all_http_auth=false; the FE's
// public MetricsAction) get no credentials from `snapshot --with-metrics` or
// `check`, over HTTP and over HTTPS, although a password is configured.
func TestNoCredentialsToPublicMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	const secret = "Pw-3b9-public"
	env := map[string]string{"DORISDIAG_PASSWORD": secret}
	for _, https := range []bool{false, true} {
		snap, _ := scenario.Load("incident")
		opts := emulator.Options{User: "diag", Password: secret, BEHTTP: true}
		var tlsFlags []string
		if https {
			serverTLS, caPEM := selfSignedCA(t)
			opts.TLSConfig, opts.HTTPTLSConfig = serverTLS, serverTLS
			ca := filepath.Join(t.TempDir(), "ca.pem")
			if err := os.WriteFile(ca, caPEM, 0o600); err != nil {
				t.Fatal(err)
			}
			tlsFlags = []string{"--tls-ca", ca}
		}
		e, c := emutest.Start(t, snap, opts)
		conn := append(append(emutest.Flags(c), "--user", "diag"), tlsFlags...)
		for _, args := range [][]string{{"snapshot", "--with-metrics"}, {"check", "-o", "json"}} {
			before := len(e.HTTPRequests())
			out, stderr, code := run(t, env, "", append(args, conn...)...)
			if code == cmdutil.ExitError || strings.Contains(out+stderr, secret) {
				t.Fatalf("https=%v %v: exit %d: %s", https, args, code, stderr)
			}
			got := e.HTTPRequests()[before:]
			if len(got) == 0 {
				t.Fatalf("https=%v %v: no HTTP request made", https, args)
			}
			for _, r := range got {
				if r.Authorization || r.TLS != https {
					t.Errorf("https=%v %v: %+v, want no Authorization, TLS=%v", https, args, r, https)
				}
			}
		}
	}
}

// TestFEHTTPSPort: an FE with the older enable_https serves HTTPS on
// https_port, which SHOW FRONTENDS does not report (it names http_port):
// --fe-https-port sends every FE request (/api/tso, /metrics) there. The
// emulated Master's advertised HttpPort is closed; its HTTPS listener is
// elsewhere.
func TestFEHTTPSPort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	serverTLS, caPEM := selfSignedCA(t)
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	closed := testnet.ClosedPort(t)
	_, cport, _ := net.SplitHostPort(closed)
	cp, _ := strconv.Atoi(cport)
	for i := range snap.Frontends {
		if snap.Frontends[i].IsMaster {
			snap.Frontends[i].Host, snap.Frontends[i].HTTPPort = "127.0.0.1", cp
		}
	}
	e, err := emulator.New(snap, emulator.Options{TLSConfig: serverTLS, HTTPTLSConfig: serverTLS, NoTSOStatus: true, NoShowTSO: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	conn := []string{"--host", host, "--port", port, "--http-port", cport, "--tls-ca", ca, "--timeout", "5s"}

	_, stderr, code := run(t, nil, "", append([]string{"check", "-o", "json"}, conn...)...)
	if code != cmdutil.ExitError || !strings.Contains(stderr, closed) {
		t.Fatalf("without --fe-https-port: exit %d, stderr %q; want 2 naming the closed port %s", code, stderr, closed)
	}
	out, stderr, code := run(t, nil, "", append([]string{"check", "-o", "json", "--fe-https-port", hport}, conn...)...)
	if code == cmdutil.ExitError {
		t.Fatalf("with --fe-https-port %s: exit %d: %s\n%s", hport, code, stderr, out)
	}
	var tso, metrics int
	for _, r := range e.HTTPRequests() {
		if !r.TLS {
			t.Errorf("plain HTTP: %+v", r)
		}
		switch {
		case strings.HasPrefix(r.Path, "/api/tso"):
			tso++
		case r.Path == "/metrics":
			metrics++
		}
	}
	if tso == 0 || metrics == 0 {
		t.Errorf("requests to the HTTPS port: /api/tso %d, /metrics %d; want both", tso, metrics)
	}
	_, stderr, code = run(t, nil, "", "check", "--demo", "--fe-https-port", "70000")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "--fe-https-port") {
		t.Errorf("--fe-https-port 70000: exit %d, stderr %q", code, stderr)
	}
}
