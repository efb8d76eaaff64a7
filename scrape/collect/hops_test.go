package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/internal/testnet"
)

// Network errors of the MySQL hops (issue 12 item 7): against the same
// fault, the same text, every time. Each case runs several times: before
// the hops had one bound each, a silent FE gave one of three texts at
// random ("no answer within --timeout 200ms: context deadline exceeded",
// "... invalid connection", or a bare "invalid connection").

const hopTimeout = 200 * time.Millisecond
const hopRuns = 5

// collectErr runs a live collection against addr and returns its error
// text; the select is a hang guard, not a timing assertion.
func collectErr(t *testing.T, addr string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) string {
	t.Helper()
	host, port := splitAddr(t, addr)
	done := make(chan error, 1)
	go func() {
		_, err := Collect(context.Background(), scrape.Config{Host: host, Port: port, HTTPPort: 1, Password: "Zq9-s3cr3t", Timeout: hopTimeout, DialContext: dial})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Collect succeeded against a faulty FE")
		}
		if strings.Contains(err.Error(), "Zq9-s3cr3t") {
			t.Fatalf("the error carries the password: %v", err)
		}
		var ne *scrape.NetError
		if !errors.As(err, &ne) || ne.Host != addr {
			t.Errorf("not a *NetError naming %s: %#v", addr, err)
		}
		return err.Error()
	case <-time.After(30 * time.Second):
		t.Fatal("Collect hung")
	}
	return ""
}

func wantEveryRun(t *testing.T, want string, run func() string) {
	t.Helper()
	for i := 0; i < hopRuns; i++ {
		if got := run(); got != want {
			t.Fatalf("run %d:\n got %s\nwant %s", i+1, got, want)
		}
	}
}

func TestHopMySQLConnectTimeout(t *testing.T) {
	addr := testnet.ClosedPort(t) // never dialed: the dialer is a black hole
	blackHole := func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done() // SYNs dropped
		return nil, ctx.Err()
	}
	wantEveryRun(t, addr+": MySQL connect: no answer within 200ms", func() string { return collectErr(t, addr, blackHole) })
}

func TestHopMySQLConnectRefused(t *testing.T) {
	addr := testnet.ClosedPort(t)
	wantEveryRun(t, addr+": MySQL connect: connection refused", func() string { return collectErr(t, addr, nil) })
}

// TestHopMySQLHandshakeSilent is the case: a port that accepts and
// never answers.
func TestHopMySQLHandshakeSilent(t *testing.T) {
	addr := testnet.SilentListener(t)
	wantEveryRun(t, addr+": MySQL handshake: no answer within 200ms", func() string { return collectErr(t, addr, nil) })
}

// TestHopMySQLHandshakePartialGreeting: the greeting starts (a packet header
// announcing more bytes than come) and stalls.
func TestHopMySQLHandshakePartialGreeting(t *testing.T) {
	addr := testnet.ScriptedListener(t, func(c net.Conn) {
		g := greeting()
		c.Write(g[:len(g)/2])
	})
	wantEveryRun(t, addr+": MySQL handshake: no answer within 200ms", func() string { return collectErr(t, addr, nil) })
}

func TestHopMySQLHandshakeClosed(t *testing.T) {
	addr := testnet.ScriptedListener(t, func(c net.Conn) { c.Close() })
	wantEveryRun(t, addr+": MySQL handshake: connection closed by the server", func() string { return collectErr(t, addr, nil) })
}

// TestHopQueryStall: the handshake completes, the first statement is never
// answered. The error names the statement by its first words.
func TestHopQueryStall(t *testing.T) {
	addr := testnet.ScriptedListener(t, func(c net.Conn) {
		if handshake(c) {
			readPacket(c) // COM_QUERY, never answered
		}
	})
	want := addr + `: query "SELECT @@version_comment AS version_comment, @@time_zone AS …": no answer within 200ms`
	if got := scrape.QueryHop(doris.SessionVars.Statements[0].Build()); !strings.Contains(want, got) {
		t.Fatalf("the first statement changed: %s", got)
	}
	wantEveryRun(t, want, func() string { return collectErr(t, addr, nil) })
}

func TestHopQueryClosed(t *testing.T) {
	addr := testnet.ScriptedListener(t, func(c net.Conn) {
		if handshake(c) {
			readPacket(c)
		}
		c.Close()
	})
	want := addr + `: query "SELECT @@version_comment AS version_comment, @@time_zone AS …": connection closed by the server`
	wantEveryRun(t, want, func() string { return collectErr(t, addr, nil) })
}

// The fake FE below speaks just enough of the MySQL protocol (v10 greeting,
// mysql_native_password, an OK) for the driver to finish its handshake.

func packet(seq byte, payload []byte) []byte {
	h := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), seq}
	return append(h, payload...)
}

func greeting() []byte {
	const caps = 0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000 // long password, 4.1, transactions, secure conn, plugin auth
	p := []byte{10}
	p = append(p, "5.7.99-fake\x00"...)
	p = binary.LittleEndian.AppendUint32(p, 1)
	p = append(p, "abcdefgh"...) // auth data part 1
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint16(p, caps&0xffff)
	p = append(p, 33) // utf8_general_ci
	p = binary.LittleEndian.AppendUint16(p, 2)
	p = binary.LittleEndian.AppendUint16(p, caps>>16)
	p = append(p, 21)
	p = append(p, make([]byte, 10)...)
	p = append(p, "ijklmnopqrst\x00"...) // auth data part 2
	p = append(p, "mysql_native_password\x00"...)
	return packet(0, p)
}

func readPacket(c net.Conn) ([]byte, bool) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil, false
	}
	b := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	_, err := io.ReadFull(c, b)
	return b, err == nil
}

// handshake plays the server's side up to the OK after authentication.
func handshake(c net.Conn) bool {
	if _, err := c.Write(greeting()); err != nil {
		return false
	}
	if _, ok := readPacket(c); !ok {
		return false
	}
	_, err := c.Write(packet(2, []byte{0, 0, 0, 2, 0, 0, 0}))
	return err == nil
}

// TestHopHTTPHeadersSilentTSO: the clock fallback against a port that
// accepts and never answers fails, every time, with the headers text: the
// whole-request bound is larger than the per-hop one.
func TestHopHTTPHeadersSilentTSO(t *testing.T) {
	addr := testnet.SilentListener(t)
	for i := 0; i < 5; i++ {
		_, _, err := scrape.FetchTSO(context.Background(), scrape.Config{Timeout: 200 * time.Millisecond, User: "root", Password: "s3cret"}, addr)
		want := addr + " accepted the connection but sent no response headers within 200ms"
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("run %d: %v, want %q", i, err, want)
		}
	}
}
