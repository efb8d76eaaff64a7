package scrape

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestOpenMetrics: the body streams to the reader (metrics lint URL); an
// error before the body is returned at once; one while reading it reaches
// the reader, named; Close ends a fetch still under way.
func TestOpenMetrics(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok/metrics", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "a 1\nb 2\n") })
	mux.HandleFunc("/empty/metrics", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/err/metrics", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusServiceUnavailable) })
	mux.HandleFunc("/slow/metrics", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "a 1\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	r, err := OpenMetrics(fast, srv.URL+"/ok/metrics", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); err != nil || string(b) != "a 1\nb 2\n" {
		t.Errorf("ok: %q, %v", b, err)
	}
	r.Close()

	r, err = OpenMetrics(fast, srv.URL+"/empty/metrics", 5*time.Second)
	if err != nil {
		t.Fatalf("empty body: %v", err)
	}
	if b, _ := io.ReadAll(r); len(b) != 0 {
		t.Errorf("empty body: %q", b)
	}
	r.Close()

	var se *HTTPStatusError
	if _, err := OpenMetrics(fast, srv.URL+"/err/metrics", 5*time.Second); !errors.As(err, &se) || se.Code != 503 {
		t.Errorf("503 before the body: %v", err)
	}

	short := fast
	short.RequestTimeout = 300 * time.Millisecond
	r, err = OpenMetrics(short, srv.URL+"/slow/metrics", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	var te *TimeoutError
	if string(b) != "a 1\n" || !errors.As(err, &te) || !strings.Contains(err.Error(), "reading body") {
		t.Errorf("a body cut by the request timeout: %q, %v", b, err)
	}
	r.Close()

	r, err = OpenMetrics(fast, srv.URL+"/slow/metrics", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	r.Close() // the fetch ends; the server's handler sees its request cancelled
	if _, err := r.Read(buf); err == nil {
		t.Errorf("read after Close: no error")
	}
}
