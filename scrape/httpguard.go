package scrape

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/dorisdiag/dorisdiag/doris"
)

// ErrNotReadOnlyHTTP is returned for an HTTP request dorisdiag must never
// send: any method but GET, or a path that reaches one of Doris's mutating
// endpoints (doris.ForbiddenEndpoints) — some change a node on a plain GET
// (GET /api/_set_config sets FE configuration, SetConfigAction). The HTTP
// side of read-only (docs/security.md).
var ErrNotReadOnlyHTTP = errors.New("refused: dorisdiag only sends HTTP GET, and never to an endpoint that changes a node")

// ForbiddenEndpointError names the endpoint a refused request would reach.
type ForbiddenEndpointError struct {
	Method   string
	URL      string
	Endpoint doris.ForbiddenEndpoint
}

func (e *ForbiddenEndpointError) Error() string {
	return fmt.Sprintf("%v: %s %s is Doris's %s %s (%s)", ErrNotReadOnlyHTTP, e.Method, e.URL, e.Endpoint.Method, e.Endpoint.Path, e.Endpoint.What)
}

func (e *ForbiddenEndpointError) Unwrap() error { return ErrNotReadOnlyHTTP }

// CheckHTTPRead is the one check every HTTP request of dorisdiag passes,
// before it is sent and again for every redirect it would follow: the
// method is GET, and the path (cleaned, case-insensitive, raw and decoded
// spellings both) reaches no endpoint of doris.ForbiddenEndpoints.
func CheckHTTPRead(method string, u *url.URL) error {
	if u == nil {
		return fmt.Errorf("%w: no URL", ErrNotReadOnlyHTTP)
	}
	shown := redactedURL(u)
	if method != http.MethodGet {
		return fmt.Errorf("%w: %s %s", ErrNotReadOnlyHTTP, method, shown)
	}
	paths := []string{u.Path}
	if raw := u.EscapedPath(); raw != u.Path {
		paths = append(paths, raw)
	}
	if dec, err := url.PathUnescape(u.EscapedPath()); err == nil && dec != u.Path {
		paths = append(paths, dec)
	}
	for _, p := range paths {
		// A ";jsessionid=…" path parameter is stripped by Java servlet
		// containers before mapping: match without it too.
		for _, q := range []string{p, stripPathParams(p)} {
			if f, ok := doris.Forbidden(q); ok {
				return &ForbiddenEndpointError{Method: method, URL: shown, Endpoint: f}
			}
		}
	}
	return nil
}

func stripPathParams(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if j := strings.IndexByte(s, ';'); j >= 0 {
			segs[i] = s[:j]
		}
	}
	return strings.Join(segs, "/")
}

func redactedURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}
