package bundle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestOneChokepoint: nothing reaches the archive but through add (which
// redacts every member) and Close (the manifest, redacted too): the tar
// writer is written only in write, write is called only by add and Close,
// and both call red.apply before it.
func TestOneChokepoint(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	callers := map[string][]string{} // callee → enclosing functions
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					name := sel.Sel.Name
					if x, ok := sel.X.(*ast.SelectorExpr); ok && x.Sel.Name == "tw" {
						name = "tw." + name
					}
					callers[name] = append(callers[name], fd.Name.Name)
				}
				return true
			})
		}
	}
	only := func(callee string, allowed ...string) {
		for _, c := range callers[callee] {
			ok := false
			for _, a := range allowed {
				ok = ok || c == a
			}
			if !ok {
				t.Errorf("%s is called from %s: only %v may", callee, c, allowed)
			}
		}
		if len(callers[callee]) == 0 {
			t.Errorf("%s is never called: the test no longer sees the archive's writes", callee)
		}
	}
	only("tw.Write", "write")
	only("tw.WriteHeader", "write")
	only("write", "add", "Close")
	for _, fn := range []string{"add", "Close"} {
		found := false
		for _, c := range callers["apply"] {
			found = found || c == fn
		}
		if !found {
			t.Errorf("%s does not call red.apply", fn)
		}
	}
}
