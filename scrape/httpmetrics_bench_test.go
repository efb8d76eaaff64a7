package scrape

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// seriesBody streams size bytes of /metrics lines, each a distinct series
// (about 1.5 million for 64 MiB, five times the seed's worst Master FE),
// without holding them.
type seriesBody struct {
	size, n, i int
	line, buf  []byte
}

func (s *seriesBody) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) && s.n < s.size {
		if len(s.line) == 0 {
			b := append(s.buf[:0], `doris_be_bench{node="n`...)
			b = strconv.AppendInt(b, int64(s.i), 10)
			b = append(b, `",kind="x"} `...)
			b = strconv.AppendInt(b, int64(s.i), 10)
			s.buf = append(b, '\n')
			s.line = s.buf
			s.i++
		}
		c := copy(p[k:], s.line)
		c = min(c, s.size-s.n)
		s.line = s.line[c:]
		k, s.n = k+c, s.n+c
	}
	if s.n >= s.size {
		return k, io.EOF
	}
	return k, nil
}

// BenchmarkScrape64MiB fetches and lints one 64 MiB /metrics body over real
// HTTP (issue 14: "a 64 MiB HTTP body uses 275 MB"): -benchmem shows what
// one scrape allocates; the body is streamed into the linter, not buffered.
func BenchmarkScrape64MiB(b *testing.B) {
	const size = 64 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, &seriesBody{size: size})
	}))
	defer srv.Close()
	o := FetchOptions{MaxBytes: size}
	client := NewClient(o)
	targets := []Target{{Kind: "be", Host: srv.Listener.Addr().String()}}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		res := ScrapeAll(context.Background(), client, targets, o)
		if res[0].Err != nil || res[0].Lint == nil || res[0].Bytes != size {
			b.Fatal(res[0].Err, res[0].Bytes)
		}
	}
}
