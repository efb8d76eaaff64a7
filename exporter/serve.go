package exporter

// The serving path (docs/exporter.md "Endpoints", "Serving limits"): the
// /metrics body is encoded once per published state and negotiated format
// and then served as bytes; the HTTP server has read-header, read, write
// and idle timeouts and a connection limit per listener; /healthz answers
// without authentication. Nothing here computes a value: the collector of
// metrics.go renders the published round, this file only encodes, caches
// and serves what it renders.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/exporter-toolkit/web"
	"golang.org/x/net/netutil"
)

// Serving limits (docs/exporter.md "Serving limits"). A scrape of the
// design's scale is about 1 MB of text served from memory, so a write that
// takes longer than WriteTimeout is a stuck client, not a big payload.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	// DefaultMaxConnections bounds the connections open at once on each
	// listener (idle keep-alive ones included): Prometheus servers, probes
	// and a few curls need a handful; 20,000 idle connections once exhausted
	// the file descriptors the rounds need (issue "One truth, unattended").
	DefaultMaxConnections = 64
)

// WebOptions configure the HTTP server of Serve; zero values take the
// defaults above.
type WebOptions struct {
	// ConfigFile is the exporter-toolkit web configuration (TLS, basic
	// auth); "" serves plain HTTP without authentication.
	ConfigFile                                                string
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConnections per listener; further connections wait in the
	// kernel's accept queue until one closes.
	MaxConnections int
}

func (w WebOptions) withDefaults() WebOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&w.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&w.ReadTimeout, DefaultReadTimeout)
	def(&w.WriteTimeout, DefaultWriteTimeout)
	def(&w.IdleTimeout, DefaultIdleTimeout)
	if w.MaxConnections <= 0 {
		w.MaxConnections = DefaultMaxConnections
	}
	return w
}

// Listen opens the listen addresses (--web.listen-address).
func Listen(addrs []string) ([]net.Listener, error) {
	var out []net.Listener
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			for _, o := range out {
				_ = o.Close()
			}
			return nil, fmt.Errorf("--web.listen-address %s: %w", a, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// Serve runs the rounds and serves HTTP on the listeners (TLS and basic
// auth from the exporter-toolkit web config file, when given) until ctx is
// done, then shuts down gracefully. It is ServeWeb with the default limits.
func (e *Exporter) Serve(ctx context.Context, listeners []net.Listener, webConfigFile string) error {
	return e.ServeWeb(ctx, listeners, WebOptions{ConfigFile: webConfigFile})
}

// ServeWeb is Serve with explicit serving limits.
func (e *Exporter) ServeWeb(ctx context.Context, listeners []net.Listener, wo WebOptions) error {
	wo = wo.withDefaults()
	h, err := e.Handler()
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	var noH2 bool
	if wo.ConfigFile != "" {
		if err := web.Validate(wo.ConfigFile); err != nil {
			return fmt.Errorf("--web.config.file: %w", err)
		}
		var authed http.Handler
		authed, tlsConfig, noH2, err = toolkitLayer(h, wo.ConfigFile)
		if err != nil {
			return fmt.Errorf("--web.config.file: %w", err)
		}
		h = livenessFirst(authed)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: wo.ReadHeaderTimeout, ReadTimeout: wo.ReadTimeout,
		WriteTimeout: wo.WriteTimeout, IdleTimeout: wo.IdleTimeout, TLSConfig: tlsConfig,
		ErrorLog: slog.NewLogLogger(e.opt.Logger.Handler(), slog.LevelDebug)}
	if noH2 {
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	e.opt.Logger.Info("serving", "tls", tlsConfig != nil, "web_config", wo.ConfigFile != "", "max_connections_per_listener", wo.MaxConnections,
		"idle_timeout", wo.IdleTimeout.String())
	errc := make(chan error, len(listeners))
	for _, l := range listeners {
		l = netutil.LimitListener(l, wo.MaxConnections)
		go func() {
			if tlsConfig != nil {
				errc <- srv.ServeTLS(l, "", "")
				return
			}
			errc <- srv.Serve(l)
		}()
	}
	runCtx, stopRounds := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); e.Run(runCtx) }()
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	stopRounds()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	<-done
	if err == nil || errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// livenessFirst answers /healthz itself, before authentication: a liveness
// probe (Kubernetes, systemd, a load balancer) carries no credentials, and a
// 401 there would restart a healthy pod. /healthz says nothing but "ok";
// everything else goes through the toolkit's authentication.
func livenessFirst(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			healthz(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// errProbe ends the toolkit's Serve on a listener that accepts nothing.
var errProbe = errors.New("probe listener: accepts nothing")

type probeListener struct{}

func (probeListener) Accept() (net.Conn, error) { return nil, errProbe }
func (probeListener) Close() error              { return nil }
func (probeListener) Addr() net.Addr            { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// toolkitLayer returns exporter-toolkit's own handler around h (basic auth,
// the configured headers and rate limit, the config re-read per request as
// the toolkit does) and its TLS configuration (certificates re-read per
// connection), by running web.Serve on a listener that accepts nothing: the
// toolkit builds both on the server it is given before it accepts. The
// exporter then serves its own listeners with them, so that /healthz can
// answer before authentication (livenessFirst), which web.Serve cannot
// express. noH2: the config disables HTTP/2.
func toolkitLayer(h http.Handler, configFile string) (authed http.Handler, tlsConfig *tls.Config, noH2 bool, err error) {
	probe := &http.Server{Handler: h}
	flags := &web.FlagConfig{WebListenAddresses: &[]string{}, WebSystemdSocket: new(bool), WebConfigFile: &configFile}
	err = web.Serve(probeListener{}, probe, flags, slog.New(slog.DiscardHandler))
	if !errors.Is(err, errProbe) {
		if err == nil {
			err = errors.New("exporter-toolkit served a listener that accepts nothing")
		}
		return nil, nil, false, err
	}
	if probe.Handler == h {
		return nil, nil, false, errors.New("exporter-toolkit did not wrap the handler")
	}
	// The toolkit's TLS configuration re-reads the certificates for every
	// client; without TLS, net/http's HTTP/2 setup of the probe may leave an
	// empty tls.Config behind, which is no TLS.
	if probe.TLSConfig == nil || probe.TLSConfig.GetConfigForClient == nil {
		return probe.Handler, nil, false, nil
	}
	noH2 = probe.TLSNextProto != nil && len(probe.TLSNextProto) == 0
	return probe.Handler, probe.TLSConfig, noH2, nil
}

// The /metrics body cache.

// DefaultMaxLabelValueBytes caps every served label value. Doris's own
// names are 64 bytes by default (the documented table_name_length_limit);
// a longer value is cut at a rune boundary and ends in "~" and 16 hex
// digits of its hash, so two long names that share a prefix stay distinct
// series (docs/exporter.md "Serving limits").
const DefaultMaxLabelValueBytes = 256

// LabelValuesTruncated is the self-series counting the label values the
// served result cut at the byte cap.
const LabelValuesTruncated = "dorisdiag_exporter_label_values_truncated"

// servedFormats are the formats /metrics negotiates, in order of
// preference: OpenMetrics 1.0.0 and 0.0.1, then the Prometheus text format
// 0.0.4 (also what a client that asks for nothing gets).
var servedFormats = []expfmt.Format{expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtText}

// bodies holds the encoded bodies of one published state.
type bodies struct {
	p  *published
	mu sync.Mutex
	m  map[bodyKey]*body
}

type bodyKey struct {
	format expfmt.Format
	gzip   bool
}

type body struct {
	once sync.Once
	b    []byte
	err  error
}

// encodeCache is the exporter's current bodies (one per published state).
type encodeCache struct {
	mu    sync.Mutex
	cur   *bodies
	sizes map[expfmt.Format]int // the last body's size per format
	// negotiated: Accept header → format (negotiate).
	negotiated map[string]expfmt.Format
}

// Body returns the /metrics body of the published state in format, gzipped
// when gz: encoded on the first request for that format after a publish,
// then served from memory until the next publish. Concurrent requests for a
// format wait for one encoding.
func (e *Exporter) Body(format expfmt.Format, gz bool) ([]byte, error) {
	p := e.cur.Load()
	e.enc.mu.Lock()
	c := e.enc.cur
	if c == nil || c.p != p {
		c = &bodies{p: p, m: map[bodyKey]*body{}}
		e.enc.cur = c
	}
	e.enc.mu.Unlock()
	return c.get(e, bodyKey{format, gz})
}

// prewarm encodes, for the state just published, the formats the previous
// state was scraped in: the round pays the encoding (once per format, as a
// scrape would have), and no scrape of a steady scraper waits for one.
func (e *Exporter) prewarm() {
	e.enc.mu.Lock()
	old := e.enc.cur
	e.enc.mu.Unlock()
	if old == nil {
		return
	}
	old.mu.Lock()
	keys := make([]bodyKey, 0, len(old.m))
	for k := range old.m {
		keys = append(keys, k)
	}
	old.mu.Unlock()
	for _, k := range keys {
		if _, err := e.Body(k.format, k.gzip); err != nil {
			e.opt.Logger.Warn("encoding /metrics", "format", string(k.format), "err", err)
		}
	}
}

func (c *bodies) entry(k bodyKey) *body {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.m[k]
	if b == nil {
		b = &body{}
		c.m[k] = b
	}
	return b
}

func (c *bodies) get(e *Exporter, k bodyKey) ([]byte, error) {
	b := c.entry(k)
	b.once.Do(func() {
		if k.gzip {
			var plain []byte
			if plain, b.err = c.get(e, bodyKey{k.format, false}); b.err == nil {
				b.b, b.err = gzipped(plain)
			}
			return
		}
		b.b, b.err = e.encode(k.format)
	})
	return b.b, b.err
}

// gzipWriters are reused across encodings: a flate compressor is about
// 1 MB of tables, allocated anew for every body before (as promhttp does,
// they are pooled).
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level: no error
	return zw
}}

func gzipped(plain []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(plain)/8 + 512)
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(plain); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Gather is what /metrics serves, as metric families: the registry's,
// every label value cut at the byte cap, plus the count of the cuts.
func (e *Exporter) Gather() ([]*dto.MetricFamily, error) {
	mfs, err := e.reg.Gather()
	if err != nil {
		// As promhttp's ContinueOnError: serve what could be gathered.
		e.opt.Logger.Warn("gathering the metrics", "err", err)
		if len(mfs) == 0 {
			return nil, err
		}
	}
	capBytes := e.opt.MaxLabelValueBytes
	if capBytes <= 0 {
		capBytes = DefaultMaxLabelValueBytes
	}
	cut := capLabelValues(mfs, capBytes)
	name, help, gauge, v := LabelValuesTruncated,
		fmt.Sprintf("Label values of the served result cut at %d bytes (each ends in ~ and 16 hex digits of its hash).", capBytes),
		dto.MetricType_GAUGE, float64(cut)
	m := &dto.Metric{Gauge: &dto.Gauge{Value: &v}}
	if e.opt.Cluster != "" { // --cluster labels every series (docs/exporter.md)
		ln, lv := "cluster", e.opt.Cluster
		m.Label = []*dto.LabelPair{{Name: &ln, Value: &lv}}
	}
	mfs = append(mfs, &dto.MetricFamily{Name: &name, Help: &help, Type: &gauge, Metric: []*dto.Metric{m}})
	sort.Slice(mfs, func(i, j int) bool { return mfs[i].GetName() < mfs[j].GetName() })
	return mfs, nil
}

func (e *Exporter) encode(format expfmt.Format) ([]byte, error) {
	mfs, err := e.Gather()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(e.enc.sizeHint(format))
	// No name escaping: every family and label name the exporter serves is
	// a legacy Prometheus name (TestOwnOutputPassesMetricsLint), so the
	// escaping pass, which walks every series to find nothing, is skipped;
	// the body is the same bytes.
	enc := expfmt.NewEncoder(&buf, format.WithEscapingScheme(model.NoEscaping))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", mf.GetName(), err)
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		if err := c.Close(); err != nil {
			return nil, err
		}
	}
	e.enc.setSizeHint(format, buf.Len())
	return buf.Bytes(), nil
}

// sizeHint is the size of the last body of format plus 1/16 (a buffer that
// grows by doubling would hold up to twice the body).
func (c *encodeCache) sizeHint(f expfmt.Format) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.sizes[f]
	return n + n/16
}

func (c *encodeCache) setSizeHint(f expfmt.Format, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sizes == nil {
		c.sizes = map[expfmt.Format]int{}
	}
	c.sizes[f] = n
}

// capLabelValues cuts every label value longer than max bytes (in place)
// and returns how many it cut.
func capLabelValues(mfs []*dto.MetricFamily, max int) int {
	n := 0
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			for i, lp := range m.Label {
				if v := lp.GetValue(); len(v) > max {
					// A new pair: the series of one object share theirs
					// (metrics.go objectSeries).
					c := CutLabelValue(v, max)
					m.Label[i] = &dto.LabelPair{Name: lp.Name, Value: &c}
					n++
				}
			}
		}
	}
	return n
}

// CutLabelValue returns v when it fits in max bytes, else its longest
// prefix that ends on a rune boundary and leaves room for "~" and 16 hex
// digits of the FNV-1a hash of the whole of v.
func CutLabelValue(v string, max int) string {
	if len(v) <= max {
		return v
	}
	const suffix = 17
	keep := max - suffix
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && keep < len(v) && !runeStart(v[keep]) {
		keep--
	}
	return v[:keep] + "~" + fmt.Sprintf("%016x", fnv1a(v))
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// metricsHandler serves the cached body in the negotiated format, gzipped
// when the client accepts it.
func (e *Exporter) metricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		format := e.negotiate(r.Header)
		gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
		b, err := e.Body(format, gz)
		if err != nil {
			e.opt.Logger.Error("encoding /metrics", "err", err)
			http.Error(w, "encoding the metrics failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", string(format))
		h.Set("Vary", "Accept, Accept-Encoding")
		if gz {
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = io.Copy(w, bytes.NewReader(b))
	})
}

// negotiate is expfmt.NegotiateAccept over the served formats, remembered
// for up to 64 distinct Accept headers (a scraper sends the same one every
// time; parsing it cost more than serving the cached body).
func (e *Exporter) negotiate(h http.Header) expfmt.Format {
	accept := strings.Join(h.Values("Accept"), ",")
	e.enc.mu.Lock()
	f, ok := e.enc.negotiated[accept]
	e.enc.mu.Unlock()
	if ok {
		return f
	}
	f = expfmt.NegotiateAccept(h, servedFormats...)
	e.enc.mu.Lock()
	if e.enc.negotiated == nil {
		e.enc.negotiated = map[string]expfmt.Format{}
	}
	if len(e.enc.negotiated) < 64 {
		e.enc.negotiated[accept] = f
	}
	e.enc.mu.Unlock()
	return f
}

// acceptsGzip: Accept-Encoding names gzip (or *) with a non-zero quality.
func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		if q > 0 {
			return true
		}
	}
	return false
}
