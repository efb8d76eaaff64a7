package doris

import (
	"testing"
)

func TestEveryRelationHasColumnsAndStatements(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range All() {
		if seen[r.Source+" "+r.Name] {
			t.Errorf("relation %q %q registered twice", r.Source, r.Name)
		}
		seen[r.Source+" "+r.Name] = true
		if len(r.Statements) == 0 {
			t.Errorf("%s: no statement", r.Source)
		}
		if r.Mirrors == "" {
			t.Errorf("%s: no Doris source named", r.Source)
		}
		names := map[string]bool{}
		for _, c := range r.Columns() {
			if names[c.Name] {
				t.Errorf("%s: column %s twice", r.Source, c.Name)
			}
			names[c.Name] = true
			if c.Type == "" || c.Format == "" {
				t.Errorf("%s.%s: type or format missing", r.Source, c.Name)
			}
		}
	}
}
