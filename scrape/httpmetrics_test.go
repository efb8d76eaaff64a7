package scrape

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/internal/testnet"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../fixtures/metrics/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var fast = FetchOptions{ConnectTimeout: 300 * time.Millisecond, HeaderTimeout: 300 * time.Millisecond, RequestTimeout: 2 * time.Second}

func TestParseTargets(t *testing.T) {
	got, err := ParseTargets("10.0.0.1:8030, 10.0.0.2:8040,fe=h:9999, be=[::1]:1234,10.0.0.1:8030")
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{{"fe", "10.0.0.1:8030"}, {"be", "10.0.0.2:8040"}, {"fe", "h:9999"}, {"be", "[::1]:1234"}}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "nohost", "xx=h:1", "h:0", "h:abc"} {
		if _, err := ParseTargets(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestFetchMetrics(t *testing.T) {
	fe := fixture(t, "fe_master.prom")
	mux := http.NewServeMux()
	mux.HandleFunc("/ok/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(fe)
	})
	mux.HandleFunc("/gzip/metrics", func(w http.ResponseWriter, r *http.Request) {
		// Always gzip, asked or not (some proxies do).
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write(fe)
		zw.Close()
	})
	mux.HandleFunc("/err/metrics", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/big/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("a 1\n"), 1000))
	})
	mux.HandleFunc("/slowbody/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("a 1\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := NewClient(fast)
	ctx := context.Background()

	p, err := FetchMetrics(ctx, client, srv.URL+"/ok/metrics", fast)
	if err != nil || !bytes.Equal(p.Body, fe) || p.Status != 200 {
		t.Fatalf("ok: %v %d", err, p.Status)
	}
	p, err = FetchMetrics(ctx, client, srv.URL+"/gzip/metrics", fast)
	if err != nil || !bytes.Equal(p.Body, fe) {
		t.Fatalf("gzip: %v, %d bytes", err, len(p.Body))
	}
	_, err = FetchMetrics(ctx, client, srv.URL+"/err/metrics", fast)
	var se *HTTPStatusError
	if !errors.As(err, &se) || se.Code != 500 || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("500: %v", err)
	}
	small := fast
	small.MaxBytes = 100
	_, err = FetchMetrics(ctx, client, srv.URL+"/big/metrics", small)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("limit: %v", err)
	}
	short := fast
	short.RequestTimeout = 500 * time.Millisecond
	_, err = FetchMetrics(ctx, client, srv.URL+"/slowbody/metrics", short)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != "request" {
		t.Fatalf("slow body: %v", err)
	}
	// The HTTP body hop: the exact text, every run (issue 12 item 7).
	host := strings.TrimPrefix(srv.URL, "http://")
	for i := 0; i < 5; i++ {
		_, err = FetchMetrics(ctx, client, srv.URL+"/slowbody/metrics", short)
		if want := "GET " + srv.URL + "/slowbody/metrics: reading body after 4 bytes: request to " + host + " timed out after 500ms (whole request)"; err == nil || err.Error() != want {
			t.Fatalf("run %d: slow body:\n got %v\nwant %s", i+1, err, want)
		}
	}
}

func TestFetchNeverAnswers(t *testing.T) {
	addr := testnet.SilentListener(t)
	start := time.Now()
	_, err := FetchMetrics(context.Background(), NewClient(fast), "http://"+addr+"/metrics", fast)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != "response header" || te.Host != addr {
		t.Fatalf("want a response header timeout naming %s, got %v", addr, err)
	}
	// The HTTP headers hop: the exact text, every run (issue 12 item 7).
	for i := 0; i < 5; i++ {
		_, err := FetchMetrics(context.Background(), NewClient(fast), "http://"+addr+"/metrics", fast)
		if want := "GET http://" + addr + "/metrics: " + addr + " accepted the connection but sent no response headers within 300ms"; err == nil || err.Error() != want {
			t.Fatalf("run %d:\n got %v\nwant %s", i+1, err, want)
		}
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

func TestFetchConnectTimeout(t *testing.T) {
	o := fast
	o.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done() // a black hole: SYNs dropped
		return nil, ctx.Err()
	}
	addr := testnet.ClosedPort(t) // never dialed: the dialer is a black hole
	// The HTTP connect hop: the exact text, every run (issue 12 item 7).
	for i := 0; i < 5; i++ {
		_, err := FetchMetrics(context.Background(), NewClient(o), "http://"+addr+"/metrics", o)
		var te *TimeoutError
		if !errors.As(err, &te) || te.Phase != "connect" {
			t.Fatalf("want a connect timeout, got %v", err)
		}
		if want := "GET http://" + addr + "/metrics: connect to " + addr + " timed out after 300ms"; err.Error() != want {
			t.Fatalf("run %d:\n got %s\nwant %s", i+1, err, want)
		}
	}
}

func TestScrapeAll(t *testing.T) {
	fe := fixture(t, "fe_master.prom")
	broken := fixture(t, "five_errors.prom")
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(fe) }))
	defer good.Close()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(broken) }))
	defer bad.Close()
	silent := testnet.SilentListener(t)
	refused := func() string { // a port nobody listens on
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		a := ln.Addr().String()
		ln.Close()
		return a
	}()
	targets := []Target{
		{"fe", strings.TrimPrefix(good.URL, "http://")},
		{"fe", strings.TrimPrefix(bad.URL, "http://")},
		{"be", silent},
		{"be", refused},
	}
	o := fast
	o.KeepBody = true
	start := time.Now()
	res := ScrapeAll(context.Background(), NewClient(o), targets, o)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("ScrapeAll took %v: timeouts are not concurrent", d)
	}
	if !res[0].Reachable || res[0].Lint == nil || !res[0].Lint.Parseable || len(res[0].Body) != len(fe) {
		t.Errorf("good: %+v", res[0])
	}
	if !res[1].Reachable || res[1].Lint == nil || res[1].Lint.Parseable || res[1].Lint.Errors != 5 {
		t.Errorf("broken: %+v", res[1])
	}
	var te *TimeoutError
	if res[2].Reachable || !errors.As(res[2].Err, &te) || te.Host != silent {
		t.Errorf("silent: %+v", res[2])
	}
	if res[3].Reachable || res[3].Err == nil || !strings.Contains(res[3].Err.Error(), refused) {
		t.Errorf("refused: %+v", res[3])
	}
}

// TestReservedNamesAreNeverLookedUp: a bundled scenario's node names
// (fe1.demo.invalid) are refused before any DNS query leaves the machine.
func TestReservedNamesAreNeverLookedUp(t *testing.T) {
	o := fast
	dialed := false
	o.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = true
		return nil, errors.New("dialed")
	}
	_, err := FetchMetrics(context.Background(), NewClient(o), "http://fe1.demo.invalid:8030/metrics", o)
	if err == nil || !strings.Contains(err.Error(), "reserved .invalid domain") || dialed {
		t.Fatalf("err %v, dialed %v", err, dialed)
	}
}
