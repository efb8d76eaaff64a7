package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiagReadsNoRawDorisText fails if a package of diag reads the raw text of
// mv_infos() RefreshInfo/MvProperties/IvmBaseTableStreams or tasks()
// TaskContext itself: those are parsed once, by snapshot.Normalize, and
// diag reads the typed fields (MVInfo.Refresh, .Properties,
// .BaseTableStreams, Task.Context). Likewise the seed's open-type columns.
func TestDiagReadsNoRawDorisText(t *testing.T) {
	raw := map[string]bool{"MvProperties": true, "RefreshInfo": true, "TaskContext": true, "IvmBaseTableStreams": true,
		"ExcludedOutdatedDependencies": true, "LaggingDependencies": true, "PendingPublishTxnsText": true}
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "internal") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "snapshot" {
					return true // a type name (snapshot.RefreshInfo), not a field
				}
				if raw[x.Sel.Name] {
					t.Errorf("%s: diag reads raw field .%s; read the typed field snapshot.Normalize fills", fset.Position(x.Pos()), x.Sel.Name)
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "snapshot" && strings.HasPrefix(sel.Sel.Name, "Parse") {
						t.Errorf("%s: diag calls snapshot.%s; parsing belongs to snapshot.Normalize", fset.Position(x.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
		// finding.go decodes diag's own Severity JSON; nothing else in diag
		// may decode JSON (Doris's JSON text is parsed in snapshot).
		if strings.Contains(string(src), "json.Unmarshal") && filepath.ToSlash(f) != "finding.go" {
			t.Errorf("%s: diag decodes JSON: Doris text is parsed in snapshot", f)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d diag files checked: the test is not looking at diag", checked)
	}
}
