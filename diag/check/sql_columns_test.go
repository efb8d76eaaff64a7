package check

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestSuggestedSQLNamesRealColumns: every SQL statement a finding or an
// explain text suggests names only columns the wire contract has in the
// relation it reads, so a renamed or invented Doris column (the kind of
// mistake that once shipped ChangelogSize) fails here instead of on a
// user's cluster. The statements are the codes' Confirm/Fix texts and the
// `next` of every finding on the bundled scenarios.
func TestSuggestedSQLNamesRealColumns(t *testing.T) {
	var texts []string
	for _, c := range diag.Codes() {
		texts = append(texts, c.Confirm, c.Fix)
	}
	for _, name := range []string{"healthy", "incident", "legacy"} {
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		res := Run([]*snapshot.Snapshot{s}, Options{})
		for _, f := range res.Findings {
			texts = append(texts, f.Next)
		}
		for _, m := range res.MVs.MVs {
			texts = append(texts, m.Next...)
		}
	}
	checked := 0
	for _, text := range texts {
		for _, bad := range sqlColumnProblems(text, &checked) {
			t.Error(bad)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d SQL statements found: the pattern no longer matches", checked)
	}
}

var (
	stmtRE    = regexp.MustCompile(`SELECT\s+(.+?)\s+FROM\s+(information_schema\.(\w+)|(tasks|mv_infos|jobs)\s*\([^)]*\))(.*)`)
	literalRE = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|<[^>]*>|--.*`)
	identRE   = regexp.MustCompile("`?([A-Za-z_][A-Za-z0-9_]*)`?")
	sqlWords  = map[string]bool{"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "IN": true,
		"IS": true, "NULL": true, "LIKE": true, "ORDER": true, "BY": true, "DESC": true, "ASC": true, "LIMIT": true, "AS": true,
		"MAX": true, "MIN": true, "COUNT": true, "SUM": true, "DISTINCT": true, "GROUP": true}
)

func sqlColumnProblems(text string, checked *int) []string {
	var out []string
	for _, piece := range strings.FieldsFunc(text, func(r rune) bool { return r == ';' || r == '\n' }) {
		i := strings.Index(piece, "SELECT ")
		if i < 0 {
			continue
		}
		piece = piece[i:]
		m := stmtRE.FindStringSubmatch(piece)
		if m == nil || strings.Contains(m[1], " FROM ") {
			continue // not a read of a Doris relation (the MV's own query, …)
		}
		var rel *doris.Relation
		switch {
		case m[3] != "":
			for _, r := range doris.All() {
				if r.Kind == doris.InfoSchema && r.Name == m[3] {
					rel = r
				}
			}
		default:
			for _, r := range doris.All() {
				if r.Kind == doris.TVF && r.Name == m[4] {
					rel = r
				}
			}
		}
		if rel == nil {
			out = append(out, "suggested SQL reads a relation the wire contract does not have: "+m[0])
			continue
		}
		*checked++
		rest := literalRE.ReplaceAllString(m[1]+" "+m[5], " ")
		for _, id := range identRE.FindAllStringSubmatch(rest, -1) {
			w := id[1]
			if sqlWords[strings.ToUpper(w)] || w == "_" {
				continue
			}
			if _, ok := rel.Column(w); !ok {
				out = append(out, "suggested SQL names "+w+", which "+rel.Source+" does not have: "+strings.TrimSpace(m[0]))
			}
		}
	}
	return out
}

func TestSuggestedSQLCheckerFindsInventedColumns(t *testing.T) {
	n := 0
	for _, tc := range []struct {
		sql  string
		want int
	}{
		{"SELECT STREAM_NAME, ChangelogSize FROM information_schema.table_streams WHERE STREAM_ID = 1;", 1},
		{"SELECT TaskId, Bogus FROM tasks(\"type\" = \"mv\") WHERE MvName = 'x';", 1},
		{"SELECT * FROM information_schema.no_such_table;", 1},
		{"SELECT UNIT, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;", 0},
		{"(SELECT * FROM `db`.`mv`) EXCEPT (<the query of the MV>);", 0},
	} {
		if got := sqlColumnProblems(tc.sql, &n); len(got) != tc.want {
			t.Errorf("%s: %v, want %d problem(s)", tc.sql, got, tc.want)
		}
	}
}
