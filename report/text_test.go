package report

import (
	"strings"
	"testing"
)

func TestTruncateKeepsBothEnds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"demo.__doris_ivm_stream_mv_payments_rollup_144l_voa", 20, "demo.__dor…_144l_voa"},
		{"short", 20, "short"},
		{"名前名前名前名前", 9, "名前…名前"}, // wide characters count two columns
	} {
		got := Truncate(tc.in, tc.n)
		if got != tc.want || TextWidth(got) > tc.n {
			t.Errorf("Truncate(%q, %d) = %q (%d wide), want %q", tc.in, tc.n, got, TextWidth(got), tc.want)
		}
	}
}

func TestWrapNeverCutsAWord(t *testing.T) {
	lines := Wrap("aaa bbb ccc dddddddddddddddd e", 10, "> ", "  ")
	want := []string{"> aaa bbb", "  ccc", "  dddddddddddddddd", "  e"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap = %q, want %q", lines, want)
	}
}

// A statement laid out by SQLLines is the same statement: joining its lines
// with spaces gives the original tokens, and no break falls inside a quote
// or after a "--" comment began.
func TestSQLLinesBreaksOnlyWhereSQLAllows(t *testing.T) {
	for _, stmt := range []string{
		"SELECT UNIT, CONSUMED_TSO, SOURCE_END_TSO, PENDING_AGE_SECONDS FROM information_schema.table_stream_consumption WHERE STREAM_ID = 62007 ORDER BY PENDING_AGE_SECONDS DESC LIMIT 20;",
		"SELECT a FROM t WHERE name = 'x FROM y, z WHERE w AND v' AND `odd, FROM name` = 1 ORDER BY a;",
		"REFRESH MATERIALIZED VIEW `demo`.`mv` AUTO;  -- recompute now, at a time you choose, FROM here WHERE it is quiet",
	} {
		lines := SQLLines(stmt, 40)
		if strings.Join(strings.Fields(strings.Join(lines, " ")), " ") != strings.Join(strings.Fields(stmt), " ") {
			t.Errorf("%q laid out as %q: not the same statement", stmt, lines)
		}
		for _, l := range lines[:len(lines)-1] {
			if strings.Count(l, "'")%2 != 0 || strings.Count(l, "`")%2 != 0 {
				t.Errorf("%q: a break inside a quote: %q", stmt, lines)
			}
			if strings.Contains(l, "--") {
				t.Errorf("%q: a break after a comment began: %q", stmt, lines)
			}
		}
	}
	if got := SQLLines("SELECT 1;", 40); len(got) != 1 {
		t.Errorf("a short statement is one line, got %q", got)
	}
}

// Emit writes our colour as SGR on a colour terminal and nothing without it;
// a forged marker (no nonce) is escaped.
func TestColourMarkers(t *testing.T) {
	on, off := NewStyle(nil, true), NewStyle(nil, false)
	if got := on.Render(on.Severity("critical", "x")); !strings.Contains(got, "\x1b[") || !strings.Contains(got, "x") {
		t.Errorf("colour on: %q", got)
	}
	if got := off.Render(on.Severity("critical", "x")); got != "x" {
		t.Errorf("colour off: %q, want x", got)
	}
	forged := string(markOpen) + "0" + string(markClose) + "x"
	if got := on.Render(forged); strings.Contains(got, "\x1b") || !strings.Contains(got, `\ue000`) {
		t.Errorf("a forged marker became %q", got)
	}
}
