package scrape

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"

	"github.com/dorisdiag/dorisdiag/internal/fileio"
)

// TLS over HTTP (docs/security.md "Network"). With --tls the FE's and the
// BEs' HTTP ports are spoken as HTTPS, verified with the same --tls-ca as
// the MySQL connection:
//   - FE: with enable_tls (Config.java; JettySslCustomizer.createSslConnector,
//     fe-core/.../httpv2/config/JettySslCustomizer.java @01d524ad) the one
//     connector on http_port is TLS — SHOW FRONTENDS' HttpPort is then the
//     HTTPS port. The older, experimental enable_https (Config.java @000d15ca:
//     "if enabled, http port will not be available") serves HTTPS on
//     https_port (default 8050) and answers GET /api/* and /metrics on
//     http_port with a redirect to it (HttpToHttpsJettyConfig @0e2477d8,
//     DC_CONFIDENTIAL); SHOW FRONTENDS names no HTTPS port (FrontendsProcNode
//     has no such column), so such an FE is reached with --fe-https-port
//     8050 (every FE's HTTPS port, Config: "currently all FE's https port
//     must be same") — a redirect from http_port never carries credentials.
//   - BE: enable_tls (EvHttpServer::start, be/src/http/ev_http_server.cpp
//     @00df79a8) and the older enable_https (be/src/common/config.cpp) wrap
//     webserver_port itself in TLS: SHOW BACKENDS' HttpPort.

// LoadCA reads a PEM file of CA certificates (--tls-ca).
func LoadCA(path string) (*x509.CertPool, error) {
	pem, err := fileio.ReadInput(path, 1<<20) // a regular file only (docs/security.md "Files")
	if err != nil {
		return nil, fmt.Errorf("--tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--tls-ca %s: no PEM certificate found", path)
	}
	return pool, nil
}

// HTTPSConfig is the client configuration of HTTPS to the cluster's nodes:
// the CA of caFile ("" for the system roots), TLS 1.2 or later. The server
// name is each URL's host (net/http fills it in).
func HTTPSConfig(caFile string) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := LoadCA(caFile)
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	return c, nil
}

func httpsConfig(c *tls.Config) *tls.Config {
	if c == nil {
		return &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return c.Clone()
}

// CleartextCredentialsError: a node asked for credentials over plain HTTP
// while the user asked for TLS; they were not sent.
type CleartextCredentialsError struct {
	URL  string
	User string
	// Unlisted: refused because the host is no node the cluster lists (not
	// because of --tls).
	Unlisted bool
}

func (e *CleartextCredentialsError) Error() string {
	if e.Unlisted {
		return fmt.Sprintf("GET %s: the host asks for the credentials of user %q over plain HTTP; not sent, since it is no FE or BE node the cluster lists "+
			"and a password over plain HTTP can be read by anyone on the path (use an https:// URL, or send them anyway with --allow-http-credentials)", e.URL, e.User)
	}
	return fmt.Sprintf("GET %s: the node asks for the credentials of user %q over plain HTTP; not sent, since --tls was given "+
		"(speak HTTPS to it with --http-scheme https, or send them in cleartext anyway with --allow-http-credentials)", e.URL, e.User)
}

// Scheme is the scheme of the collector's HTTP requests.
func (cfg Config) Scheme() string {
	if cfg.HTTPScheme != "" {
		return cfg.HTTPScheme
	}
	if cfg.TLS || cfg.TLSCA != "" {
		return "https"
	}
	return "http"
}

// FetchOptions are the collector's HTTP options: its timeouts, the
// credentials for a challenge, the scheme and TLS of --tls.
func (cfg Config) FetchOptions(maxBytes int64) (FetchOptions, error) {
	o := FetchOptions{ConnectTimeout: cfg.Timeout, HeaderTimeout: cfg.Timeout, RequestTimeout: wholeRequest(cfg.Timeout), MaxBytes: maxBytes,
		Credentials: &Credentials{User: cfg.User, Password: cfg.Password}, Scheme: cfg.Scheme(),
		NoCleartextCredentials: (cfg.TLS || cfg.TLSCA != "") && !cfg.AllowHTTPCredentials}
	if o.Scheme == "https" {
		c, err := HTTPSConfig(cfg.TLSCA)
		if err != nil {
			return o, err
		}
		o.TLS = c
	}
	return o, nil
}

// withPort is hostport with its port replaced by port (unchanged for 0 or a
// hostport without a port).
func withPort(hostport string, port int) string {
	if port <= 0 {
		return hostport
	}
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	return net.JoinHostPort(h, strconv.Itoa(port))
}

// FEHTTPAddr is where the collector asks an FE's HTTP endpoints: hostport,
// or with HTTPS and FEHTTPSPort that port of the same host.
func (cfg Config) FEHTTPAddr(hostport string) string {
	if cfg.Scheme() != "https" {
		return hostport
	}
	return withPort(hostport, cfg.FEHTTPSPort)
}
