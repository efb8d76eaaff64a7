package exposition_test

// Fix's tests (exposition/fix), kept in this directory as the consumers'
// are: FuzzFixParses runs over this package's fuzz seeds and its corpus
// (testdata/fuzz/FuzzFixParses), and TestFixturesFixParses over the
// fixture payloads.

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
)

func FuzzFixParses(f *testing.F) {
	for _, s := range exposition.FuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFixParses)
}

// checkFixParses is the body of FuzzFixParses (see checkLintAgrees).
func checkFixParses(t *testing.T, data []byte) {
	{
		var out bytes.Buffer
		rep, err := fix.Fix(bytes.NewReader(data), &out, exposition.Options{})
		var om *fix.OpenMetricsError
		if errors.As(err, &om) {
			return // OpenMetrics is refused, not repaired (TestFixRefusesOpenMetrics)
		}
		if err != nil {
			t.Fatalf("Fix error: %v", err)
		}
		if !rep.OK {
			return
		}
		if perr, _ := exposition.ExpfmtVerdict(out.Bytes()); perr != nil {
			t.Fatalf("Fix claims success but expfmt rejects the output %q (input %q): %v", out.Bytes(), data, perr)
		}
		// Fix's output lints clean of errors too, and a second Fix is a no-op.
		var out2 bytes.Buffer
		rep2, err := fix.Fix(bytes.NewReader(out.Bytes()), &out2, exposition.Options{})
		if err != nil || !rep2.OK || len(rep2.Changes) != 0 || !bytes.Equal(out.Bytes(), out2.Bytes()) {
			t.Fatalf("Fix is not idempotent on %q: %v %+v", out.Bytes(), err, rep2)
		}
	}
}

// TestFixturesFixParses runs FuzzFixParses's body over the fixture payloads,
// which are too large to be fuzz seeds.
func TestFixturesFixParses(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/metrics/*.prom")
	if len(files) == 0 {
		t.Fatal("no fixtures/metrics/*.prom")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { checkFixParses(t, data) })
	}
}

// TestFixRawQuotes: the lines of TestRawQuoteHeuristic are repaired, and the
// output parses.
func TestFixRawQuotes(t *testing.T) {
	for _, in := range []string{
		"a{a=\"x\"y\", b=\"z\"} 1\n",
		"a{a=\"x\", y\", b=\"z\"} 1\n",
		"a{d=\"demo\", t=\"cust\"omer\"} 1\n",
		"a{user=\"a\\\"} 1\n",
		"a{u=\"a\\b\", t=\"x\"y\", q=\"\\t\", x=\"\\x41\", e=\"\\u00e9\"} 1\n",
	} {
		var out bytes.Buffer
		rep, err := fix.Fix(strings.NewReader(in), &out, exposition.Options{})
		if err != nil || !rep.OK {
			t.Errorf("%q: fix %v %+v", in, err, rep)
		}
		if perr, _ := exposition.ExpfmtVerdict(out.Bytes()); perr != nil {
			t.Errorf("%q: fixed output %q does not parse: %v", in, out.Bytes(), perr)
		}
	}
}

// TestFixLineFeedRejoined: the sample of TestLineFeedRejoined that a raw
// line feed split is rejoined with the line feed escaped.
func TestFixLineFeedRejoined(t *testing.T) {
	in := "# TYPE a gauge\na{mv=\"x\ny\", b=\"c\"} 1\nb 2\n"
	var out bytes.Buffer
	rep, _ := fix.Fix(strings.NewReader(in), &out, exposition.Options{})
	if want := "# TYPE a gauge\na{mv=\"x\\ny\", b=\"c\"} 1\nb 2\n"; out.String() != want || !rep.OK {
		t.Fatalf("fix: %q %+v", out.String(), rep)
	}
}

// TestFixLineTooLongCopied: Fix copies a line over the limit through
// unchanged and reports it unrepaired (TestLineTooLongSkipsOneLine).
func TestFixLineTooLongCopied(t *testing.T) {
	long := "m{a=\"" + strings.Repeat("x", 10000) + "\"} 1\n"
	in := "a 1\n" + long + "b{x=\"a\\b\"} 1\n"
	opts := exposition.Options{MaxLineBytes: 4096, BufferSize: 4096}
	var out bytes.Buffer
	rep, err := fix.Fix(strings.NewReader(in), &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || len(rep.Unrepaired) != 1 || rep.Unrepaired[0].Rule != exposition.RuleLineTooLong {
		t.Fatalf("Fix report %+v: the long line must be reported unrepaired", rep)
	}
	if want := "a 1\n" + long + "b{x=\"a\\\\b\"} 1\n"; out.String() != want {
		t.Fatalf("Fix output differs from the input with the one repair (%d vs %d bytes)", out.Len(), len(want))
	}
}
