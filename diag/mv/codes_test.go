package mv

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
)

// TestMVCodesDocumented: every code this package declares is registered,
// documented in every field, related to another, and raised by a check of
// mvChecks (the list that also orders `mv explain`).
func TestMVCodesDocumented(t *testing.T) {
	ds, err := diagtest.DeclaredIn(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) < 14 {
		t.Fatalf("only %d codes declared in the package", len(ds))
	}
	listed := map[diag.Code]bool{}
	for _, c := range mvChecks {
		listed[c.code] = true
	}
	for _, d := range ds {
		c, ok := diag.ParseCode(d.Code)
		if !ok {
			t.Errorf("%s (%s) is not registered", d.Var, d.Code)
			continue
		}
		if decl := c.Declaration(); decl.Title == "" || decl.Spec == "" || decl.Meaning == "" || decl.Matters == "" || decl.Confirm == "" || decl.Fix == "" || len(decl.Related) == 0 {
			t.Errorf("%s: a field is empty: %+v", d.Code, decl)
		}
		if !listed[c] {
			t.Errorf("%s is raised by no check of mvChecks", d.Code)
		}
	}
}
