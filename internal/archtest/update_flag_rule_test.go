package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// testPkg is a package with tests and whether any of its test files
// defines the -update flag.
type testPkg struct {
	ImportPath    string
	TestFiles     int
	DefinesUpdate bool
}

// ruleUpdateFlag: `go test ./... -update` runs every test binary with
// -update, and one that does not define it fails with "flag provided but not
// defined". So every package with test files defines -update (a package
// without goldens defines it as a no-op, see update_flag_test.go).
func ruleUpdateFlag(pkgs []testPkg) []string {
	var bad []string
	for _, p := range pkgs {
		if p.TestFiles > 0 && !p.DefinesUpdate {
			bad = append(bad, p.ImportPath+" has tests but does not define -update (add an update_flag_test.go)")
		}
	}
	return bad
}

// definesUpdate reports whether f calls flag.Bool("update", …) or
// flag.BoolVar(&v, "update", …).
func definesUpdate(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "flag" {
			return true
		}
		arg := -1
		switch sel.Sel.Name {
		case "Bool":
			arg = 0
		case "BoolVar":
			arg = 1
		}
		if arg < 0 || len(call.Args) <= arg {
			return true
		}
		if lit, ok := call.Args[arg].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && s == "update" {
				found = true
			}
		}
		return !found
	})
	return found
}

func TestEveryTestPackageDefinesUpdate(t *testing.T) {
	var pkgs []testPkg
	fset := token.NewFileSet()
	withTests := 0
	for _, p := range load(t) {
		tp := testPkg{ImportPath: p.ImportPath, TestFiles: len(p.TestGoFiles) + len(p.XTestGoFiles)}
		// A test binary holds both the package's _test.go files and the
		// external package_test ones: a definition in either serves it.
		for _, name := range append(append([]string{}, p.TestGoFiles...), p.XTestGoFiles...) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parsing %s: %v", filepath.Join(p.Dir, name), err)
			}
			if definesUpdate(f) {
				tp.DefinesUpdate = true
				break
			}
		}
		if tp.TestFiles > 0 {
			withTests++
		}
		pkgs = append(pkgs, tp)
	}
	if withTests < 10 {
		t.Fatalf("go list found %d packages with tests; expected the whole module", withTests)
	}
	report(t, "go test ./... -update works", ruleUpdateFlag(pkgs))
}

func TestUpdateFlagRuleCatchesViolations(t *testing.T) {
	if bad := ruleUpdateFlag([]testPkg{{ImportPath: mod + "/x", TestFiles: 1}}); len(bad) == 0 {
		t.Error("a test package without -update: rule reported nothing")
	}
	if bad := ruleUpdateFlag([]testPkg{{ImportPath: mod + "/x"}}); len(bad) != 0 {
		t.Errorf("a package without tests needs no -update: %v", bad)
	}
	for src, want := range map[string]bool{
		`package p; import "flag"; var u = flag.Bool("update", false, "")`:                            true,
		`package p; import "flag"; var u bool; func init() { flag.BoolVar(&u, "update", false, "") }`: true,
		`package p; import "flag"; var u = flag.Bool("update-schema", false, "")`:                     false,
		`package p; import "flag"; var u = flag.String("update", "", "")`:                             false,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := definesUpdate(f); got != want {
			t.Errorf("definesUpdate(%s) = %v, want %v", src, got, want)
		}
	}
}
