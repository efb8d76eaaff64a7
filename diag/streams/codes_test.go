package streams

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
)

// streamCodes are the declarations of the codes this package declares.
func streamCodes(t *testing.T) []diag.Declaration {
	t.Helper()
	ds, err := diagtest.DeclaredIn(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []diag.Declaration
	for _, d := range ds {
		c, ok := diag.LookupCode(d.Code)
		if !ok {
			t.Fatalf("%s (%s) is not registered", d.Var, d.Code)
		}
		out = append(out, c)
	}
	if len(out) < 10 {
		t.Fatalf("only %d codes found in the package", len(out))
	}
	return out
}
