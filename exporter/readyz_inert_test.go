package exporter_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestReadyzErrorIsInert (issue 25 Why 4): /readyz names the last error with
// the server's text escaped — no ESC, CR or bidi control reaches whoever
// reads it in a terminal.
func TestReadyzErrorIsInert(t *testing.T) {
	src := func(context.Context, int) (*snapshot.Snapshot, error) {
		return nil, errors.New("Error 1105: \x1b]8;;http://evil.invalid\x07x\x1b]8;;\x07\x1b[2J\rok\u202eevil")
	}
	clock := newFakeClock()
	e, err := exporter.New(exporter.Options{Interval: time.Minute, Source: src, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	for i := 0; i < 3; i++ {
		clock.Advance(time.Minute + time.Second)
		_ = e.Round(context.Background())
	}
	code, body := get(t, srv.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "last error") {
		t.Fatalf("/readyz: %d %q", code, body)
	}
	for _, r := range strings.TrimSuffix(body, "\n") {
		if r < 0x20 || r == 0x7f || (r >= 0x202a && r <= 0x202e) {
			t.Fatalf("/readyz holds a raw control %U: %q", r, body)
		}
	}
}
