package scrape

import (
	"context"
	"net/http"
)

// FetchTSOForTest exposes fetchTSO to the external tests.
func FetchTSOForTest(ctx context.Context, cfg Config, target string) (string, error) {
	cfg.defaults()
	t, _, err := fetchTSO(ctx, cfg, target)
	return t.String(), err
}

// FetchMetrics (tests only) is the buffered GET that /api/tso and the
// doctor use, with the /metrics Accept header: it GETs url with the client
// through get, bounded by opts' header and whole request timeouts (the
// client's dialer bounds the connect), at most limit bytes of
// (decompressed) body, no credentials unless a Basic challenge asks for
// them (opts.Credentials). Errors name the host and what failed: a
// *TimeoutError, *HTTPStatusError or *TooLargeError, wrapped.
func FetchMetrics(ctx context.Context, client *http.Client, url string, opts FetchOptions) (Payload, error) {
	if opts.accept == "" {
		opts.accept = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
	}
	return get(ctx, client, url, opts, nil)
}
