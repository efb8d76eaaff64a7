package diagtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// Declared is one finding code declared in a package's source:
// `CodeX = diag.Declare(diag.Declaration{Code: "X", …})`.
type Declared struct {
	Var  string // the variable, CodeX
	Code string // the code's name, X
	File string // the file that declares it
}

// DeclaredIn reads the codes the non-test Go files of dir declare, in file
// order. A Code variable made otherwise is returned with Code "".
func DeclaredIn(dir string) ([]Declared, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []Declared
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Names) != 1 || len(vs.Values) != 1 {
					continue
				}
				call, ok := vs.Values[0].(*ast.CallExpr)
				if !ok || !isDeclare(call.Fun) {
					continue
				}
				out = append(out, Declared{Var: vs.Names[0].Name, Code: codeOf(call), File: path})
			}
		}
	}
	return out, nil
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

// codeOf is the Code field of Declare's one composite literal argument.
func codeOf(call *ast.CallExpr) string {
	if len(call.Args) != 1 {
		return ""
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok {
		return ""
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, _ := kv.Key.(*ast.Ident); k != nil && k.Name == "Code" {
			if b, ok := kv.Value.(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(b.Value)
				return s
			}
		}
	}
	return ""
}
