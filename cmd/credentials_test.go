package cmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// challenger answers every request without credentials with a Basic
// challenge and counts the requests that carried the password.
func challenger(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p, ok := r.BasicAuth(); ok {
			if p == "s3cret-pw" {
				got.Add(1)
			}
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = w.Write([]byte("# TYPE up gauge\nup 1\n"))
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

// TestPlainHTTPChallengeFromUnlistedHostGetsNoPassword (issue 25 Why 6):
// without --tls, a URL typed for metrics lint, or a --targets entry, that
// answers with a Basic challenge over plain HTTP used to get the password
// in clear text. It gets it only with --allow-http-credentials; the refusal
// says why and how.
func TestPlainHTTPChallengeFromUnlistedHostGetsNoPassword(t *testing.T) {
	env := map[string]string{"DORISDIAG_PASSWORD": "s3cret-pw"}
	srv, got := challenger(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, args := range [][]string{
		{"metrics", "lint", srv.URL + "/metrics"},
		{"metrics", "scrape", "--targets", "fe=" + host},
	} {
		stdout, stderr, _ := run(t, env, "", args...)
		stderr += stdout // metrics scrape reports a target's error in its output
		if got.Load() != 0 {
			t.Fatalf("%v: the password was sent over plain HTTP to a host the cluster does not list", args)
		}
		if !strings.Contains(stderr, "--allow-http-credentials") || !strings.Contains(stderr, "plain HTTP") {
			t.Errorf("%v: the refusal does not say why and how: %q", args, stderr)
		}
		if strings.Contains(stderr, "s3cret-pw") {
			t.Errorf("%v: the password is printed: %q", args, stderr)
		}
	}
	_, stderr, code := run(t, env, "", "metrics", "lint", "--allow-http-credentials", srv.URL+"/metrics")
	if got.Load() != 1 || code == cmdutil.ExitError {
		t.Errorf("--allow-http-credentials: sent %d times, exit %d: %s", got.Load(), code, stderr)
	}
}
