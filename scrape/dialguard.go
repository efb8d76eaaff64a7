package scrape

import (
	"context"
	"net"
	"sync/atomic"
)

// dialFunc is the shape of every dialer scrape uses.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// dialGuard, when set, is asked before every connection scrape opens: the
// MySQL connection of a collection and every HTTP fetch (/metrics, /api/tso).
// scrape is the only package that opens sockets (docs/architecture.md), so
// this is the one place a test can prove that a command stays offline.
var dialGuard atomic.Pointer[func(network, addr string) error]

// SetDialGuard installs f, process-wide, as the guard of every dial, and
// returns the function that removes it. f is called before the name is
// looked up or the connection opened; an error from f is the dial's error
// and nothing is sent. It is a test hook (`--demo` and `--snapshot` must
// never open a socket): f fails the test.
func SetDialGuard(f func(network, addr string) error) (restore func()) {
	prev := dialGuard.Swap(&f)
	return func() { dialGuard.Store(prev) }
}

// guarded wraps dial with the process-wide guard.
func guarded(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if g := dialGuard.Load(); g != nil && *g != nil {
			if err := (*g)(network, addr); err != nil {
				return nil, &net.OpError{Op: "dial", Net: network, Err: err}
			}
		}
		return dial(ctx, network, addr)
	}
}
