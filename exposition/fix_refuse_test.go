package exposition_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
)

// TestFixNeverChangesAValue: the repair that escaped the quotes of
// `a_total{x="y"} 0 # {trace_id="b"} 0.5` swallowed the exemplar into the
// label value and made 0.5 the sample's value (exit 0). It is refused: the
// line is left as it is, reported unrepaired, and the refusal says why.
func TestFixNeverChangesAValue(t *testing.T) {
	var out bytes.Buffer
	_, err := fix.Fix(strings.NewReader("a_total{x=\"y\"} 0 # {trace_id=\"b\"} 0.5\n"), &out, exposition.Options{})
	var om *fix.OpenMetricsError
	if !errors.As(err, &om) || !strings.Contains(err.Error(), "exemplar") {
		t.Errorf("the issue's exemplar line: err %v, want the OpenMetrics refusal naming the exemplar", err)
	}
	for _, in := range []string{
		"a{x=\"y\"} 0 z=\"b\"} 0.5\n",
		"a{x=\"y\"} 1 1700000000000 z=\"u\"} 2\n",
		"a{x=\"y\"} 1 \"b\"} 2 3\n",
	} {
		var out bytes.Buffer
		rep, err := fix.Fix(strings.NewReader(in), &out, exposition.Options{})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if rep.OK || len(rep.Refused) != 1 || len(rep.Unrepaired) == 0 || out.String() != in {
			t.Errorf("%q: Fix wrote %q, report %+v; want the line unchanged, refused and unrepaired", in, out.String(), rep)
		}
	}
}

// TestFixRefusalOnlyWhereTheValueMoves: a repair that keeps the value,
// timestamp and trailing text still happens.
func TestFixRefusalOnlyWhereTheValueMoves(t *testing.T) {
	for in, want := range map[string]string{
		"doris_fe_query_total{user=\"a\\b\"} 5\n":    "doris_fe_query_total{user=\"a\\\\b\"} 5\n",
		"a{b=\"x\"y\"} 1\n":                          "a{b=\"x\\\"y\"} 1\n",
		"a{b=\"say \"hi\"\",c=\"d\"} 1 1700000000\n": "a{b=\"say \\\"hi\\\"\",c=\"d\"} 1 1700000000\n",
		"a{b=\"x\ny\"} 1\n":                          "a{b=\"x\\ny\"} 1\n",
	} {
		var out bytes.Buffer
		rep, err := fix.Fix(strings.NewReader(in), &out, exposition.Options{})
		if err != nil || !rep.OK || len(rep.Refused) != 0 || out.String() != want {
			t.Errorf("fix.Fix(%q) = %q, %+v, %v; want %q", in, out.String(), rep, err, want)
		}
	}
}

// TestFixRefusesOpenMetrics: an OpenMetrics payload is refused with a clear
// message naming the line and the sign, not "repaired" by Prometheus-text
// rules.
func TestFixRefusesOpenMetrics(t *testing.T) {
	for in, line := range map[string]int{
		"# TYPE a counter\na_total 1\n# EOF\n":               3,
		"# TYPE a counter\n# UNIT a seconds\na_total 1\n":    2,
		"# TYPE a info\na_info{v=\"1\"} 1\n":                 1,
		"a_total{x=\"y\"} 0 # {trace_id=\"b\"} 0.5\n# EOF\n": 1,
		"a 1\n" + strings.Repeat("b 1\n", 5000) + "# EOF":    5002,
		"# TYPE a gaugehistogram\na_bucket{le=\"+Inf\"} 1\n": 1,
	} {
		var out bytes.Buffer
		_, err := fix.Fix(strings.NewReader(in), &out, exposition.Options{BufferSize: 64})
		var om *fix.OpenMetricsError
		if !errors.As(err, &om) || om.Sign.Line != line || !strings.Contains(err.Error(), "OpenMetrics") {
			t.Errorf("fix.Fix(%.40q): err %v, want an OpenMetricsError at line %d", in, err, line)
		}
		if s, ok := fix.DetectOpenMetrics([]byte(in)); !ok || s.Line != line {
			t.Errorf("fix.DetectOpenMetrics(%.40q) = %+v %v, want line %d", in, s, ok, line)
		}
	}
	for _, in := range []string{"a 1\n", "# HELP a EOF\n# TYPE a gauge\na 1\n", "# EOFx\n", "a{b=\"# {x}\"} 1\n"} {
		if s, ok := fix.DetectOpenMetrics([]byte(in)); ok {
			t.Errorf("fix.DetectOpenMetrics(%q) = %+v: Prometheus text taken for OpenMetrics", in, s)
		}
	}
}
