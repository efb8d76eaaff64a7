package cmd

import (
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// Issue 24, "bounded snapshots", the streams-only shape: many streams with
// few columns and no consumption row (about 520 bytes a stream in the
// file), where memory follows the number of streams, not the bytes. `check
// --snapshot` of 400,000 such streams took 4.25 GB (docs/performance.md
// "Bounded snapshots"): the findings were held three to four times over
// (dedupe, the policy and the grouping each copied them), every comparison
// of the sort built two object names, and the 328 MB report was rendered
// whole, copied and escaped whole; then (issue 24 item 4) every stream's
// diagnosis was held to the end, each finding twice and with its own copy
// of texts thousands of streams share, and the findings array grew by
// copying at its largest. The test runs the command in process on 20,000
// such streams and bounds its peak heap per stream (sampled, with the
// collector kept tight so that the peak is the live data, not garbage; the
// test binary's own heap included): it was 6.5 KB a stream, then 4.4-4.7
// KB, now 1.7-1.9 KB alone and up to 2.4 KB in the whole package's run
// (docs/performance.md "Bounded snapshots").
func TestSnapshotCheckStreamsOnlyHeapPerStream(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10 MB snapshot and checks it")
	}
	const n = 20_000
	const maxPerStream = 3000
	file, size := writeScaleFile(t, t.TempDir(), "streams.json", streamsOnlyScale(n))
	peak, base := peakHeap(t, func() {
		var errb strings.Builder
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: &errb, Getenv: func(string) string { return "" }}
		if code := Main([]string{"check", "--snapshot", file, "--fail-on", "none"}, ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	})
	per := peak / n // the base (the test binary's own heap, 5-14 MB) included: it varies more than the bound's margin
	t.Logf("%d streams, %d-byte file (%d bytes a stream): peak heap %d kB (base %d kB), %d bytes a stream",
		n, size, size/n, peak>>10, base>>10, per)
	if per > maxPerStream {
		t.Errorf("check --snapshot of %d streams-only: peak heap %d bytes a stream, want at most %d", n, per, maxPerStream)
	}
}

// peakHeap runs f with the collector at GOGC=10 and returns the largest
// heap of live and unswept objects sampled while it ran, and the heap
// before it.
func peakHeap(t *testing.T, f func()) (peak, base int64) {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	base = read()
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			v := read()
			mu.Lock()
			peak = max(peak, v)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return max(peak, read()), base
}
