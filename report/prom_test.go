package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Hostile names (T8: a quote, a backslash, a line feed, Go-%q lookalikes)
// must come out parseable by prometheus/common's own parser, unchanged.
func TestWritePromEscapesHostileValues(t *testing.T) {
	hostile := []string{`ord"ers`, `a\b`, "line\nfeed", `\t`, `\u00e9`, "tab\there", "日本"}
	var samples []PromSample
	for i, h := range hostile {
		samples = append(samples, PromSample{Labels: [][2]string{{"db", "demo"}, {"name", h}}, Value: float64(i)})
	}
	var buf bytes.Buffer
	err := WriteProm(&buf, []PromFamily{{Name: "dorisdiag_test", Help: "help with \\ and \n newline and \"quote\"", Samples: samples}})
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("expfmt rejects our output: %v\n%s", err, buf.String())
	}
	got := map[string]bool{}
	for _, m := range fams["dorisdiag_test"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "name" {
				got[l.GetValue()] = true
			}
		}
	}
	for _, h := range hostile {
		// A control character other than a line feed has no escape in the
		// format; it is written as the visible text \xNN (EscapeLabelValue),
		// so the value read back names it instead of holding it raw.
		want := strings.ReplaceAll(h, "\t", `\x09`)
		if !got[want] {
			t.Errorf("label value %q did not round-trip as %q", h, want)
		}
	}
	if h := fams["dorisdiag_test"].GetHelp(); h != "help with \\ and \n newline and \"quote\"" {
		t.Errorf("HELP round-trip: %q", h)
	}
}
