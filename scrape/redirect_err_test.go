package scrape

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/internal/testnet"
)

// TestRedirectErrorNamesWhereItLed (issue 14, "Wrong host blamed after a
// redirect"): an FE that redirects to a BE that is down, silent or failing:
// the error names the BE's host:port as the one that failed, and says the
// request was redirected there from the FE.
func TestRedirectErrorNamesWhereItLed(t *testing.T) {
	for _, tc := range []struct {
		name, be, want string
	}{
		{"refused", testnet.ClosedPort(t), "connection refused"},
		{"silent", testnet.SilentListener(t), "sent no response headers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://"+tc.be+"/metrics", http.StatusTemporaryRedirect)
			})
			_, err := FetchMetrics(context.Background(), NewClient(fast), fe.URL+"/metrics", fast)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			feAddr := fe.Listener.Addr().String()
			if !strings.HasPrefix(msg, "GET http://"+tc.be+"/metrics (redirected from http://"+feAddr+"/metrics): ") ||
				!strings.Contains(msg, tc.want) {
				t.Errorf("error %q: want it to name %s first, redirected from %s, and %q", msg, tc.be, feAddr, tc.want)
			}
		})
	}

	// A redirect to a node that answers an error status: the status error
	// names both, too.
	be, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	fe, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, be.URL+"/metrics", http.StatusFound)
	})
	_, err := FetchMetrics(context.Background(), NewClient(fast), fe.URL+"/metrics", fast)
	want := "GET " + be.URL + "/metrics (redirected from " + fe.URL + "/metrics): HTTP 500 Internal Server Error"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want it to start %q", err, want)
	}
	// Without a redirect, the text is as before.
	_, err = FetchMetrics(context.Background(), NewClient(fast), be.URL+"/metrics", fast)
	if err == nil || strings.Contains(err.Error(), "redirected") || !strings.HasPrefix(err.Error(), "GET "+be.URL+"/metrics: HTTP 500") {
		t.Errorf("no redirect: %v", err)
	}
}

// TestTLSHandshakeTimeoutNamed: an HTTPS port that accepts and never speaks
// TLS fails with the hop named, like every other hop.
func TestTLSHandshakeTimeoutNamed(t *testing.T) {
	silent := testnet.SilentListener(t)
	o := fast
	o.Scheme = "https"
	_, err := FetchMetrics(context.Background(), NewClient(o), "https://"+silent+"/metrics", o)
	want := "GET https://" + silent + "/metrics: " + silent + " accepted the connection but did not complete the TLS handshake within 300ms"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
