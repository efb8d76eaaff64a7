package scrape

import (
	"context"
	"io"
	"time"
)

// OpenMetrics GETs one /metrics payload and returns its body as a stream
// (`dorisdiag metrics lint URL`): a 64 MiB body is linted as it arrives,
// never held whole. An error before the body (refused, a status, a
// challenge refused) is returned at once; one while reading it reaches the
// reader as a read error, named as FetchMetrics names it. timeout bounds the
// whole fetch; Close ends it.
func OpenMetrics(fo FetchOptions, url string, timeout time.Duration) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	pr, pw := io.Pipe()
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := FetchMetricsTo(ctx, NewClient(fo), url, fo, func(body io.Reader) error {
			close(started)
			_, err := io.Copy(pw, body)
			return err
		})
		pw.CloseWithError(err)
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		select {
		case <-started: // an empty body, already read
		default:
			cancel()
			return nil, err
		}
	}
	return &cancelOnClose{ReadCloser: pr, cancel: cancel}, nil
}

// cancelOnClose ends the fetch when the reader is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}
