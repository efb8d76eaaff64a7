package exporter_test

// The serving path's regression tests (issue "One truth, unattended", Why:
// "Cost and limits"): one encoding per published round and format, OpenMetrics
// as documented, label values capped in bytes, bounded connections and idle
// keep-alives, /healthz without authentication, a round timeout that names
// its flag.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"golang.org/x/crypto/bcrypt"

	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// countingCollector counts how often the registry is collected.
type countingCollector struct{ n *atomic.Int64 }

var countDesc = prometheus.NewDesc("test_collects", "collections", nil, nil)

func (c countingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- countDesc }
func (c countingCollector) Collect(ch chan<- prometheus.Metric) {
	c.n.Add(1)
	ch <- prometheus.MustNewConstMetric(countDesc, prometheus.GaugeValue, 1)
}

func fetchT(t testing.TB, url, accept, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding) // set by hand: the transport does not decompress then
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

const (
	acceptText = "text/plain;version=0.0.4"
	acceptOM   = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
)

// TestMetricsEncodedOncePerRoundAndFormat: ten scrapes of each format and
// encoding after a round collect the registry once per format (the gzip body
// is the plain body compressed, not a second rendering); the next round's
// first scrape renders again, and serves the new round.
func TestMetricsEncodedOncePerRoundAndFormat(t *testing.T) {
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	e := demoExporter(t, s, 1)
	var n atomic.Int64
	e.Registry().MustRegister(countingCollector{&n})
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	var texts [][]byte
	for i := 0; i < 10; i++ {
		for _, enc := range []string{"", "gzip"} {
			for _, acc := range []string{acceptText, acceptOM} {
				resp, b := fetchT(t, srv.URL+"/metrics", acc, enc)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%s %s: %s", acc, enc, resp.Status)
				}
				if enc == "gzip" {
					if resp.Header.Get("Content-Encoding") != "gzip" {
						t.Fatalf("asked for gzip, got Content-Encoding %q", resp.Header.Get("Content-Encoding"))
					}
					zr, err := gzip.NewReader(bytes.NewReader(b))
					if err != nil {
						t.Fatal(err)
					}
					if b, err = io.ReadAll(zr); err != nil {
						t.Fatal(err)
					}
				}
				if acc == acceptText {
					texts = append(texts, b)
				}
			}
		}
	}
	if got := n.Load(); got != 2 {
		t.Errorf("40 scrapes in 2 formats × 2 encodings collected the registry %d times, want 2 (once per format)", got)
	}
	for _, b := range texts[1:] {
		if !bytes.Equal(b, texts[0]) {
			t.Fatal("two scrapes of one round served different text bodies")
		}
	}
	// The next round encodes the two formats scraped in this one as it
	// publishes; its scrapes collect nothing more.
	mustRound(t, e)
	if n.Load() != 4 {
		t.Errorf("publishing round 2 collected %d times in all, want 4 (the 2 formats scraped in round 1)", n.Load())
	}
	for i := 0; i < 10; i++ {
		fetchT(t, srv.URL+"/metrics", acceptOM, "gzip")
		_, b := fetchT(t, srv.URL+"/metrics", acceptText, "")
		if !strings.Contains(string(b), "dorisdiag_exporter_rounds_total 2\n") {
			t.Fatal("a scrape after round 2 does not serve round 2")
		}
	}
	if n.Load() != 4 {
		t.Errorf("scrapes of round 2 in the formats already encoded collected %d times in all, want 4", n.Load())
	}
	// A format not asked for before is encoded by its first scrape.
	fetchT(t, srv.URL+"/metrics", "application/openmetrics-text;version=0.0.1", "")
	if n.Load() != 5 {
		t.Errorf("the first OpenMetrics 0.0.1 scrape collected %d times in all, want 5", n.Load())
	}
}

// TestMetricsOpenMetrics: docs/exporter.md promises OpenMetrics; asked for
// it, /metrics answers application/openmetrics-text 1.0.0 that Prometheus's
// own OpenMetrics parser reads to the final # EOF, with the same samples as
// the text format.
func TestMetricsOpenMetrics(t *testing.T) {
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	e := demoExporter(t, s, 2)
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	resp, om := fetchT(t, srv.URL+"/metrics", acceptOM, "")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text; version=1.0.0") {
		t.Fatalf("Content-Type %q, want OpenMetrics 1.0.0", ct)
	}
	if !bytes.HasSuffix(om, []byte("# EOF\n")) {
		t.Fatal("the OpenMetrics body does not end in # EOF")
	}
	omSamples := parseAll(t, om, "application/openmetrics-text")
	resp, text := fetchT(t, srv.URL+"/metrics", "", "")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("without Accept: Content-Type %q, want the text format", ct)
	}
	textSamples := parseAll(t, text, "text/plain")
	if len(omSamples) == 0 || len(omSamples) != len(textSamples) {
		t.Fatalf("OpenMetrics has %d samples, text %d", len(omSamples), len(textSamples))
	}
	for k, v := range textSamples {
		if strings.Contains(k, `"go_`) || strings.Contains(k, `"process_`) { // sampled per encoding
			continue
		}
		if ov, ok := omSamples[k]; !ok || ov != v {
			t.Errorf("%s: text %v, OpenMetrics %v (present %v)", k, v, ov, ok)
		}
	}
}

// parseAll reads a payload with Prometheus's own parser for its type and
// returns every sample by series.
func parseAll(t *testing.T, b []byte, contentType string) map[string]float64 {
	t.Helper()
	st := labels.NewSymbolTable()
	var p textparse.Parser
	if strings.HasPrefix(contentType, "application/openmetrics-text") {
		p = textparse.NewOpenMetricsParser(b, st)
	} else {
		p = textparse.NewPromParser(b, st, false)
	}
	out := map[string]float64{}
	for {
		et, err := p.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", contentType, err)
		}
		if et != textparse.EntrySeries {
			continue
		}
		var ls labels.Labels
		p.Labels(&ls)
		_, _, v := p.Series()
		out[ls.String()] = v
	}
}

// TestLabelValuesCappedWithHash: two streams whose names are 32 KB and share
// all but their last byte are served with label values of at most the cap,
// still as two series (the hash suffix), and the cuts are counted.
func TestLabelValuesCappedWithHash(t *testing.T) {
	base, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	s := *base
	s.Streams = append([]snapshot.Stream(nil), base.Streams...)
	long := strings.Repeat("ストリーム", 32<<10/15)
	var renamed []string
	for i := range s.Streams {
		if len(renamed) == 2 {
			break
		}
		if s.Streams[i].Name == "" {
			continue
		}
		s.Streams[i].Name = long + fmt.Sprint(i)
		renamed = append(renamed, s.Streams[i].Name)
	}
	if len(renamed) < 2 {
		t.Fatal("the incident scenario has fewer than two streams")
	}
	e := demoExporter(t, &s, 1)
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	_, body := fetchT(t, srv.URL+"/metrics", acceptText, "")
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the served body does not parse: %v", err)
	}
	cut, names := 0, map[string]bool{}
	for _, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if len(l.GetValue()) > exporter.DefaultMaxLabelValueBytes {
					t.Fatalf("%s{%s}: a label value of %d bytes, cap %d", f.GetName(), l.GetName(), len(l.GetValue()), exporter.DefaultMaxLabelValueBytes)
				}
				if strings.HasPrefix(l.GetValue(), long[:64]) {
					cut++
					if f.GetName() == "doris_fe_changelog_stream_state" {
						names[l.GetValue()] = true
					}
				}
			}
		}
	}
	if cut == 0 {
		t.Fatal("no cut stream name served: the renamed streams have no per-object series")
	}
	if len(names) != len(renamed) {
		t.Errorf("%d renamed streams served as %d distinct stream_name values, want %d", len(renamed), len(names), len(renamed))
	}
	for v := range names {
		if want := exporter.CutLabelValue(renamed[0], exporter.DefaultMaxLabelValueBytes); v != want && v != exporter.CutLabelValue(renamed[1], exporter.DefaultMaxLabelValueBytes) {
			t.Errorf("served %q, not a cut of a renamed stream", v)
		}
	}
	self := fams[exporter.LabelValuesTruncated]
	if self == nil || len(self.Metric) != 1 || int(self.Metric[0].GetGauge().GetValue()) != cut {
		t.Errorf("%s = %v, want %d (the cuts served)", exporter.LabelValuesTruncated, self, cut)
	}
	if len(body) > 1<<20 {
		t.Errorf("a /metrics of %d bytes for the incident scenario", len(body))
	}
}

// TestCutLabelValue: the cut keeps valid UTF-8, fits the cap, and two
// values that differ only past the cap differ once cut.
func TestCutLabelValue(t *testing.T) {
	for _, max := range []int{0, 5, 17, 18, 40, 256} {
		a, b := strings.Repeat("é", 300)+"a", strings.Repeat("é", 300)+"b"
		ca, cb := exporter.CutLabelValue(a, max), exporter.CutLabelValue(b, max)
		if ca == cb {
			t.Errorf("max %d: %q and %q cut alike", max, a, b)
		}
		if max >= 17 && len(ca) > max {
			t.Errorf("max %d: %d bytes", max, len(ca))
		}
		if !strings.HasPrefix(a, strings.Split(ca, "~")[0]) || strings.ContainsRune(ca, '\uFFFD') {
			t.Errorf("max %d: %q is no prefix of the value on a rune boundary", max, ca)
		}
	}
	if v := exporter.CutLabelValue("short", 256); v != "short" {
		t.Errorf("a short value was changed: %q", v)
	}
}

// serveT starts ServeWeb on 127.0.0.1:0 and returns its address.
func serveT(t *testing.T, wo exporter.WebOptions) string {
	t.Helper()
	s, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New(exporter.Options{Interval: interval, Source: exporter.DemoSource(s, interval), Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := exporter.Listen([]string{"127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.ServeWeb(ctx, ls, wo) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeWeb: %v", err)
		}
	})
	return ls[0].Addr().String()
}

// keepAliveGet sends one HTTP/1.1 request on conn and reads its response,
// leaving the connection open (keep-alive).
func keepAliveGet(conn net.Conn, br *bufio.Reader, path string) (*http.Response, error) {
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// TestIdleKeepAlivesBounded: with a limit of 2 connections, two idle
// keep-alive connections hold the listener; a third is not served until one
// of them closes, then it is — 20,000 idle connections can no longer take
// the process's file descriptors.
func TestIdleKeepAlivesBounded(t *testing.T) {
	addr := serveT(t, exporter.WebOptions{MaxConnections: 2, IdleTimeout: time.Hour})
	var conns []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if resp, err := keepAliveGet(c, bufio.NewReader(c), "/healthz"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v %v", i, resp, err)
		}
		conns = append(conns, c)
	}
	third, err := net.Dial("tcp", addr) // the kernel's accept queue takes it
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if _, err := fmt.Fprintf(third, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(third)
	_ = third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := br.Peek(1); err == nil {
		t.Fatal("a third connection was served while two idle keep-alive connections held the limit of 2")
	}
	conns[0].Close()
	_ = third.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the third connection was not served after one closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("third connection: %s", resp.Status)
	}
}

// TestIdleKeepAliveClosedByServer: the server closes a keep-alive connection
// idle past its IdleTimeout (the client sees EOF, not its own deadline).
func TestIdleKeepAliveClosedByServer(t *testing.T) {
	addr := serveT(t, exporter.WebOptions{IdleTimeout: 50 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	if _, err := keepAliveGet(c, br, "/healthz"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("reading an idle keep-alive connection: %v, want EOF (closed by the server)", err)
	}
}

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestHealthzWithoutAuth: with basic auth on (plain HTTP, and TLS), the
// liveness probe /healthz answers 200 without credentials, while /metrics
// and /readyz still ask for them — the documented Kubernetes liveness probe
// no longer restarts a healthy pod.
func TestHealthzWithoutAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	users := "basic_auth_users:\n  prometheus: " + string(hash) + "\n"
	for _, tc := range []struct {
		name, cfg, scheme string
	}{
		{"basic auth", users, "http"},
		{"TLS and basic auth", users + "tls_server_config:\n  cert_file: " + certFile + "\n  key_file: " + keyFile + "\n", "https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yml")
			if err := os.WriteFile(cfg, []byte(tc.cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			addr := serveT(t, exporter.WebOptions{ConfigFile: cfg})
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
			do := func(path string, auth bool) int {
				req, _ := http.NewRequest(http.MethodGet, tc.scheme+"://"+addr+path, nil)
				if auth {
					req.SetBasicAuth("prometheus", "s3cret")
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if c := do("/healthz", false); c != http.StatusOK {
				t.Errorf("/healthz without credentials: %d, want 200", c)
			}
			for _, p := range []string{"/metrics", "/readyz", "/"} {
				if c := do(p, false); c != http.StatusUnauthorized {
					t.Errorf("%s without credentials: %d, want 401", p, c)
				}
			}
			if c := do("/metrics", true); c != http.StatusOK {
				t.Errorf("/metrics with credentials: %d, want 200", c)
			}
		})
	}
}

// TestRoundTimeoutNamesFlag: a round that runs out of --round-timeout says
// so, with the bound and the flag, in its error and on /readyz, and is still
// a deadline error for errors.Is.
func TestRoundTimeoutNamesFlag(t *testing.T) {
	e, err := exporter.New(exporter.Options{Interval: interval, RoundTimeout: 20 * time.Millisecond,
		Source: func(ctx context.Context, _ int) (*snapshot.Snapshot, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("reading table_streams: %w", ctx.Err())
		}})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Round(context.Background())
	if err == nil {
		t.Fatal("a round past its timeout succeeded")
	}
	for _, want := range []string{"--round-timeout 20ms", "reading table_streams"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("round error %q does not say %q", err, want)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("round error %q is not a deadline error", err)
	}
	srv := httptest.NewServer(mustHandler(t, e))
	defer srv.Close()
	resp, b := fetchT(t, srv.URL+"/readyz", "", "")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "--round-timeout 20ms") {
		t.Errorf("/readyz: %s %q, want 503 naming --round-timeout", resp.Status, b)
	}
	// A cancelled parent (SIGTERM) is no timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e2, _ := exporter.New(exporter.Options{Interval: interval, RoundTimeout: time.Hour,
		Source: func(ctx context.Context, _ int) (*snapshot.Snapshot, error) { return nil, ctx.Err() }})
	if err := e2.Round(ctx); err == nil || strings.Contains(err.Error(), "--round-timeout") {
		t.Errorf("a cancelled round: %v, want a cancellation that does not blame --round-timeout", err)
	}
}
