package scrape

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestListedNodeGetsThePasswordOverPlainHTTP (issue 25 item 4): with the
// limit set (no --tls, no --allow-http-credentials), a node the cluster
// lists answers its challenge with the password; the same server under a
// name the cluster does not list gets nothing.
func TestListedNodeGetsThePasswordOverPlainHTTP(t *testing.T) {
	var sent int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p, ok := r.BasicAuth(); ok && p == "pw-1234" {
			sent++
			_, _ = w.Write([]byte("up 1\n"))
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	snap := &snapshot.Snapshot{Backends: []snapshot.Node{{Kind: "be", Host: host, HTTPPort: p}}}
	fo := FetchOptions{Credentials: &Credentials{User: "root", Password: "pw-1234"}, PlainHTTPCredentialsTo: map[string]bool{}}
	res := AttachMetrics(context.Background(), snap, nil, Target{}, fo)
	if len(res) != 1 || res[0].Err != nil || sent != 1 {
		t.Fatalf("a listed BE: sent %d, %+v", sent, res)
	}
	other := []Target{{Kind: "be", Host: "localhost:" + port}} // the same server, a name no node has
	res = ScrapeAll(context.Background(), NewClient(fo), other, fo)
	if sent != 1 || res[0].Err == nil {
		t.Fatalf("an unlisted target: sent %d, err %v", sent, res[0].Err)
	}
}
