package scrape

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Fetching /metrics from every FE and BE (design.md "Reliability": timeouts
// on every hop, named with the host; bounded reads).

// Target is one node to scrape.
type Target struct {
	Kind string `json:"kind"` // "fe", "be" or "" when unknown
	Host string `json:"host"` // host:port of the HTTP server
}

// String is "fe fe1.demo.invalid:8030".
func (t Target) String() string {
	if t.Kind == "" {
		return t.Host
	}
	return t.Kind + " " + t.Host
}

// ParseTargets reads "host:port,fe=host:port,be=host:port". Without a kind,
// port 8030 is an FE and 8040 a BE (the Doris defaults), anything else is
// left unknown.
func ParseTargets(s string) ([]Target, error) {
	var out []Target
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		t := Target{Host: item}
		if k, h, ok := strings.Cut(item, "="); ok {
			k = strings.ToLower(strings.TrimSpace(k))
			if k != "fe" && k != "be" {
				return nil, fmt.Errorf("target %q: kind must be fe or be", item)
			}
			t = Target{Kind: k, Host: strings.TrimSpace(h)}
		}
		host, port, err := net.SplitHostPort(t.Host)
		if err != nil || host == "" {
			return nil, fmt.Errorf("target %q: want host:port", item)
		}
		if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("target %q: bad port %q", item, port)
		}
		if t.Kind == "" {
			switch port {
			case "8030":
				t.Kind = "fe"
			case "8040":
				t.Kind = "be"
			}
		}
		if seen[t.Host] {
			continue
		}
		seen[t.Host] = true
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New("no targets")
	}
	return out, nil
}

// FetchOptions bound every hop of a scrape.
type FetchOptions struct {
	ConnectTimeout time.Duration // TCP connect (default 2s)
	HeaderTimeout  time.Duration // from the request sent to the response headers (default 5s)
	RequestTimeout time.Duration // the whole request, body included (default 15s)
	MaxBytes       int64         // body limit after decompression (default 64 MiB)
	Path           string        // default "/metrics"
	Concurrency    int           // ScrapeAll workers (default 8)
	KeepBody       bool          // ScrapeAll keeps the payloads (for a snapshot)
	// Lint lints each body as it streams in; the caller gives the profile
	// of the payloads (cmd: diag/metrics.LintOptions, which keeps the
	// samples the analysis reads).
	Lint exposition.Options
	// Master tells, from a body's lint, whether it is the Master FE's
	// (cmd: diag/metrics.IsMaster, node_info{type="is_master"} 1); it
	// sets ScrapeResult.IsMaster. nil: no payload is marked the Master's.
	Master func(*exposition.Result) bool
	// DialContext replaces the TCP dialer (tests).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Credentials answer a Basic challenge from the host:port asked, once
	// (docs/snapshot.md "Credentials over HTTP"); nil never sends any.
	Credentials *Credentials
	// Scheme is how ScrapeAll speaks to a target's HTTP port: "http"
	// (default) or "https" (--tls: FE enable_tls and BE TLS serve HTTPS on
	// the HTTP port itself; docs/security.md "Network").
	Scheme string
	// TLS verifies an HTTPS server (RootCAs from --tls-ca); nil: the
	// system roots.
	TLS *tls.Config
	// FEHTTPSPort (--fe-https-port), with Scheme https: the port of every
	// FE target, in place of the one given or discovered — an FE with the
	// older enable_https serves HTTPS on Config.https_port, which SHOW
	// FRONTENDS does not report (docs/security.md "Network").
	FEHTTPSPort int
	// NoCleartextCredentials (--tls without --allow-http-credentials):
	// a challenge over plain http:// is refused with a
	// *CleartextCredentialsError, never answered.
	NoCleartextCredentials bool
	// PlainHTTPCredentialsTo, when not nil, are the only host:ports whose
	// challenge over plain http:// is answered (without --tls and without
	// --allow-http-credentials: the FE and BE nodes the cluster itself
	// lists, and the --host FE; AttachMetrics and ListedNodes add them). A
	// challenge from any other origin — a URL typed for metrics lint, a
	// --targets entry — is refused with a *CleartextCredentialsError. nil:
	// no such limit (the collector's own reads of the nodes it was given).
	PlainHTTPCredentialsTo map[string]bool

	// BodyBudget bounds the bytes of /metrics bodies ScrapeAll lints at
	// once, over all targets (default DefaultBodyBudget): a body reserves
	// its Content-Length, or MaxBytes when the server sends none, and one
	// larger than the budget runs alone.
	BodyBudget int64

	Accept string      // Accept header; FetchMetrics sets the exposition one
	budget *bodyBudget // ScrapeAll's, shared by its workers
}

// DefaultBodyBudget is twice the body limit: two maximal bodies, or many
// small ones, linted at once. A linter's memory grows with the series of its
// body, at most about 0.75 byte per body byte (docs/performance.md), so a
// scrape of any number of nodes stays near 100 MB.
const DefaultBodyBudget = 2 * DefaultMaxBytes

// DefaultMaxBytes is the /metrics body limit: the seed's worst case is 50 MB
// (the same bound as the collector's DefaultMetricsMaxBytes).
const DefaultMaxBytes = DefaultMetricsMaxBytes

func (o FetchOptions) withDefaults() FetchOptions {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 2 * time.Second
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = 5 * time.Second
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 15 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Path == "" {
		o.Path = "/metrics"
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.Scheme == "" {
		o.Scheme = "http"
	}
	if o.BodyBudget <= 0 {
		o.BodyBudget = DefaultBodyBudget
	}
	return o
}

// TimeoutError names the host and which timeout fired.
type TimeoutError struct {
	Host  string
	Phase string // "connect", "TLS handshake", "response header", "request"
	After time.Duration
}

func (e *TimeoutError) Error() string {
	switch e.Phase {
	case "connect":
		return fmt.Sprintf("connect to %s timed out after %s", e.Host, e.After)
	case "response header":
		return fmt.Sprintf("%s accepted the connection but sent no response headers within %s", e.Host, e.After)
	case "TLS handshake":
		return fmt.Sprintf("%s accepted the connection but did not complete the TLS handshake within %s", e.Host, e.After)
	}
	return fmt.Sprintf("request to %s timed out after %s (whole request)", e.Host, e.After)
}

// Timeout marks it as a timeout for net.Error-style checks.
func (e *TimeoutError) Timeout() bool { return true }

// HTTPStatusError is a non-2xx answer. URL is the one that answered (after
// a redirect, where it led), without any user info.
type HTTPStatusError struct {
	URL    string
	Status string
	Code   int
	Body   string // the start of the body, escaped for display
	// AuthUser is set when the answer came to the retry that carried the
	// credentials of this user (never the password).
	AuthUser string
	// RedirectedFrom is the URL asked when a redirect led to URL.
	RedirectedFrom string
	// Location is the Location header of a 3xx answer that was not
	// followed (not part of the text).
	Location string
}

func (e *HTTPStatusError) Error() string {
	u := e.URL
	if e.RedirectedFrom != "" {
		u += " (redirected from " + e.RedirectedFrom + ")"
	}
	msg := fmt.Sprintf("GET %s: HTTP %s", u, e.Status)
	if e.AuthUser != "" {
		msg += fmt.Sprintf(" (with the credentials of user %q, sent in answer to a Basic challenge)", e.AuthUser)
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// TooLargeError is a body over the limit.
type TooLargeError struct {
	URL   string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("GET %s: body exceeds the limit of %d bytes; refused (raise --max-bytes if this is expected)", e.URL, e.Limit)
}

// NewClient builds an HTTP client whose dialer names a connect timeout.
// The whole-request and header timeouts are applied per request by
// FetchMetrics, so the error can say which one fired.
func NewClient(opts FetchOptions) *http.Client {
	o := opts.withDefaults()
	dial := o.DialContext
	if dial == nil {
		d := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
		dial = d.DialContext
	}
	dial = guarded(dial)
	tr := &http.Transport{
		Proxy: nil, // a cluster's own nodes: never through a proxy
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if err := ReservedName(addr); err != nil {
				return nil, err
			}
			dctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
			defer cancel()
			c, err := dial(dctx, network, addr)
			if err != nil && ctx.Err() == nil && (errors.Is(dctx.Err(), context.DeadlineExceeded) || IsTimeout(err)) {
				return nil, &TimeoutError{Host: addr, Phase: "connect", After: o.ConnectTimeout}
			}
			return c, err
		},
		TLSClientConfig:     httpsConfig(o.TLS),
		TLSHandshakeTimeout: o.ConnectTimeout,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("stopped after 3 redirects")
			}
			return nil
		},
	}
}

func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Payload is one fetched /metrics body.
type Payload struct {
	URL             string        `json:"url"`
	Status          int           `json:"status"`
	ContentType     string        `json:"content_type,omitempty"`
	ContentEncoding string        `json:"content_encoding,omitempty"`
	Body            []byte        `json:"-"`
	Bytes           int64         `json:"bytes"`
	FetchTime       time.Duration `json:"fetch_time_ns"`
	// Authenticated: the body answered the one retry that carried the
	// credentials (a Basic challenge asked for them).
	Authenticated bool `json:"-"`
	// Date is the answer's Date header, as sent ("" when none): a server
	// clock reading (doctor).
	Date string `json:"-"`
}

// FetchMetricsTo GETs url with the client through getTo, the one HTTP GET of
// dorisdiag: bounded by opts' header and whole request timeouts (the
// client's dialer bounds the connect), no credentials unless a Basic
// challenge asks for them (opts.Credentials). The 2xx body is streamed to
// sink, never buffered (Payload.Body stays nil, Payload.Bytes counts it): at
// most opts.MaxBytes of (decompressed) body are read, and memory does not
// grow with the body. Errors name the host and what failed (a
// *TimeoutError, *HTTPStatusError or *TooLargeError, wrapped) or, when the
// body was read whole, are what sink returned.
func FetchMetricsTo(ctx context.Context, client *http.Client, url string, opts FetchOptions, sink func(io.Reader) error) (Payload, error) {
	if opts.Accept == "" {
		opts.Accept = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
	}
	return getTo(ctx, client, url, opts, nil, sink)
}

// classify replaces a context error by the timeout that caused it.
func classify(err error, ctx context.Context) error {
	var te *TimeoutError
	if errors.As(err, &te) {
		return te
	}
	if cause := context.Cause(ctx); cause != nil && errors.As(cause, &te) {
		return te
	}
	return err
}

// ScrapeResult is the outcome for one target.
type ScrapeResult struct {
	Target    Target        `json:"target"`
	URL       string        `json:"url"`
	Reachable bool          `json:"reachable"`
	Status    int           `json:"status,omitempty"`
	Bytes     int64         `json:"bytes"`
	FetchTime time.Duration `json:"fetch_time_ns"`
	Err       error         `json:"-"`
	Body      string        `json:"-"` // with FetchOptions.KeepBody

	Lint *exposition.Result `json:"-"`
	// IsMaster: FetchOptions.Master said the body is the Master FE's.
	IsMaster bool `json:"-"`
}

// ScrapeAll fetches and lints every target with a bounded worker pool.
// Results come back in the order of targets; one target's failure is its
// own result, never the others'.
func ScrapeAll(ctx context.Context, client *http.Client, targets []Target, opts FetchOptions) []ScrapeResult {
	o := opts.withDefaults()
	o.budget = newBodyBudget(o.BodyBudget)
	out := make([]ScrapeResult, len(targets))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(o.Concurrency, len(targets)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = scrapeOne(ctx, client, targets[i], o)
			}
		}()
	}
	for i := range targets {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

func scrapeOne(ctx context.Context, client *http.Client, t Target, o FetchOptions) ScrapeResult {
	host := t.Host
	if t.Kind == "fe" && o.Scheme == "https" {
		host = withPort(host, o.FEHTTPSPort)
	}
	url := o.Scheme + "://" + host + o.Path
	r := ScrapeResult{Target: t, URL: url}
	// The body streams into the linter as it arrives: one pass, never
	// held whole unless KeepBody asks for it (a snapshot stores it).
	var kept strings.Builder
	var res *exposition.Result
	var lerr error
	p, err := FetchMetricsTo(ctx, client, url, o, func(body io.Reader) error {
		if o.KeepBody {
			body = io.TeeReader(body, &kept)
		}
		res, lerr = lint.Lint(body, o.Lint)
		return nil
	})
	r.Status, r.Bytes, r.FetchTime = p.Status, p.Bytes, p.FetchTime
	if err != nil {
		r.Err = err
		// An HTTP answer, even an error, means the node is reachable.
		var se *HTTPStatusError
		var tl *TooLargeError
		r.Reachable = errors.As(err, &se) || errors.As(err, &tl)
		return r
	}
	r.Reachable = true
	if lerr != nil {
		r.Err = fmt.Errorf("linting %s: %w", url, lerr)
	}
	r.Lint = res
	if res != nil && o.Master != nil {
		r.IsMaster = o.Master(res)
	}
	r.Body = kept.String()
	return r
}

// TargetsFromSnapshot lists every FE and BE of a snapshot with an HTTP
// port (SHOW FRONTENDS' HttpPort, SHOW BACKENDS' HttpPort), the targets
// `metrics scrape --host` and a live check fetch /metrics from.
func TargetsFromSnapshot(s *snapshot.Snapshot) []Target {
	var out []Target
	for _, nodes := range [][]snapshot.Node{s.Frontends, s.Backends} {
		for _, n := range nodes {
			if n.Host == "" || n.HTTPPort <= 0 {
				continue
			}
			out = append(out, Target{Kind: n.Kind, Host: net.JoinHostPort(strings.Trim(n.Host, "[]"), strconv.Itoa(n.HTTPPort))})
		}
	}
	return out
}

// ListedNodes is to (a copy) with the host:port of every FE and BE the
// snapshot lists and of the extra targets (the --host FE) added; nil when
// to is nil (no limit stays no limit).
func ListedNodes(to map[string]bool, s *snapshot.Snapshot, extra ...Target) map[string]bool {
	if to == nil {
		return nil
	}
	out := make(map[string]bool, len(to))
	for k := range to {
		out[k] = true
	}
	var ts []Target
	if s != nil {
		ts = TargetsFromSnapshot(s)
	}
	for _, t := range append(ts, extra...) {
		out[strings.ToLower(t.Host)] = true
	}
	return out
}

// ReservedName refuses, before any lookup, a host in the reserved .invalid
// domain (RFC 2606, RFC 6761 §6.4: such names never resolve). The bundled
// scenarios name their nodes so (fe1.demo.invalid), and asking a resolver
// for them would still send a packet off the machine.
func ReservedName(addr string) error {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "invalid" || strings.HasSuffix(h, ".invalid") {
		return &ReservedNameError{Addr: addr}
	}
	return nil
}

// ReservedNameError is a host in the reserved .invalid domain, refused
// before any lookup (reservedName): for doctor, an unresolvable name.
type ReservedNameError struct{ Addr string }

func (e *ReservedNameError) Error() string {
	return e.Addr + ": a name in the reserved .invalid domain (RFC 6761) never resolves; not looked up"
}

// Payloads turns scrape results into the snapshot's /metrics payloads
// (bodies as kept by FetchOptions.KeepBody), fetched at at.
func Payloads(results []ScrapeResult, at time.Time) []snapshot.MetricsPayload {
	var out []snapshot.MetricsPayload
	for _, r := range results {
		mp := snapshot.MetricsPayload{Kind: r.Target.Kind, Target: r.Target.Host, URL: r.URL, FetchedAt: at.UTC(), Bytes: r.Bytes, Body: r.Body, IsMaster: r.IsMaster}
		if r.Err != nil {
			mp.Error = r.Err.Error()
		}
		out = append(out, mp)
	}
	return out
}

// AttachMetrics fetches and lints /metrics of every node: targets when
// given, else the FEs and BEs s lists (TargetsFromSnapshot), else fallback
// (the FE connected to). s.Metrics gets one payload per node, replacing the
// collector's Master-only one — with its body only when fo.KeepBody; the
// results carry the lint of each body, made as it streamed in. So a check
// of N nodes holds no body: its memory is that of fo.Concurrency linters at
// once, whatever N (issue 14, "not N × the worst"; docs/performance.md).
// Each fetch has its own timeouts; an unreachable node is a payload with an
// error, never a hang.
func AttachMetrics(ctx context.Context, s *snapshot.Snapshot, targets []Target, fallback Target, fo FetchOptions) []ScrapeResult {
	fo.PlainHTTPCredentialsTo = ListedNodes(fo.PlainHTTPCredentialsTo, s, fallback)
	if len(targets) == 0 {
		targets = TargetsFromSnapshot(s)
	}
	if len(targets) == 0 {
		targets = []Target{fallback}
	}
	res := ScrapeAll(ctx, NewClient(fo), targets, fo)
	s.Metrics = Payloads(res, time.Now())
	return res
}
