package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestArchitectureDocMatchesImports keeps docs/architecture.md true: its
// package table lists every package of the module (the root main package
// aside), and each package imports nothing of the module beyond the table's
// "may import" column.
func TestArchitectureDocMatchesImports(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := docTable(t, string(b))
	for _, p := range load(t) {
		if p.ImportPath == mod {
			continue
		}
		rel := strings.TrimPrefix(p.ImportPath, mod+"/")
		may, ok := allowed[rel]
		if !ok {
			t.Errorf("docs/architecture.md does not list package %s", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			if r := strings.TrimPrefix(imp, mod+"/"); !may[r] {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow", rel, r)
			}
		}
		delete(allowed, rel)
	}
	var gone []string
	for rel := range allowed {
		gone = append(gone, rel)
	}
	sort.Strings(gone)
	for _, rel := range gone {
		t.Errorf("docs/architecture.md lists %s, which is no package of the module", rel)
	}
}

var docRow = regexp.MustCompile("^\\| `([a-z/_-]+)` \\| [^|]+ \\| (.*) \\|$")

// docTable reads the package table: package → the packages it may import.
func docTable(t *testing.T, doc string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		m := docRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		may := map[string]bool{}
		for _, name := range regexp.MustCompile("`([a-z/_-]+)`").FindAllStringSubmatch(m[2], -1) {
			may[name[1]] = true
		}
		out[m[1]] = may
	}
	if len(out) < 8 {
		t.Fatalf("docs/architecture.md: found %d rows in the package table", len(out))
	}
	return out
}
