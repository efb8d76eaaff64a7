package diag

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestSplitNext (issue 14 Why 9): a line break inside a quoted name does not
// end the statement; one outside quotes does.
func TestSplitNext(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1;\nSELECT 2;", []string{"SELECT 1;", "SELECT 2;"}},
		{"REFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;\nSELECT 2;", []string{"REFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;", "SELECT 2;"}},
		{"SELECT * FROM t WHERE n = 'it\\'s\na';\nSELECT 2;", []string{"SELECT * FROM t WHERE n = 'it\\'s\na';", "SELECT 2;"}},
		{"SELECT 1;  -- a `comment\nSELECT 2;", []string{"SELECT 1;  -- a `comment", "SELECT 2;"}},
		{"dorisdiag mv explain 'd.a\nb'\nREFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;", []string{"dorisdiag mv explain 'd.a\nb'", "REFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;"}},
		{"dorisdiag mv explain 'it'\\''s\nx'\nSELECT 2;", []string{"dorisdiag mv explain 'it'\\''s\nx'", "SELECT 2;"}},
		{"dorisdiag snapshot --summary  # it's\nSELECT 2;", []string{"dorisdiag snapshot --summary  # it's", "SELECT 2;"}},
		// prose with an apostrophe that never closes: line by line
		{"Don't read it yet\nthen check", []string{"Don't read it yet", "then check"}},
	} {
		if got := SplitNext(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitNext(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestHostileNamesStayOneStatement: an MV whose name holds a line break
// gets one next[] entry per statement and a headline that ends with the
// whole first statement (on main the headline stopped at the line break, in
// the middle of the backquoted name, and next[] held the two halves).
func TestHostileNamesStayOneStatement(t *testing.T) {
	for _, name := range []string{"a\nb", "it's\nx", "o_s%\r\n`;"} {
		res := mvIncident(t, "sh.op\n", map[string]string{"mv_payments_rollup": name})
		m := res.ByName("sh.op\n", name)
		if m == nil {
			t.Fatalf("%q: MV not analysed", name)
		}
		if len(m.Next) == 0 {
			t.Fatalf("%q: no next", name)
		}
		for _, n := range m.Next {
			if strings.Contains(n, "\n") && len(SplitNext(n)) != 1 {
				t.Errorf("%q: next[] entry %q is more than one statement", name, n)
			}
			if strings.HasPrefix(n, "` COMPLETE") || strings.HasPrefix(n, "b`") || strings.HasPrefix(n, "x`") {
				t.Errorf("%q: next[] holds the second half of a statement: %q", name, n)
			}
		}
		want := "REFRESH MATERIALIZED VIEW " + doris.QuoteIdent("sh.op\n") + "." + doris.QuoteIdent(name) + " COMPLETE;"
		if !strings.HasSuffix(m.Headline, "next: "+want) {
			t.Errorf("%q: headline %q does not end with the whole statement %q", name, m.Headline, want)
		}
	}
}

// mvIncident analyses the incident scenario with its database and MV names
// renamed (the database to newDB, MVs by mvRename; every field that names
// them, internal streams included).
func mvIncident(t *testing.T, newDB string, mvRename map[string]string) *MVsResult {
	t.Helper()
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := snapshot.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	mvNames := map[string]bool{}
	for _, m := range s.MVs {
		mvNames[m.Name] = true
	}
	rename := func(mv string) string {
		if n, ok := mvRename[mv]; ok {
			return n
		}
		return mv
	}
	var walk func(x any)
	walk = func(x any) {
		switch v := x.(type) {
		case map[string]any:
			for k, e := range v {
				str, ok := e.(string)
				if !ok {
					walk(e)
					continue
				}
				switch {
				case (k == "db" || k == "mv_database_name" || k == "base_table_db") && str == "demo":
					v[k] = newDB
				case (k == "name" || k == "mv_name") && mvNames[str]:
					v[k] = rename(str)
				case (k == "name" || k == "stream_name") && strings.HasPrefix(str, doris.IvmStreamPrefix):
					for mv := range mvNames {
						if rest, ok := strings.CutPrefix(str, doris.IvmStreamPrefix+mv+"_"); ok && strings.Count(rest, "_") == 1 {
							v[k] = doris.IvmStreamPrefix + rename(mv) + "_" + rest
						}
					}
				}
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	series := []*snapshot.Snapshot{snap}
	return AnalyzeMVs(series, AnalyzeStreams(series, StreamOptions{}), MVOptions{})
}
