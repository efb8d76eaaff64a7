package doctor

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestHopOutcomes: every way an HTTP hop ends is named, over real sockets on
// 127.0.0.1: the two TLS mismatches, an untrusted certificate, 401, 403, a
// redirect (not followed), refusal, silence after accept, a black hole, a
// reserved name.
func TestHopOutcomes(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/health":
			_, _ = w.Write([]byte(`{"code":0,"msg":"success","data":{}}`))
		case "/api/tso":
			w.WriteHeader(http.StatusForbidden)
		case "/metrics":
			w.Header().Set("WWW-Authenticate", `Basic realm="Restricted"`)
			w.WriteHeader(http.StatusUnauthorized)
		default:
			http.Redirect(w, r, "https://elsewhere:8050/api/health", http.StatusTemporaryRedirect)
		}
	}))
	defer plain.Close()
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"code":0}`))
	}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors are the point
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	silent, closed := testnet.SilentListener(t), testnet.ClosedPort(t)
	hole := "127.0.0.1:1" // dialled through the black hole below

	run := func(scheme string, pool bool, timeout time.Duration) *doctorRun {
		o := DoctorOptions{Config: scrape.Config{Timeout: timeout, User: "u", Password: "p"}}
		o.HTTPScheme = scheme
		o.HTTPDialContext = testnet.BlackholeDial(hole)
		o.Config.Defaults()
		fo, err := o.FetchOptions(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		fo.RequestTimeout, fo.DialContext = o.Timeout, o.HTTPDialContext
		if pool {
			fo.TLS = tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig
		}
		return &doctorRun{o: o, fo: fo, t: o.Timeout, d: &snapshot.Doctor{}}
	}
	host := func(u string) string { return strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://") }
	for _, tc := range []struct {
		name, scheme string
		trusted      bool
		addr, path   string
		want         string
		reachable    bool
	}{
		{"ok", "http", false, host(plain.URL), "/api/health", snapshot.OutcomeOK, true},
		{"401", "http", false, host(plain.URL), "/metrics", snapshot.OutcomeUnauthorized, true},
		{"403", "http", false, host(plain.URL), "/api/tso", snapshot.OutcomeForbidden, true},
		{"redirect not followed", "http", false, host(plain.URL), "/api/show_config", snapshot.OutcomeRedirected, true},
		{"https client, http server", "https", false, host(plain.URL), "/api/health", snapshot.OutcomeTLSMismatch, true},
		{"http client, https server", "http", false, host(tlsSrv.URL), "/api/health", snapshot.OutcomeTLSMismatch, true},
		{"untrusted certificate", "https", false, host(tlsSrv.URL), "/api/health", snapshot.OutcomeTLSCertificate, true},
		{"trusted certificate", "https", true, host(tlsSrv.URL), "/api/health", snapshot.OutcomeOK, true},
		{"refused", "http", false, closed, "/api/health", snapshot.OutcomeRefused, false},
		{"accepts, never answers", "http", false, silent, "/api/health", snapshot.OutcomeReadTimeout, false},
		{"TLS handshake never answered", "https", false, silent, "/api/health", snapshot.OutcomeReadTimeout, false},
		{"black hole", "http", false, hole, "/api/health", snapshot.OutcomeConnectTimeout, false},
		{"reserved name", "http", false, "be1.demo.invalid:8040", "/api/health", snapshot.OutcomeUnresolvable, false},
		// Never sent: a mutating endpoint, or any path outside the contract.
		{"mutating endpoint", "http", false, host(plain.URL), "/api/_set_config", snapshot.OutcomeSkipped, false},
		{"not in the contract", "http", false, host(plain.URL), "/api/other", snapshot.OutcomeSkipped, false},
	} {
		// A hop that must time out gets a short bound; one that must
		// answer a long one, so a loaded machine cannot turn it into a
		// timeout.
		timeout := 3 * time.Second
		if tc.want == snapshot.OutcomeReadTimeout || tc.want == snapshot.OutcomeConnectTimeout {
			timeout = 300 * time.Millisecond
		}
		r := run(tc.scheme, tc.trusted, timeout)
		u := r.url(tc.addr, tc.path)
		h := r.get(context.Background(), u, nil)
		hop := r.hop(snapshot.HopBEHTTP, "", tc.addr, u, "", h)
		if hop.Outcome != tc.want || hop.Reachable != tc.reachable {
			t.Errorf("%s: %s reachable=%v (%v), want %s reachable=%v", tc.name, hop.Outcome, hop.Reachable, h.err, tc.want, tc.reachable)
		}
		if tc.want == snapshot.OutcomeRedirected && hop.Location == "" {
			t.Errorf("%s: no Location kept", tc.name)
		}
		if strings.Contains(hop.Error, "p@") {
			t.Errorf("%s: credentials in %q", tc.name, hop.Error)
		}
	}
}
