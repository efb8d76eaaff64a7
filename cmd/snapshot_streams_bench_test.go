package cmd

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// streamsOnlyScale is issue 24's streams-only shape: n user streams over
// 1,000 base tables without partitions, so no stream has a consumption row
// (about 520 bytes a stream in the file), no MVs.
func streamsOnlyScale(n int) scenario.ScaleConfig {
	return scenario.ScaleConfig{UserStreams: n, Tables: min(n, 1000), NoPartitions: true}
}

// writeScaleFile writes the scale generator's snapshot for c to dir/name
// and returns its path and size.
func writeScaleFile(tb testing.TB, dir, name string, c scenario.ScaleConfig) (string, int64) {
	tb.Helper()
	p := filepath.Join(dir, name)
	size, err := scenario.WriteScaleFile(p, c)
	if err != nil {
		tb.Fatal(err)
	}
	return p, size
}

// BenchmarkCheckSnapshotStreamsOnly is `check --snapshot FILE --fail-on
// none` in process (decode, diagnosis and the table report to a discarding
// writer) on the streams-only shape, for a heap profile
// (docs/performance.md "Bounded snapshots"):
//
//	DORISDIAG_BENCH_STREAMS=100000 go test ./cmd -run '^$' -bench CheckSnapshotStreamsOnly -benchtime 1x -memprofile mem.out
//
// DORISDIAG_BENCH_STREAMS sets the streams (default 20,000); DORISDIAG_BENCH_ARGS
// adds arguments ("-o json").
func BenchmarkCheckSnapshotStreamsOnly(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("DORISDIAG_BENCH_STREAMS"))
	if n <= 0 {
		n = 20_000
	}
	file, size := writeScaleFile(b, b.TempDir(), "streams.json", streamsOnlyScale(n))
	args := append([]string{"check", "--snapshot", file, "--fail-on", "none"}, strings.Fields(os.Getenv("DORISDIAG_BENCH_ARGS"))...)
	b.ReportMetric(float64(size)/float64(n), "file-B/stream")
	b.ResetTimer()
	for b.Loop() {
		var errb strings.Builder
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: &errb, Getenv: func(string) string { return "" }}
		if code := Main(args, ios); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
