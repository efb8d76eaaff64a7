package doris

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A column is one call of col, scol, tcol or jcol, or a Column literal:
// never a call whose argument is a Column made by another call (the
// compiler cannot lay that out in the binary, and doris.init then writes
// every such column at each start; docs/performance.md "Start-up and binary
// size").
func TestColumnsAreStaticallyInitialised(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	makers := map[string]bool{"col": true, "scol": true, "tcol": true, "jcol": true}
	fs := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				for _, a := range call.Args {
					if in, ok := a.(*ast.CallExpr); ok {
						if id, ok := in.Fun.(*ast.Ident); ok && makers[id.Name] {
							t.Errorf("%s: a column made by a call of %s(...): write a Column literal", fs.Position(call.Pos()), id.Name)
						}
					}
				}
				return true
			})
		}
	}
}

// Nothing writes into the relation structs (the columns' availability is
// resolved in the copies Columns returns): a column that declares none
// still has none in its struct after every relation's columns were listed.
func TestColumnsLeaveTheStructsAlone(t *testing.T) {
	for _, r := range All() {
		r.Columns()
	}
	undeclared := 0
	for _, d := range all {
		v := reflect.ValueOf(d).Elem()
		for i := 0; i < v.NumField(); i++ {
			if c, ok := v.Field(i).Interface().(Column); ok && c.Avail == "" {
				undeclared++
			}
		}
	}
	if undeclared == 0 {
		t.Error("every column field has an availability: something writes the default into the structs again")
	}
	for _, c := range TableStreams.Columns() {
		if c.Avail == "" {
			t.Errorf("%s: Columns() left the availability empty", c.Name)
		}
	}
}
