package scrape

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBodyBudgetBoundsConcurrentBodies (issue 14: "check on N targets lints
// them with a memory budget for all of them together, not N × the worst"):
// with a budget of one body, four targets' bodies are read one at a time,
// and the wait for the budget does not count against a request's timeout.
func TestBodyBudgetBoundsConcurrentBodies(t *testing.T) {
	body := strings.Repeat("x", 100)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }) // Content-Length: 100
	for _, tc := range []struct {
		budget int64
		want   int32
	}{{100, 1}, {250, 2}} {
		o := fast
		o.RequestTimeout = time.Second
		o = o.withDefaults()
		o.budget = newBodyBudget(tc.budget)
		var cur, peak atomic.Int32
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = getTo(context.Background(), NewClient(o), srv.URL+"/metrics", o, nil, func(r io.Reader) error {
					n := cur.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(400 * time.Millisecond) // 4 × 400 ms > the 1 s request bound
					_, err := io.Copy(io.Discard, r)
					cur.Add(-1)
					return err
				})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("budget %d, body %d: %v (waiting for the budget must not time a request out)", tc.budget, i, err)
			}
		}
		if p := peak.Load(); p > tc.want {
			t.Errorf("budget %d: %d bodies read at once, want at most %d", tc.budget, p, tc.want)
		}
	}
	b := newBodyBudget(100)
	if w := b.weight(-1, 1000); w != 100 {
		t.Errorf("no Content-Length: weight %d, want the whole budget (the limit, capped)", w)
	}
	if w := b.weight(10, 1000); w != 10 {
		t.Errorf("Content-Length 10: weight %d", w)
	}
}
