package scrape

import (
	"context"
	"net/http"
)

// FetchMetrics (tests only) is the buffered GET that /api/tso and the
// doctor use, with the /metrics Accept header: it GETs url with the client
// through Get, bounded by opts' header and whole request timeouts (the
// client's dialer bounds the connect), at most limit bytes of
// (decompressed) body, no credentials unless a Basic challenge asks for
// them (opts.Credentials). Errors name the host and what failed: a
// *TimeoutError, *HTTPStatusError or *TooLargeError, wrapped.
func FetchMetrics(ctx context.Context, client *http.Client, url string, opts FetchOptions) (Payload, error) {
	if opts.Accept == "" {
		opts.Accept = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
	}
	return Get(ctx, client, url, opts, nil)
}
