// Package testnet holds network fixtures shared by tests in several
// packages. Only tests import it, so the dorisdiag binary never links it.
package testnet

import (
	"context"
	"net"
	"sync"
	"testing"
)

// SilentListener listens on 127.0.0.1, accepts every connection and never
// answers: a node that hangs (seed 002 measured a silent hang), for testing
// that every network hop times out and names the host. It returns
// "host:port"; the listener and its connections close when the test ends.
func SilentListener(t testing.TB) string {
	t.Helper()
	return ScriptedListener(t, nil)
}

// ScriptedListener listens on 127.0.0.1 and runs script on every connection
// it accepts (nil: none). When script returns, the connection stays open and
// silent until the test ends, unless script closed it: a server that answers
// part of a protocol and then stalls (or hangs up). It returns "host:port";
// the listener and its connections close when the test ends.
func ScriptedListener(t testing.TB, script func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			if script != nil {
				go script(c)
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// ClosedPort returns a 127.0.0.1 "host:port" nobody listens on (a listener
// opened and closed): connecting to it is refused.
func ClosedPort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// BlackholeDial returns a dialer for which every address in addrs is a
// host that drops the connection attempt (no SYN-ACK, no RST): the dial
// returns only when its context ends. Loopback refuses or accepts at once,
// so this is how a test sees a connect timeout. Other addresses are dialled
// for real.
func BlackholeDial(addrs ...string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	hole := map[string]bool{}
	for _, a := range addrs {
		hole[a] = true
	}
	var d net.Dialer
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if hole[addr] {
			<-ctx.Done()
			return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
		}
		return d.DialContext(ctx, network, addr)
	}
}
