package check

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	// check links every package of diag that declares codes but tsotool,
	// the `dorisdiag tso` tools: the tests of this file read the whole
	// registry.
	_ "github.com/dorisdiag/dorisdiag/diag/tsotool"
)

var codeRE = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)

// Every code is documented completely, once.
func TestCodesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range diag.Codes() {
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
		if c.Severity < diag.SeverityInfo || c.Severity > diag.SeverityCritical {
			t.Errorf("%s: default severity %v", c.Code, c.Severity)
		}
		for _, r := range c.Related {
			if _, ok := diag.LookupCode(r); !ok {
				t.Errorf("%s: related code %s is not documented", c.Code, r)
			}
		}
	}
}

// declared reads every `CodeX = diag.Declare(diag.Declaration{Code: "X", …})`
// of the diag tree: "package.CodeX" → code name, and the file of each.
func declared(t *testing.T, fset *token.FileSet) (vars map[string]string, files map[string]string) {
	t.Helper()
	vars, files = map[string]string{}, map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
				return true
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if !ok || !isDeclare(call.Fun) {
				return true
			}
			if !strings.HasPrefix(vs.Names[0].Name, "Code") || len(call.Args) != 1 {
				t.Errorf("%s: %s: a code is a Code* variable made by one Declare(Declaration{...})", fset.Position(vs.Pos()), vs.Names[0].Name)
				return true
			}
			lit, _ := call.Args[0].(*ast.CompositeLit)
			for _, e := range litElts(lit) {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, _ := kv.Key.(*ast.Ident); k != nil && k.Name == "Code" {
						if b, ok := kv.Value.(*ast.BasicLit); ok {
							key := f.Name.Name + "." + vs.Names[0].Name
							vars[key], _ = strconv.Unquote(b.Value)
							files[key] = path
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return vars, files
}

func isDeclare(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "Declare"
	case *ast.SelectorExpr:
		return f.Sel.Name == "Declare"
	}
	return false
}

// Every code is a Code* variable made by Declare (so its name and its
// declaration travel together), and every one of them is emitted somewhere
// in the module: a declared code that nothing raises is dead documentation.
// A code name written as a string — a `Code: "X"` field such as a
// scenario's expectations — must be declared too, so `explain` and
// docs/findings.md cover everything a user can see.
func TestEveryEmittedCodeIsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	vars, _ := declared(t, fset)
	if len(vars) != len(diag.Codes()) {
		t.Errorf("%d Code* variables declared in diag/, %d codes registered", len(vars), len(diag.Codes()))
	}
	for v, name := range vars {
		if c, ok := diag.ParseCode(name); !ok || c.String() != name {
			t.Errorf("%s (%s) is not in the registry", v, name)
		}
	}

	uses := map[string]int{}
	root := filepath.Join("..", "..")
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
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					if _, ok := vars[id.Name+"."+x.Sel.Name]; ok {
						uses[id.Name+"."+x.Sel.Name]++
						return false
					}
				}
			case *ast.Ident:
				if _, ok := vars[f.Name.Name+"."+x.Name]; ok {
					uses[f.Name.Name+"."+x.Name]++ // the declaration itself counts once
				}
			case *ast.KeyValueExpr:
				id, ok := x.Key.(*ast.Ident)
				lit, isLit := x.Value.(*ast.BasicLit)
				if !ok || id.Name != "Code" || !isLit || lit.Kind != token.STRING {
					return true
				}
				code, err := strconv.Unquote(lit.Value)
				if err != nil || !codeRE.MatchString(code) {
					return true
				}
				if _, ok := diag.LookupCode(code); !ok {
					t.Errorf("%s: finding code %s is named but not declared", fset.Position(lit.Pos()), code)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for v, name := range vars {
		if uses[v] < 2 {
			t.Errorf("%s (%s) is declared but nothing emits it", v, name)
		}
	}
}

func litElts(l *ast.CompositeLit) []ast.Expr {
	if l == nil {
		return nil
	}
	return l.Elts
}

// A Finding's code serializes as its UPPER_SNAKE name, and reads back only
// when declared: JSON is what it was when codes were strings.
func TestCodeJSON(t *testing.T) {
	c, ok := diag.ParseCode("STREAM_DISABLED")
	if !ok {
		t.Fatal("STREAM_DISABLED not declared")
	}
	b, err := json.Marshal(diag.Finding{Code: c, Severity: c.Severity()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"code":"STREAM_DISABLED",`) {
		t.Errorf("marshal: %s", b)
	}
	var f diag.Finding
	if err := json.Unmarshal(b, &f); err != nil || f.Code != c {
		t.Errorf("unmarshal: %v %v", f.Code, err)
	}
	err = json.Unmarshal([]byte(`{"code":"NO_SUCH_CODE"}`), &f)
	if err == nil || !strings.Contains(err.Error(), `unknown finding code "NO_SUCH_CODE"`) {
		t.Errorf("unknown code: err = %v", err)
	}
	if c.Severity() != diag.SeverityWarning || c.Declaration().Title == "" || (diag.Code{}).String() != "" {
		t.Error("Code accessors")
	}
}

// The registry is built once: Codes returns a copy, so a caller cannot
// reorder or edit the documentation another caller reads.
func TestCodesSortedOnceAndCopied(t *testing.T) {
	a := diag.Codes()
	if !sort.SliceIsSorted(a, func(i, j int) bool { return a[i].Code < a[j].Code }) {
		t.Error("Codes is not sorted by code")
	}
	a[0].Title = "changed"
	if diag.Codes()[0].Title == "changed" {
		t.Error("Codes shares its backing array")
	}
}
