package scrape

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const testSecret = "Pw-9c2f-secret"

// authLog is a handler that records the Authorization header of every
// request, then answers through h.
type authLog struct {
	mu   sync.Mutex
	seen []string // "" when no Authorization came
	h    func(w http.ResponseWriter, r *http.Request)
}

func (a *authLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen = append(a.seen, r.Header.Get("Authorization"))
	a.mu.Unlock()
	a.h(w, r)
}

func (a *authLog) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func serve(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *authLog) {
	t.Helper()
	a := &authLog{h: h}
	srv := httptest.NewServer(a) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv, a
}

var creds = &Credentials{User: "diag", Password: testSecret}

func fetchWithCreds(t *testing.T, url string) (Payload, error) {
	t.Helper()
	o := fast
	o.Credentials = creds
	return FetchMetrics(context.Background(), NewClient(o), url, o)
}

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testSecret) {
		t.Fatalf("the error carries the password: %v", err)
	}
}

// challengeBasic answers as a BE with enable_all_http_auth=true
// (be/src/http/http_handler_with_auth.cpp): 401 + Basic challenge without
// credentials, 403 with wrong ones.
func challengeBasic(w http.ResponseWriter, r *http.Request) {
	u, p, ok := r.BasicAuth()
	switch {
	case !ok:
		w.Header().Set("WWW-Authenticate", `Basic realm="Restricted"`)
		w.WriteHeader(http.StatusUnauthorized)
	case u != "diag" || p != testSecret:
		w.WriteHeader(http.StatusForbidden)
	default:
		_, _ = w.Write([]byte("up 1\n"))
	}
}

// TestNoCredentialsAheadOfChallenge: a node that needs none (FE /metrics,
// MetricsAction "is public") never sees an Authorization header, even when
// credentials are configured.
func TestNoCredentialsAheadOfChallenge(t *testing.T) {
	srv, log := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("up 1\n")) })
	p, err := fetchWithCreds(t, srv.URL+"/metrics")
	if err != nil || string(p.Body) != "up 1\n" || p.Authenticated {
		t.Fatalf("fetch: %v %q authenticated=%v", err, p.Body, p.Authenticated)
	}
	if got := log.requests(); len(got) != 1 || got[0] != "" {
		t.Errorf("requests %q: want one, without Authorization", got)
	}
}

// TestBasicChallengeOneRetry: a 401 Basic challenge from the host:port asked
// gets exactly one retry, with the credentials; a second refusal is not
// retried again, and its error names the host and the user, not the password.
func TestBasicChallengeOneRetry(t *testing.T) {
	srv, log := serve(t, challengeBasic)
	p, err := fetchWithCreds(t, srv.URL+"/metrics")
	if err != nil || string(p.Body) != "up 1\n" || !p.Authenticated {
		t.Fatalf("fetch: %v %q", err, p.Body)
	}
	got := log.requests()
	if len(got) != 2 || got[0] != "" || !strings.HasPrefix(got[1], "Basic ") {
		t.Errorf("requests %q: want one without, then one with Basic auth", got)
	}

	// Always refused: still exactly one retry.
	srv2, log2 := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="Restricted"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	_, err = fetchWithCreds(t, srv2.URL+"/metrics")
	if n := len(log2.requests()); n != 2 {
		t.Errorf("%d requests to an always-401 node, want 2", n)
	}
	if err == nil || !strings.Contains(err.Error(), srv2.Listener.Addr().String()) || !strings.Contains(err.Error(), `user "diag"`) {
		t.Errorf("error %v: want the host and the user named", err)
	}
	noSecret(t, err)

	// Wrong password: 403 after the retry, named, password absent.
	wrong := &Credentials{User: "diag", Password: "Wrong-" + testSecret}
	o := fast
	o.Credentials = wrong
	_, err = FetchMetrics(context.Background(), NewClient(o), srv.URL+"/metrics", o)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("wrong password: %v", err)
	}
	noSecret(t, err)

	// No credentials configured: the 401 is the answer.
	_, err = FetchMetrics(context.Background(), NewClient(fast), srv.URL+"/metrics", fast)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("no credentials: %v", err)
	}
}

// TestUnauthorizedWithoutBasicChallengeNotRetried: a 401 without a
// WWW-Authenticate header, or offering another scheme, gets no credentials.
func TestUnauthorizedWithoutBasicChallengeNotRetried(t *testing.T) {
	for _, challenge := range []string{"", `Bearer realm="x"`, `Negotiate`} {
		srv, log := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if challenge != "" {
				w.Header().Set("WWW-Authenticate", challenge)
			}
			w.WriteHeader(http.StatusUnauthorized)
		})
		_, err := fetchWithCreds(t, srv.URL+"/metrics")
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("challenge %q: error %v", challenge, err)
		}
		if got := log.requests(); len(got) != 1 || got[0] != "" {
			t.Errorf("challenge %q: requests %q, want one without Authorization", challenge, got)
		}
	}
	if !basicChallenge(401, http.Header{"Www-Authenticate": {`Negotiate, Basic realm="r"`}}) {
		t.Error("a Basic challenge listed after another scheme is not recognised")
	}
}

// TestRedirectToAnotherPortGetsNoCredentials: a node that, once given the
// credentials, redirects to another port of the same host: the other port
// never sees them (net/http would keep the header: same host name). And a
// 401 challenge that comes from where a redirect led is not answered.
func TestRedirectToAnotherPortGetsNoCredentials(t *testing.T) {
	other, otherLog := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("elsewhere 1\n")) })
	srv, log := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := r.BasicAuth(); !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="Restricted"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, other.URL+"/metrics", http.StatusTemporaryRedirect)
	})
	p, err := fetchWithCreds(t, srv.URL+"/metrics")
	if err != nil || string(p.Body) != "elsewhere 1\n" {
		t.Fatalf("fetch: %v %q", err, p.Body)
	}
	if got := log.requests(); len(got) != 2 || got[1] == "" {
		t.Errorf("origin requests %q", got)
	}
	if got := otherLog.requests(); len(got) != 1 || got[0] != "" {
		t.Errorf("the other port saw %q: want one request without Authorization", got)
	}

	// Redirected (without credentials) to a port that challenges: no retry,
	// and the error names the host it was redirected to.
	challenger, chLog := serve(t, challengeBasic)
	redirector, rLog := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, challenger.URL+"/metrics", http.StatusFound)
	})
	_, err = fetchWithCreds(t, redirector.URL+"/metrics")
	if err == nil || !strings.Contains(err.Error(), challenger.Listener.Addr().String()) || !strings.Contains(err.Error(), "401") {
		t.Errorf("error %v: want the 401 of %s", err, challenger.Listener.Addr())
	}
	noSecret(t, err)
	for name, l := range map[string]*authLog{"redirector": rLog, "challenger": chLog} {
		for _, a := range l.requests() {
			if a != "" {
				t.Errorf("%s received credentials", name)
			}
		}
	}
	if n := len(chLog.requests()); n != 1 {
		t.Errorf("challenger got %d requests, want 1 (no retry after a redirect)", n)
	}

	// Credentials in the URL itself are refused, and not printed.
	_, err = fetchWithCreds(t, "http://diag:"+testSecret+"@"+srv.Listener.Addr().String()+"/metrics")
	if err == nil {
		t.Error("a URL with user info was fetched")
	}
	noSecret(t, err)
}

// TestCleartextChallengeRefusedUnderTLS (issue 14, Why 2): with --tls
// (NoCleartextCredentials) a Basic challenge from an http:// origin is
// refused — one request, no Authorization — and the error names the URL,
// the user and the way out; the same challenge over HTTPS, verified with
// the CA, is answered once.
func TestCleartextChallengeRefusedUnderTLS(t *testing.T) {
	srv, log := serve(t, challengeBasic)
	o := fast
	o.Credentials, o.NoCleartextCredentials = creds, true
	_, err := FetchMetrics(context.Background(), NewClient(o), srv.URL+"/metrics", o)
	var ce *CleartextCredentialsError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), srv.Listener.Addr().String()) ||
		!strings.Contains(err.Error(), `"diag"`) || !strings.Contains(err.Error(), "--allow-http-credentials") {
		t.Fatalf("error %v: want a CleartextCredentialsError naming the URL, the user and --allow-http-credentials", err)
	}
	noSecret(t, err)
	if got := log.requests(); len(got) != 1 || got[0] != "" {
		t.Errorf("requests %q: want one, without Authorization", got)
	}

	a := &authLog{h: challengeBasic}
	tsrv := httptest.NewTLSServer(a) // 127.0.0.1
	t.Cleanup(tsrv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(tsrv.Certificate())
	o.Scheme, o.TLS = "https", &tls.Config{RootCAs: pool}
	p, err := FetchMetrics(context.Background(), NewClient(o), tsrv.URL+"/metrics", o)
	if err != nil || string(p.Body) != "up 1\n" || !p.Authenticated {
		t.Fatalf("over HTTPS: %v %q", err, p.Body)
	}
	if got := a.requests(); len(got) != 2 || got[0] != "" || got[1] == "" {
		t.Errorf("HTTPS requests %q: want one without, then one with Basic auth", got)
	}
	// A CA that did not sign the server's certificate: refused before any
	// request reaches the handler.
	o.TLS = &tls.Config{RootCAs: x509.NewCertPool()}
	if _, err := FetchMetrics(context.Background(), NewClient(o), tsrv.URL+"/metrics", o); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a certificate of another CA: %v", err)
	}
	if n := len(a.requests()); n != 2 {
		t.Errorf("%d requests reached the handler, want still 2", n)
	}
}
