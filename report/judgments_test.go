package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
)

// An MV delay nobody knows stays unknown in -o prom: with MVs and no known
// delay the family has no sample (it exported 0, "nobody behind", so
// DorisdiagMvDelayHigh could never fire while every delay was unknown).
func TestCheckPromUnknownMVDelayHasNoSample(t *testing.T) {
	res := &check.Result{}
	res.Overview.MVs.Total = 3
	res.Overview.MVs.ByState = map[mv.FreshnessState]int{mv.FreshUnknown: 3}
	var buf bytes.Buffer
	if err := Emit(&buf, Style{}, FormatProm, CheckDoc{Result: res}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "dorisdiag_mv_max_data_delay_seconds") {
			t.Errorf("unknown delay exported as a sample: %q", line)
		}
	}
	// A known delay, even 0, is exported.
	res.Overview.MVs.MaxDelay = &check.ObjectValue{Object: "d.m", Seconds: 0, Precision: diag.PrecisionPrecise}
	buf.Reset()
	if err := Emit(&buf, Style{}, FormatProm, CheckDoc{Result: res}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\ndorisdiag_mv_max_data_delay_seconds 0\n") {
		t.Errorf("a known delay of 0 must be exported:\n%s", buf.String())
	}
}

// The overview colours the smallest headroom by diag's Level, not by a
// threshold of its own: a value diag calls a warning is yellow whatever it is.
func TestCheckOverviewHeadroomColourIsDiagsLevel(t *testing.T) {
	var buf bytes.Buffer
	st := NewStyle(&buf, true)
	res := &check.Result{}
	res.Overview.Streams.MinHeadroom = map[string]*check.ObjectValue{"user": {Object: "d.s", Seconds: 7200, Level: "warning"}}
	if err := Emit(&buf, st, FormatTable, CheckDoc{Result: res}); err != nil {
		t.Fatal(err)
	}
	if want := st.Render(st.Severity("warning", "2h00m")); !strings.Contains(buf.String(), want) {
		t.Errorf("2h of headroom judged a warning by diag is not coloured as one (want %q):\n%q", want, buf.String())
	}
}

// Every kind lists JSON (except demo) and each listed format renders.
func TestRegistryFormats(t *testing.T) {
	want := map[string]string{
		"check": "table wide json markdown prom", "streams": "table wide json markdown", "stream": "table wide json markdown",
		"mv_list": "table wide json markdown", "mv_explain": "table wide json markdown", "headroom": "table wide json markdown",
		"explain": "table json markdown", "snapshot_summary": "table json markdown", "demo": "table",
	}
	for kind, w := range want {
		var got []string
		for _, f := range Formats(kind) {
			got = append(got, string(f))
		}
		if strings.Join(got, " ") != w {
			t.Errorf("Formats(%q) = %v, want %s", kind, got, w)
		}
	}
	if err := Emit(&bytes.Buffer{}, Style{}, FormatProm, StreamsDoc{}); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("an unregistered format must be a clear error, got %v", err)
	}
}
