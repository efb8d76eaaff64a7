package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var codeRE = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)

// Every code is documented completely, once.
func TestCodesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Codes() {
		if seen[c.Code] {
			t.Errorf("%s documented twice", c.Code)
		}
		seen[c.Code] = true
		if !codeRE.MatchString(c.Code) {
			t.Errorf("%q is not UPPER_SNAKE", c.Code)
		}
		for name, v := range map[string]string{"Title": c.Title, "Spec": c.Spec, "Meaning": c.Meaning, "Matters": c.Matters, "Confirm": c.Confirm, "Fix": c.Fix} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: %s is empty", c.Code, name)
			}
		}
		if c.Severity < SeverityInfo || c.Severity > SeverityCritical {
			t.Errorf("%s: default severity %v", c.Code, c.Severity)
		}
		for _, r := range c.Related {
			if _, ok := LookupCode(r); !ok {
				t.Errorf("%s: related code %s is not documented", c.Code, r)
			}
		}
	}
}

// Every code the source emits — a `Code: "X"` field of a Finding literal or a
// mustCode("X") call, anywhere in the module — is documented, so `explain`
// and docs/findings.md cover everything a user can see.
func TestEveryEmittedCodeIsDocumented(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var lit *ast.BasicLit
			switch x := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok && id.Name == "Code" {
					lit, _ = x.Value.(*ast.BasicLit)
				}
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "mustCode" && len(x.Args) == 1 {
					lit, _ = x.Args[0].(*ast.BasicLit)
				}
			}
			if lit == nil || lit.Kind != token.STRING {
				return true
			}
			code, err := strconv.Unquote(lit.Value)
			if err != nil || !codeRE.MatchString(code) {
				return true
			}
			if _, ok := LookupCode(code); !ok {
				t.Errorf("%s: finding code %s is emitted but not documented in diag/codes_*.go", fset.Position(lit.Pos()), code)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
