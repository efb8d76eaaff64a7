package doris

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/snapshot.md")

const (
	docPath   = "../docs/snapshot.md"
	beginMark = "<!-- BEGIN doris contract -->\n"
	endMark   = "<!-- END doris contract -->"
)

// TestDocsGenerated keeps docs/snapshot.md's source tables equal to the
// contract (as docs/findings.md is kept equal to the code registry).
func TestDocsGenerated(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, beginMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q section", docPath, beginMark, endMark)
	}
	want := doc[:i+len(beginMark)] + Markdown() + doc[j:]
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from the wire contract: run go test ./doris -update", docPath)
}

// TestColumnNamesOnlyInContract fails when a Doris column name is spelled
// as a string literal outside this package (tests and generated docs
// aside): the collector and the emulator reach columns through the
// contract, so a renamed column is one edit. UPPER_SNAKE names
// (information_schema) are checked everywhere; the CamelCase names of the
// TVFs and SHOW statements ("Name", "Status", "Host") are also ordinary
// words, so they are checked where Doris rows are read and served: scrape/
// and fixtures/.
func TestColumnNamesOnlyInContract(t *testing.T) {
	upper, camel := map[string]string{}, map[string]string{}
	for _, r := range All() {
		if r.Kind == HTTP || r.Kind == Session {
			continue
		}
		for _, c := range r.Columns() {
			if strings.ToUpper(c.Name) == c.Name && strings.Contains(c.Name, "_") {
				upper[c.Name] = r.Source
			} else {
				camel[c.Name] = r.Source
			}
		}
	}
	var bad []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "doris", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		rowCode := strings.HasPrefix(rel, "scrape/") || strings.HasPrefix(rel, "fixtures/")
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if src, ok := upper[s]; ok {
				bad = append(bad, fset.Position(lit.Pos()).String()+": "+s+" ("+src+")")
			} else if src, ok := camel[s]; ok && rowCode {
				bad = append(bad, fset.Position(lit.Pos()).String()+": "+s+" ("+src+")")
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("Doris column name outside the wire contract: %s", b)
	}
}
