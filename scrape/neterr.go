package scrape

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
)

// The MySQL hops of a live collection. A query's hop is `query "<its first
// words>"` (QueryHop). docs/snapshot.md "Network errors" lists every text.
const (
	HopMySQLConnect   = "MySQL connect"
	HopMySQLHandshake = "MySQL handshake"
)

// What went wrong on a hop: NetError.Kind.
const (
	KindTimeout = "timeout" // no answer within the hop's bound
	KindClosed  = "closed"  // the server closed (or reset) the connection
	KindRefused = "refused" // nothing listens on host:port
	KindServer  = "server"  // the server answered with an error (e.g. 1045)
	KindOther   = "other"   // anything else, with the underlying text
)

// NetError is every failure of a MySQL hop of a live collection. Its text is
// fixed by the hop and the kind — never by which of the driver's read
// deadline or the hop's context happened to fire first:
//
//	127.0.0.1:9030: MySQL handshake: no answer within 2s
//
// The hop is known from where the failure happened (the connector dials, then
// handshakes; the client runs statements), not guessed from the driver's text.
type NetError struct {
	Host  string        // host:port
	Hop   string        // HopMySQLConnect, HopMySQLHandshake or QueryHop(q)
	Kind  string        // KindTimeout, ...
	After time.Duration // the bound of this hop (--timeout)
	Err   error         // the underlying error (a *mysql.MySQLError for KindServer)
}

func (e *NetError) Error() string {
	prefix := e.Host + ": " + e.Hop + ": "
	switch e.Kind {
	case KindTimeout:
		return prefix + "no answer within " + e.After.String()
	case KindClosed:
		return prefix + "connection closed by the server"
	case KindRefused:
		return prefix + "connection refused"
	}
	return prefix + e.Err.Error()
}

// Unwrap keeps errors.As(err, *mysql.MySQLError) working. driver.ErrBadConn
// is not exposed: database/sql would silently retry on it and the hop would
// be lost.
func (e *NetError) Unwrap() error {
	if e.Err == nil || errors.Is(e.Err, driver.ErrBadConn) {
		return nil
	}
	return e.Err
}

// Timeout marks a timeout for net.Error-style checks.
func (e *NetError) Timeout() bool { return e.Kind == KindTimeout }

// netErr classifies err, which happened on hop under hopCtx (the context that
// bounds the hop, a child of parent). The hop's deadline decides first: once
// it has passed, the text is the timeout's whatever the driver returned
// (context.DeadlineExceeded, mysql.ErrInvalidConn after the watcher closed
// the socket, or a read deadline error). The driver's own read/write
// deadlines are set above the hop's bound (OpenDB), so they cannot fire
// while the hop's bound has not elapsed.
//
// "Passed" is read from the clock (expired), not only from hopCtx.Err():
// Err is set by the context's timer callback, which runs in a goroutine of
// its own (time.AfterFunc) and, under CPU load, can be scheduled well after
// the deadline. Meanwhile the driver's read deadline (1.5× the bound, timed
// by the network poller, which wakes the reader directly) ends the read; the
// driver, seeing no cancellation recorded, returns a bare
// mysql.ErrInvalidConn, and Err() still said nil: the silent FE was
// reported as "connection closed by the server" (TestHopQueryStall under
// load, TestNetErrLateTimer).
func netErr(parent, hopCtx context.Context, host, hop string, after time.Duration, err error) error {
	if perr := parent.Err(); perr != nil || expired(parent) {
		// Canceled by the caller (Ctrl-C, the end of a --watch round, or
		// the caller's own deadline): not a network failure; say so with
		// the hop.
		if perr == nil {
			perr = context.DeadlineExceeded // its timer has not run yet
		}
		return &NetError{Host: host, Hop: hop, Kind: KindOther, After: after, Err: perr}
	}
	var me *mysql.MySQLError
	var ne net.Error
	kind := KindOther
	switch {
	case errors.Is(hopCtx.Err(), context.DeadlineExceeded), expired(hopCtx), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		kind = KindTimeout
	case errors.As(err, &me):
		kind = KindServer
	case errors.Is(err, syscall.ECONNREFUSED):
		kind = KindRefused
	case errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed):
		kind = KindClosed
	}
	return &NetError{Host: host, Hop: hop, Kind: kind, After: after, Err: err}
}

// expired reports whether ctx's deadline has passed by the (monotonic)
// clock, whether or not its timer has run yet to set ctx.Err().
func expired(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// QueryHop names a statement by its first words: `query "SELECT
// TABLE_NAME, COLUMN_NAME FROM …"`, quoted so that no text of the statement
// can act on a terminal.
func QueryHop(q string) string {
	words := strings.Fields(q)
	short := len(words) > 6
	if short {
		words = words[:6]
	}
	s := strings.Join(words, " ")
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:60])
		short = true
	}
	if short {
		s += " …"
	}
	return fmt.Sprintf("query %q", s)
}

// hopConnector opens MySQL connections in two named hops, each under its own
// bound: the TCP connect (dial), then the handshake (the greeting, TLS,
// authentication) on the connection already established. database/sql calls
// it whenever the pool has no live connection, so a reconnect after a
// statement's timeout is named the same way.
type hopConnector struct {
	inner   driver.Connector // the MySQL driver's, dialing through preDialed
	host    string           // host:port
	timeout time.Duration
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
}

type preDialedKey struct{}

// preDialed is the mysql.Config DialFunc: it hands the driver the connection
// hopConnector already dialed.
func preDialed(ctx context.Context, _, addr string) (net.Conn, error) {
	if c, ok := ctx.Value(preDialedKey{}).(net.Conn); ok {
		return c, nil
	}
	return nil, fmt.Errorf("%s: internal error: dial outside hopConnector", addr)
}

func (h *hopConnector) Driver() driver.Driver { return h.inner.Driver() }

func (h *hopConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, h.timeout)
	nc, err := h.dial(dctx, "tcp", h.host)
	if err != nil {
		err = netErr(ctx, dctx, h.host, HopMySQLConnect, h.timeout, err)
		cancel()
		return nil, err
	}
	cancel()
	hctx, cancel := context.WithTimeout(context.WithValue(ctx, preDialedKey{}, nc), h.timeout)
	defer cancel()
	dc, err := h.inner.Connect(hctx)
	if err != nil {
		nc.Close()
		return nil, netErr(ctx, hctx, h.host, HopMySQLHandshake, h.timeout, err)
	}
	return dc, nil
}
