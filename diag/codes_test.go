package diag

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

// Every code is a Code* variable made by register in a codes_*.go file
// (so its name and documentation travel together), and every one of them is
// emitted somewhere in the module outside codes_*.go: a documented code that
// nothing raises is dead documentation. A code name written as a string —
// a `Code: "X"` field such as a scenario's expectations — must be documented
// too, so `explain` and docs/findings.md cover everything a user can see.
func TestEveryEmittedCodeIsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	vars := map[string]string{} // Code* variable → its UPPER_SNAKE name
	codeFiles, err := filepath.Glob("codes*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range codeFiles {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") {
				return true
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if id, isID := call.Fun.(*ast.Ident); !ok || !isID || id.Name != "Declare" || len(call.Args) != 1 {
				t.Errorf("%s: %s is not made by Declare(Declaration{...})", fset.Position(vs.Pos()), vs.Names[0].Name)
				return true
			}
			lit, _ := call.Args[0].(*ast.CompositeLit)
			for _, e := range litElts(lit) {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, _ := kv.Key.(*ast.Ident); k != nil && k.Name == "Code" {
						if b, ok := kv.Value.(*ast.BasicLit); ok {
							vars[vs.Names[0].Name], _ = strconv.Unquote(b.Value)
						}
					}
				}
			}
			return true
		})
	}
	if len(vars) != len(Codes()) {
		t.Errorf("%d Code* variables in codes_*.go, %d codes registered", len(vars), len(Codes()))
	}
	for v, name := range vars {
		if c, ok := ParseCode(name); !ok || c.String() != name {
			t.Errorf("%s (%s) is not in the registry", v, name)
		}
	}

	emitted := map[string]bool{}
	root := filepath.Join("..")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
		inCodes := filepath.Clean(filepath.Dir(path)) == filepath.Join("..", "diag") && strings.HasPrefix(filepath.Base(path), "codes")
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				if _, ok := vars[x.Name]; ok && !inCodes {
					emitted[x.Name] = true
				}
			case *ast.KeyValueExpr:
				id, ok := x.Key.(*ast.Ident)
				lit, isLit := x.Value.(*ast.BasicLit)
				if !ok || id.Name != "Code" || !isLit || lit.Kind != token.STRING || inCodes {
					return true
				}
				code, err := strconv.Unquote(lit.Value)
				if err != nil || !codeRE.MatchString(code) {
					return true
				}
				if _, ok := LookupCode(code); !ok {
					t.Errorf("%s: finding code %s is named but not documented in diag/codes_*.go", fset.Position(lit.Pos()), code)
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
		if !emitted[v] {
			t.Errorf("%s (%s) is documented but nothing outside codes_*.go emits it", v, name)
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
// when documented: JSON is what it was when codes were strings.
func TestCodeJSON(t *testing.T) {
	b, err := json.Marshal(Finding{Code: CodeStreamDisabled, Severity: CodeStreamDisabled.Severity()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"code":"STREAM_DISABLED",`) {
		t.Errorf("marshal: %s", b)
	}
	var f Finding
	if err := json.Unmarshal(b, &f); err != nil || f.Code != CodeStreamDisabled {
		t.Errorf("unmarshal: %v %v", f.Code, err)
	}
	err = json.Unmarshal([]byte(`{"code":"NO_SUCH_CODE"}`), &f)
	if err == nil || !strings.Contains(err.Error(), `unknown finding code "NO_SUCH_CODE"`) {
		t.Errorf("unknown code: err = %v", err)
	}
	if CodeStreamDisabled.Severity() != SeverityWarning || CodeStreamDisabled.Declaration().Title == "" || (Code{}).String() != "" {
		t.Error("Code accessors")
	}
}

// The registry is built once: Codes returns a copy, so a caller cannot
// reorder or edit the documentation another caller reads.
func TestCodesSortedOnceAndCopied(t *testing.T) {
	a := Codes()
	if !sort.SliceIsSorted(a, func(i, j int) bool { return a[i].Code < a[j].Code }) {
		t.Error("Codes is not sorted by code")
	}
	a[0].Title = "changed"
	if Codes()[0].Title == "changed" {
		t.Error("Codes shares its backing array")
	}
}
