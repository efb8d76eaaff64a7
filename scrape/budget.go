package scrape

import (
	"context"
	"sync"
)

// bodyBudget is a weighted semaphore over body bytes (issue 14: check lints
// every node's /metrics with one memory budget for all of them, not N × the
// worst).
type bodyBudget struct {
	mu      sync.Mutex
	size    int64
	free    int64
	changed chan struct{} // closed and replaced on every release
}

func newBodyBudget(size int64) *bodyBudget {
	return &bodyBudget{size: size, free: size, changed: make(chan struct{})}
}

// weight is what a body reserves: its announced length, else the limit,
// never more than the whole budget.
func (b *bodyBudget) weight(contentLength, maxBytes int64) int64 {
	w := maxBytes
	if contentLength >= 0 && contentLength < maxBytes {
		w = contentLength
	}
	return min(max(w, 1), b.size)
}

func (b *bodyBudget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ch:
		}
	}
}

func (b *bodyBudget) release(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}
