package exposition

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoProducerKnowledge: the package and the packages above it
// (exposition/lint, exposition/fix, exposition/consumers) lint any
// producer; what one producer does is its caller's (diag/metrics for Doris). The module's
// import path is no knowledge of a producer.
func TestNoProducerKnowledge(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, sub...)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(`"github.com/dorisdiag/dorisdiag/`), []byte(`"module/`))
		if i := strings.Index(strings.ToLower(string(b)), "doris"); i >= 0 {
			t.Errorf("%s:%d names a producer: %q", name, strings.Count(string(b[:i]), "\n")+1, lineAt(string(b), i))
		}
	}
}

// TestRootImportsNothingOfTheModule: exposition is the bottom layer — the
// types, problems and rules, the bounded sets — and the packages of the
// module that use it stand above it (exposition/lint, exposition/fix,
// exposition/consumers), so no non-test file of it imports a package of
// the module: issue 19's
// `grep -ril doris exposition/*.go` finds nothing, with no exception for
// the module's import path.
func TestRootImportsNothingOfTheModule(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == path || strings.HasPrefix(p, path+"/") {
				t.Errorf("%s imports %s: exposition imports nothing of the module (a package that needs it stands above it)", fset.Position(imp.Pos()), p)
			}
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(strings.ToLower(string(b)), "doris"); i >= 0 {
			t.Errorf("%s:%d: %q: grep -ril doris exposition/*.go finds it", name, strings.Count(string(b[:i]), "\n")+1, lineAt(string(b), i))
		}
	}
}

func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}
