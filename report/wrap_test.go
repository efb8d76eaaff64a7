package report

import (
	"bytes"
	"strings"
	"testing"
)

// Prose is cut at its end, after a whole word, never in the middle: the
// old middle cut turned "refreshes fail with CHANGELOG_BROKEN: the internal
// stream on base table demo.payments expired" into "refreshes fail with
// CHANGELOG_BROKE…se table demo.payments expired".
func TestTruncateEndAfterAWholeWord(t *testing.T) {
	const s = "refreshes fail with CHANGELOG_BROKEN: the internal stream on base table demo.payments expired"
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{s, 40, "refreshes fail with CHANGELOG_BROKEN…"}, // the dangling ":" goes
		{s, 44, "refreshes fail with CHANGELOG_BROKEN: the…"},
		{s, 200, s},
		{"a change has waited 3h50m on p20261126 (> 10m00s)", 45, "a change has waited 3h50m on p20261126…"}, // "(>" is no word
		{"cannot resume: the next read will silently skip changes — about 6h00m", 58, "cannot resume: the next read will silently skip changes…"},
		// One token longer than the room is a name: cut in the middle.
		{"demo.__doris_ivm_stream_mv_payments_rollup_144l_voa", 20, "demo.__dor…_144l_voa"},
	} {
		got := TruncateEnd(tc.in, tc.n)
		if got != tc.want || TextWidth(got) > tc.n {
			t.Errorf("TruncateEnd(%q, %d) = %q (%d wide), want %q", tc.in, tc.n, got, TextWidth(got), tc.want)
		}
	}
}

// WrapMax wraps, and past its last line cuts the rest at its end; every
// line fits and no word is split.
func TestWrapMaxCutsTheLastLineAtItsEnd(t *testing.T) {
	text := "the last 4 refreshes failed (EXECUTION_FAILED): errCode = 2, detailMessage = execution failed: Memory limit exceeded on be2"
	lines := WrapMax(text, 40, 2, "  ", "  ")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "…") {
		t.Fatalf("WrapMax = %q, want 2 lines, the last cut with …", lines)
	}
	for _, l := range lines {
		if TextWidth(l) > 40 {
			t.Errorf("line %q is %d wide", l, TextWidth(l))
		}
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		words[w] = true
	}
	for _, w := range strings.Fields(strings.TrimSuffix(strings.Join(lines, " "), "…")) {
		if !words[w] && !words[w+":"] && !words[w+","] {
			t.Errorf("word %q is not a whole word of the text: %q", w, lines)
		}
	}
	if got := WrapMax("short text", 40, 2, "", ""); len(got) != 1 || got[0] != "short text" {
		t.Errorf("short text: %q", got)
	}
}

// A non-breaking space keeps a number with its unit on one line, and is
// printed as a plain space.
func TestWrapKeepsGluedWordsTogether(t *testing.T) {
	lines := Wrap("changelog over the tables "+Glue("4.8 GiB")+" and more", 31, "", "")
	if len(lines) != 2 || lines[0] != "changelog over the tables" || lines[1] != "4.8 GiB and more" {
		t.Errorf("Wrap = %q", lines)
	}
	if got := Wrap(Glue("4.8 GiB"), 0, "", ""); got[0] != "4.8 GiB" {
		t.Errorf("no width: %q, want a plain space", got)
	}
}

// Why: a long key/value value was cut in the middle ("freshness  lagging
// (server: information_schem…mv_status FRESHNESS_STATE LAGGING)"). It wraps
// under the value column; every word is kept.
func TestKeyValuesWrapUnderTheValueColumn(t *testing.T) {
	var b bytes.Buffer
	const v = "lagging (server: information_schema.ivm_mv_status FRESHNESS_STATE LAGGING)"
	NewStyle(&b, false).WithWidth(50).KeyValues(&b, [][2]string{{"freshness", v}, {"delay", "1d00h"}})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"freshness  lagging (server:",
		"           information_schema.ivm_mv_status",
		"           FRESHNESS_STATE LAGGING)",
		"delay      1d00h",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("KeyValues:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// A message column (ERROR) is cut at its end after a whole word; a name
// column in the middle.
func TestTableCutsMessagesAtTheEndNamesInTheMiddle(t *testing.T) {
	var b bytes.Buffer
	st := NewStyle(&b, false).WithWidth(60)
	err := st.Table(&b, []string{"NAME", "ERROR"}, [][]string{
		{"demo.__doris_ivm_stream_mv_payments_rollup_144l_voa", "CHANGELOG_BROKEN: the internal stream on base table demo.payments expired"},
	})
	if err != nil {
		t.Fatal(err)
	}
	row := strings.Split(b.String(), "\n")[1]
	if name := strings.Fields(row)[0]; !strings.HasPrefix(name, "demo.__doris") || !strings.HasSuffix(name, "144l_voa") || !strings.Contains(name, "…") {
		t.Errorf("the name is not cut in the middle: %q", row)
	}
	fields := strings.Fields(row)
	last := fields[len(fields)-1]
	if !strings.HasSuffix(last, "…") || strings.Contains(row, "BROKE…") || strings.Contains(row, "…se") {
		t.Errorf("the error is not cut at its end after a whole word: %q", row)
	}
	if TextWidth(row) > 60 {
		t.Errorf("row is %d wide: %q", TextWidth(row), row)
	}
}
