package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// BenchmarkTSODecodeInProcess is `tso decode` without the process start:
// building the command tree and running it (docs/performance.md "Start-up").
func BenchmarkTSODecodeInProcess(b *testing.B) {
	for b.Loop() {
		var out, errb bytes.Buffer
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}
		if code := Main([]string{"tso", "decode", "470819222323200000"}, ios); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
