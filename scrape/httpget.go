package scrape

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// Credentials are the user's, for HTTP Basic auth. get sends them only in
// answer to a challenge from the host:port it asked (design.md "Credentials
// only where asked"; docs/snapshot.md "Credentials over HTTP").
type Credentials struct {
	User     string
	Password string
}

// AuthAsk recognises an answer that asks for credentials without the HTTP
// challenge: Doris's TSOAction answers HTTP 200 {"code":400,"data":"Need auth
// information."} (see tsoAsksForAuth). nil: only a 401 Basic challenge counts.
type AuthAsk func(body []byte) bool

// Get is the one HTTP GET of dorisdiag: /api/tso, the FE's and every BE's
// /metrics all go through it.
//
//   - The first request carries no Authorization header.
//   - Only when the answer is a 401 whose WWW-Authenticate offers Basic (or,
//     for /api/tso, Doris's JSON "Need auth information." — ask), and came
//     from the very scheme://host:port requested (the final response's
//     request URL: not after a redirect elsewhere), and o.Credentials is set,
//     is the same URL asked once more with them. A 401 without a Basic
//     challenge is not retried.
//   - A redirect to another scheme://host:port never carries credentials
//     (the Authorization header and any URL user info are stripped).
//   - With o.NoCleartextCredentials (--tls), a challenge from an http://
//     origin is refused (*CleartextCredentialsError), never answered; so
//     is one from an http:// origin not in o.PlainHTTPCredentialsTo (when
//     set: the nodes the cluster lists).
//   - Timeouts: the client's dialer bounds the connect, o.HeaderTimeout the
//     wait for headers, o.RequestTimeout each attempt; the body is read up
//     to o.MaxBytes (after gzip).
//   - Errors name the URL that failed — after a redirect, the one it was
//     redirected to — and are built without the password.
func Get(ctx context.Context, client *http.Client, rawURL string, opts FetchOptions, ask AuthAsk) (Payload, error) {
	return getTo(ctx, client, rawURL, opts, ask, nil)
}

// getTo is get, with a 2xx body streamed to sink instead of buffered when
// sink is set (Payload.Body is then nil): the body is read once, bounded by
// o.MaxBytes, and never held whole (issue 14, "a 64 MiB HTTP body uses
// 275 MB"). sink runs at most once, on the final answer; an error reading
// the body (a timeout, the size limit) is returned named, whatever sink
// made of it.
func getTo(ctx context.Context, client *http.Client, rawURL string, opts FetchOptions, ask AuthAsk, sink func(io.Reader) error) (Payload, error) {
	o := opts.withDefaults()
	start := time.Now()
	p := Payload{URL: rawURL}
	u, err := url.Parse(rawURL)
	if err != nil {
		return p, fmt.Errorf("GET %s: %w", rawURL, err)
	}
	if u.User != nil {
		// Credentials never travel in a URL (they would be sent ahead of
		// any challenge, and printed with it).
		u.User = nil
		return p, fmt.Errorf("GET %s: user info in the URL is refused: credentials are sent only in answer to a Basic challenge", u.Redacted())
	}
	p.URL = u.String()
	origin := originOf(u)
	a, err := attempt(ctx, client, u, o, nil, sink)
	if err == nil && o.Credentials != nil && originOf(a.final) == origin &&
		(basicChallenge(a.status, a.header) || (ask != nil && a.status == http.StatusOK && ask(a.body))) {
		if plain := strings.EqualFold(u.Scheme, "http"); plain && (o.NoCleartextCredentials || (o.PlainHTTPCredentialsTo != nil && !o.PlainHTTPCredentialsTo[strings.ToLower(u.Host)])) {
			// TLS was asked for, or the host is none the cluster lists:
			// the password never crosses the network in cleartext to it
			// (docs/security.md "Credentials").
			p.FetchTime = time.Since(start)
			return p, &CleartextCredentialsError{URL: u.String(), User: o.Credentials.User, Unlisted: !o.NoCleartextCredentials}
		}
		a, err = attempt(ctx, client, u, o, o.Credentials, sink)
		if err == nil {
			p.Authenticated = true
		}
	}
	p.FetchTime = time.Since(start)
	if err != nil {
		return p, err
	}
	p.Status = a.status
	p.ContentType = a.header.Get("Content-Type")
	p.ContentEncoding = a.header.Get("Content-Encoding")
	p.Date = a.header.Get("Date")
	if a.status < 200 || a.status > 299 {
		se := &HTTPStatusError{URL: a.final.Redacted(), Status: a.statusText, Code: a.status, Body: exposition.DisplayValue(bytes.TrimSpace(a.body)),
			Location: a.header.Get("Location")}
		if a.final.String() != u.String() {
			se.RedirectedFrom = u.String()
		}
		if p.Authenticated {
			se.AuthUser = o.Credentials.User
		}
		return p, se
	}
	p.Body = a.body
	p.Bytes = int64(len(a.body))
	if a.streamed {
		p.Bytes = a.n
	}
	return p, a.sinkErr
}

// answer is one attempt's outcome: the final response (after redirects).
type answer struct {
	status     int
	statusText string
	header     http.Header
	final      *url.URL
	body       []byte // whole (2xx) or its first 200 bytes (otherwise)
	// streamed: the 2xx body went to the sink (n bytes); sinkErr is what
	// the sink returned.
	streamed bool
	n        int64
	sinkErr  error
}

var basicRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(?:^|,)\s*basic(?:\s|,|$)`) }) // at the first 401, not at start

// basicChallenge: a 401 whose WWW-Authenticate offers the Basic scheme
// (RFC 7617), e.g. the BE's `Basic realm="Restricted"`.
func basicChallenge(status int, h http.Header) bool {
	if status != http.StatusUnauthorized {
		return false
	}
	for _, v := range h.Values("WWW-Authenticate") {
		if basicRE().MatchString(v) {
			return true
		}
	}
	return false
}

// originOf is scheme://host:port with the default port made explicit.
func originOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// hops remembers the URL of the latest request of a redirect chain, so a
// timeout names the host that did not answer.
type hops struct {
	mu   sync.Mutex
	last *url.URL
}

func (h *hops) set(u *url.URL) {
	h.mu.Lock()
	c := *u
	c.User = nil
	h.last = &c
	h.mu.Unlock()
}

func (h *hops) get() *url.URL {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// attempt is one GET of u (following redirects), with Basic credentials
// when creds is set, under o's header and whole-request timeouts.
func attempt(ctx context.Context, client *http.Client, u *url.URL, o FetchOptions, creds *Credentials, sink func(io.Reader) error) (*answer, error) {
	if err := CheckHTTPRead(http.MethodGet, u); err != nil {
		return nil, err
	}
	origin := originOf(u)
	hop := &hops{}
	hop.set(u)
	c := *client
	next := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		// A redirect is a new request: it passes the same read-only
		// check (a 30x to /api/_set_config is not followed).
		if err := CheckHTTPRead(req.Method, req.URL); err != nil {
			return err
		}
		hop.set(req.URL)
		if originOf(req.URL) != origin {
			// net/http keeps Authorization across a redirect to another
			// port of the same host name: never let it go.
			req.Header.Del("Authorization")
			req.URL.User = nil
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	// The whole-request bound, as a timer that can pause: the wait for the
	// body budget (below) is this process's own, not the server's.
	rctx, cancelReq := context.WithCancelCause(ctx)
	defer cancelReq(nil)
	reqStart := time.Now()
	reqTimer := time.AfterFunc(o.RequestTimeout, func() {
		cancelReq(&TimeoutError{Phase: "request", After: o.RequestTimeout})
	})
	defer reqTimer.Stop()
	hctx, cancelHdr := context.WithCancelCause(rctx)
	defer cancelHdr(nil)
	// The header timeout runs from the moment the request is written, so a
	// slow connect is named as such, not as a silent server.
	var hdrMu sync.Mutex
	var hdrTimer *time.Timer
	headersIn := false
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		hdrMu.Lock()
		defer hdrMu.Unlock()
		if hdrTimer == nil && !headersIn {
			hdrTimer = time.AfterFunc(o.HeaderTimeout, func() {
				cancelHdr(&TimeoutError{Phase: "response header", After: o.HeaderTimeout})
			})
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(hctx, trace), http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u.Redacted(), err)
	}
	if o.Accept != "" {
		req.Header.Set("Accept", o.Accept)
	}
	req.Header.Set("User-Agent", "dorisdiag")
	if creds != nil {
		req.SetBasicAuth(creds.User, creds.Password)
	}
	resp, err := c.Do(req)
	hdrMu.Lock()
	headersIn = true
	fired := hdrTimer != nil && !hdrTimer.Stop()
	hdrMu.Unlock()
	if err != nil {
		last := hop.get()
		cause := unwrapURLError(err)
		if tlsHandshakeTimeout(cause) {
			cause = &TimeoutError{Phase: "TLS handshake", After: o.ConnectTimeout}
		}
		return nil, fmt.Errorf("GET %s: %w", where(last, u), named(classify(cause, hctx), last))
	}
	defer resp.Body.Close()
	if fired {
		// The header timer fired as the headers arrived: the headers won,
		// but the request context is canceled; report the body as such.
		hctx = rctx
	}
	a := &answer{status: resp.StatusCode, statusText: resp.Status, header: resp.Header, final: hop.get()}
	if resp.Request != nil && resp.Request.URL != nil {
		f := *resp.Request.URL
		f.User = nil
		a.final = &f
	}
	var body io.Reader = resp.Body
	if !resp.Uncompressed && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("GET %s: gzip body: %w", where(a.final, u), err)
		}
		defer zr.Close()
		body = zr
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.body, _ = io.ReadAll(io.LimitReader(body, 200))
		return a, nil
	}
	if sink != nil {
		if o.budget != nil {
			// At most o.budget's bytes of bodies are linted at once
			// (ScrapeAll): memory for all targets together, not one
			// body per target. Waiting does not count against the
			// request's bound.
			w := o.budget.weight(resp.ContentLength, o.MaxBytes)
			if reqTimer.Stop() {
				spent := time.Since(reqStart)
				err := o.budget.acquire(ctx, w)
				if err != nil {
					return nil, fmt.Errorf("GET %s: waiting for the memory budget of the body: %w", where(a.final, u), err)
				}
				defer o.budget.release(w)
				reqTimer.Reset(max(o.RequestTimeout-spent, time.Millisecond))
			}
		}
		lr := &limitedBody{r: body, limit: o.MaxBytes}
		a.streamed = true
		a.sinkErr = sink(lr)
		a.n = lr.n
		switch {
		case lr.over:
			return nil, &TooLargeError{URL: where(a.final, u), Limit: o.MaxBytes}
		case lr.err != nil:
			return nil, fmt.Errorf("GET %s: reading body after %d bytes: %w", where(a.final, u), lr.n, named(classify(lr.err, hctx), a.final))
		}
		return a, nil
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(body, o.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading body after %d bytes: %w", where(a.final, u), n, named(classify(err, hctx), a.final))
	}
	if n > o.MaxBytes {
		return nil, &TooLargeError{URL: where(a.final, u), Limit: o.MaxBytes}
	}
	a.body = buf.Bytes()
	return a, nil
}

// tlsHandshakeTimeout: net/http's Transport.TLSHandshakeTimeout fired
// (its error type is unexported; it is a net.Error timeout with this text).
func tlsHandshakeTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && strings.Contains(err.Error(), "TLS handshake timeout")
}

// limitedBody reads at most limit bytes; one more is an error (over).
// It remembers the first read error, so the body's failure is reported
// with its hop whatever the sink made of it.
type limitedBody struct {
	r     io.Reader
	limit int64
	n     int64
	over  bool
	err   error
}

var errBodyTooLarge = errors.New("body over the size limit")

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.over {
		return 0, errBodyTooLarge
	}
	if l.err != nil {
		return 0, l.err
	}
	if rest := l.limit + 1 - l.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	if l.n > l.limit {
		l.over = true
		l.n = l.limit
		return k - 1, errBodyTooLarge
	}
	if err != nil && err != io.EOF {
		l.err = err
	}
	return k, err
}

// where names the URL that failed, and, after a redirect, the one asked:
// "http://be1:8040/metrics (redirected from http://fe1:8030/metrics)" —
// the node that did not answer is the one a redirect led to, never the one
// that redirected (issue 14, "Wrong host blamed after a redirect").
func where(last, asked *url.URL) string {
	if last == nil {
		return asked.String()
	}
	if l, a := last.String(), asked.String(); l != a {
		return l + " (redirected from " + a + ")"
	}
	return last.String()
}

// unwrapURLError drops net/http's *url.Error wrapper: the caller names the
// URL itself (the one of the last hop, without user info).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// named fills in the host of a header or request timeout: the host of the
// last hop, which is the one that did not answer.
func named(err error, last *url.URL) error {
	var te *TimeoutError
	if errors.As(err, &te) && te.Host == "" {
		c := *te
		c.Host = last.Host
		return &c
	}
	return err
}
