package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRecipesNameTheTrueNumberOfFiles: docs/architecture.md "How to add …"
// says how many files adding a column, a check or a format touches. Each
// number is derived here from the source as it is, so the page cannot drift
// from the code (issue: it once said a check was 2 files when it was 3, and
// a format 2 when it was 5).
func TestRecipesNameTheTrueNumberOfFiles(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	said := recipeCounts(t, string(doc))
	pkgs := load(t)
	for name, derive := range map[string]func(*testing.T, []pkg) int{
		"a Doris column":   columnFiles,
		"a check":          checkFiles,
		"an output format": formatFiles,
	} {
		n, ok := said[name]
		if !ok {
			t.Errorf("docs/architecture.md has no recipe for %s", name)
			continue
		}
		if got := derive(t, pkgs); got != n {
			t.Errorf("docs/architecture.md: %s is %d files; the source says %d", name, n, got)
		}
	}
}

var recipeRE = regexp.MustCompile(`(?m)^\* \*\*([^*]+)\*\* — (\d+) files?`)

func recipeCounts(t *testing.T, doc string) map[string]int {
	out := map[string]int{}
	for _, m := range recipeRE.FindAllStringSubmatch(doc, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	if len(out) < 3 {
		t.Fatalf("docs/architecture.md: found %d recipes", len(out))
	}
	return out
}

// parsed is one non-test file of the module.
type parsed struct {
	rel  string // path from the module root
	pkg  string // import path
	file *ast.File
}

func parseModule(t *testing.T, pkgs []pkg) []parsed {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []parsed
	for _, p := range pkgs {
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parsing %s: %v", path, err)
			}
			rel, _ := filepath.Rel(root, path)
			out = append(out, parsed{filepath.ToSlash(rel), p.ImportPath, f})
		}
	}
	return out
}

// checkFiles: for every code declared in a package of diag/ whose check is
// listed, the files its declaration, its check function and the list entry
// live in. The declaration must sit in the file of a function that raises
// the code. The recipe's number is the largest such set.
func checkFiles(t *testing.T, pkgs []pkg) int {
	files := parseModule(t, pkgs)
	byPkg := map[string][]parsed{}
	for _, f := range files {
		if underDir(f.pkg, "diag") {
			byPkg[f.pkg] = append(byPkg[f.pkg], f)
		}
	}
	most, codes := 0, 0
	for pkgPath, fs := range byPkg {
		declFile := map[string]string{}  // CodeX → file
		raisers := map[string][]string{} // CodeX → functions that name it
		funcFile := map[string]string{}  // function → file
		listFile := map[string]string{}  // function listed in a check list → the list's file
		for _, f := range fs {
			for _, d := range f.file.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					for _, s := range d.Specs {
						vs, ok := s.(*ast.ValueSpec)
						if !ok || len(vs.Values) != 1 || len(vs.Names) != 1 {
							continue
						}
						if call, ok := vs.Values[0].(*ast.CallExpr); ok && isDeclareCall(call) {
							declFile[vs.Names[0].Name] = f.rel
							continue
						}
						if lit, ok := vs.Values[0].(*ast.CompositeLit); ok {
							ast.Inspect(lit, func(n ast.Node) bool {
								if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "check") {
									listFile[id.Name] = f.rel
								}
								return true
							})
						}
					}
				case *ast.FuncDecl:
					fn := d.Name.Name
					if d.Recv != nil {
						fn = "(method)." + fn // raises a code; never a listed check
					}
					funcFile[fn] = f.rel
					ast.Inspect(d, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "Code") {
							raisers[id.Name] = append(raisers[id.Name], fn)
						}
						return true
					})
				}
			}
		}
		for code, file := range declFile {
			beside := false
			var touched map[string]bool
			for _, fn := range raisers[code] {
				if funcFile[fn] != file {
					continue
				}
				beside = true
				if lf, ok := listFile[fn]; ok {
					touched = map[string]bool{file: true, lf: true}
				}
			}
			if !beside {
				t.Errorf("%s: %s is declared in %s, where no function raises it: a declaration sits beside its check", pkgPath, code, file)
			}
			if touched != nil {
				codes++
				most = max(most, len(touched))
			}
		}
	}
	if codes < 20 {
		t.Fatalf("only %d codes raised by a listed check found in diag/: the derivation is not looking at the checks", codes)
	}
	return most
}

func isDeclareCall(call *ast.CallExpr) bool {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name == "Declare"
	case *ast.SelectorExpr:
		return f.Sel.Name == "Declare"
	}
	return false
}

// formatFiles: the files a new output format touches are the files that
// enumerate the formats (a list of three or more Format constants, or a
// test against two or more of them), which must be the one that declares
// them, plus the one file of its renderers.
func formatFiles(t *testing.T, pkgs []pkg) int {
	files := parseModule(t, pkgs)
	consts := map[string]string{} // FormatX → declaring file
	for _, f := range files {
		if f.pkg != mod+"/report" {
			continue
		}
		for _, d := range f.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Format" {
					for _, n := range vs.Names {
						consts[n.Name] = f.rel
					}
				}
			}
		}
	}
	if len(consts) < 4 {
		t.Fatalf("found %d Format constants in report", len(consts))
	}
	name := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return x.Sel.Name
		}
		return ""
	}
	enumerating := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f.file, func(n ast.Node) bool {
			seen := map[string]bool{}
			count := func(e ast.Node) {
				ast.Inspect(e, func(m ast.Node) bool {
					if ex, ok := m.(ast.Expr); ok {
						if _, ok := consts[name(ex)]; ok {
							seen[name(ex)] = true
						}
					}
					return true
				})
			}
			switch x := n.(type) {
			case *ast.CompositeLit:
				count(x)
				if len(seen) >= 3 {
					enumerating[f.rel] = true
				}
				return false
			case *ast.BinaryExpr:
				if x.Op == token.LAND || x.Op == token.LOR {
					count(x)
					if len(seen) >= 2 {
						enumerating[f.rel] = true
					}
					return false
				}
			}
			return true
		})
	}
	var where []string
	for f := range enumerating {
		where = append(where, f)
	}
	sort.Strings(where)
	decl := ""
	for _, f := range consts {
		decl = f
	}
	if len(where) != 1 || where[0] != decl {
		t.Errorf("the output formats are enumerated in %v; only %s, which declares them, may", where, decl)
	}
	return len(where) + 1 // and the renderer file
}

// columnFiles: for every column the collector reads into a snapshot field
// (`Field: rr.x(doris.Rel.Column)`), the files that spell it: its relation
// in doris/, the read in scrape/collect/, the snapshot field's declaration, the
// emulator's `Set` (fixtures/emulator/systables). A value the snapshot normalises at load adds
// snapshot/io.go (the recipe says so); the number is that of a plain column.
func columnFiles(t *testing.T, pkgs []pkg) int {
	files := parseModule(t, pkgs)
	type col struct{ rel, field string }
	relFile := map[string]string{}            // relation var → doris file
	snapField := map[col]string{}             // column → the snapshot field it is read into
	spelled := map[col]map[string]bool{}      // column → files
	fieldDecl := map[string]map[string]bool{} // snapshot field name → files declaring it
	selOf := func(e ast.Expr) (col, bool) {
		s1, ok := e.(*ast.SelectorExpr)
		if !ok {
			return col{}, false
		}
		s2, ok := s1.X.(*ast.SelectorExpr)
		if !ok {
			return col{}, false
		}
		if id, ok := s2.X.(*ast.Ident); !ok || id.Name != "doris" {
			return col{}, false
		}
		return col{s2.Sel.Name, s1.Sel.Name}, true
	}
	add := func(c col, file string) {
		if spelled[c] == nil {
			spelled[c] = map[string]bool{}
		}
		spelled[c][file] = true
	}
	for _, f := range files {
		switch {
		case f.pkg == mod+"/doris":
			for _, d := range f.file.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					for _, s := range gd.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							relFile[n.Name] = f.rel
						}
					}
				}
			}
		case f.pkg == mod+"/snapshot":
			ast.Inspect(f.file, func(n ast.Node) bool {
				if fl, ok := n.(*ast.Field); ok {
					for _, nm := range fl.Names {
						if fieldDecl[nm.Name] == nil {
							fieldDecl[nm.Name] = map[string]bool{}
						}
						fieldDecl[nm.Name][f.rel] = true
					}
				}
				if c, ok := n.(ast.Expr); ok {
					if cl, ok := selOf(c); ok {
						add(cl, f.rel) // normalised at load
					}
				}
				return true
			})
		case f.pkg == mod+"/scrape/collect":
			ast.Inspect(f.file, func(n ast.Node) bool {
				kv, ok := n.(*ast.KeyValueExpr)
				if !ok {
					return true
				}
				key, ok := kv.Key.(*ast.Ident)
				if !ok {
					return true
				}
				ast.Inspect(kv.Value, func(m ast.Node) bool {
					if e, ok := m.(ast.Expr); ok {
						if c, ok := selOf(e); ok {
							snapField[c] = key.Name
							add(c, f.rel)
						}
					}
					return true
				})
				return true
			})
		case f.pkg == mod+"/fixtures/emulator" || f.pkg == mod+"/fixtures/emulator/systables":
			// The emulator names a relation once (c := doris.TableStreams)
			// and sets its columns through it.
			rels := map[string]bool{}
			ast.Inspect(f.file, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := s.X.(*ast.Ident); ok && id.Name == "doris" {
						rels[s.Sel.Name] = true
					}
				}
				return true
			})
			ast.Inspect(f.file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				if s, ok := call.Fun.(*ast.SelectorExpr); !ok || s.Sel.Name != "Set" {
					return true
				}
				if s, ok := call.Args[0].(*ast.SelectorExpr); ok {
					for r := range rels {
						add(col{r, s.Sel.Name}, f.rel)
					}
				}
				return true
			})
		}
	}
	counts := map[int][]string{}
	checked := 0
	for c, field := range snapField {
		df, ok := relFile[c.rel]
		if !ok {
			continue
		}
		files := map[string]bool{df: true}
		for f := range spelled[c] {
			if strings.HasPrefix(f, "fixtures/") || strings.HasPrefix(f, "scrape/") || f == "snapshot/io.go" {
				files[f] = true
			}
		}
		for f := range fieldDecl[field] {
			if f == "snapshot/model.go" {
				files[f] = true
			}
		}
		plain := !files["snapshot/io.go"]
		if !plain {
			continue
		}
		checked++
		counts[len(files)] = append(counts[len(files)], fmt.Sprintf("%s.%s %v", c.rel, c.field, keys(files)))
	}
	if checked < 20 {
		t.Fatalf("only %d plain columns read into the snapshot found", checked)
	}
	most, n := 0, 0
	for k, v := range counts {
		if len(v) > most {
			most, n = len(v), k
		}
	}
	for k, v := range counts {
		if k > n {
			t.Errorf("%d column(s) need %d files, more than the %d of most: %v", len(v), k, n, v)
		}
	}
	return n
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestFormatsNamedOnce (issue 19 item 5, "formats declared once"): outside
// report, no file names an output format by a string literal — compared
// with an Output option, or in a list of two or more formats (the help text
// of -o, a command's formats: a literal of format names alone) — but by
// report's Format constants, so a
// renamed or added format cannot leave a stale name behind. A flag called
// --table or a .json file extension is not a format and is not flagged.
func TestFormatsNamedOnce(t *testing.T) {
	names := map[string]bool{"table": true, "wide": true, "json": true, "markdown": true, "prom": true}
	isList := func(s string) bool {
		ws := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '|' })
		for _, w := range ws {
			if !names[w] {
				return false
			}
		}
		return len(ws) >= 2
	}
	isOutput := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Output"
	}
	for _, f := range parseModule(t, load(t)) {
		if f.pkg == mod+"/report" {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					return true
				}
				for _, pair := range [][2]ast.Expr{{x.X, x.Y}, {x.Y, x.X}} {
					if lit, ok := pair[1].(*ast.BasicLit); ok && lit.Kind == token.STRING && isOutput(pair[0]) {
						if v, err := strconv.Unquote(lit.Value); err == nil && names[v] {
							t.Errorf("%s: -o compared with the literal %s: use report's Format constant", f.rel, lit.Value)
						}
					}
				}
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					if v, err := strconv.Unquote(x.Value); err == nil && isList(v) {
						t.Errorf("%s: a list of formats written out (%s): build it from report's Format constants", f.rel, x.Value)
					}
				}
			}
			return true
		})
	}
}
