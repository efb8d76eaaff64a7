package mv

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

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
			if strings.Contains(n, "\n") && len(diag.SplitNext(n)) != 1 {
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
func mvIncident(t *testing.T, newDB string, mvRename map[string]string) *Result {
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
	return Analyze(series, streams.Analyze(series, streams.Options{}), Options{})
}
