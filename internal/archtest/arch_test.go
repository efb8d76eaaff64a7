// Package archtest enforces the package picture of issue 11 on the real
// import graph (`go list -json ./...`) and, for the clock rule, on diag's
// syntax trees. Each rule is a function over a package list so that
// TestRulesCatchViolations can prove it fails on a bad graph.
package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const mod = "github.com/dorisdiag/dorisdiag"

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string // non-test imports only
	Deps       []string // transitive non-test dependencies

	TestGoFiles, XTestGoFiles []string // read by TestEveryTestPackageDefinesUpdate only
}

// leaves import nothing of this module.
var leaves = []string{mod + "/tso", mod + "/exposition", mod + "/doris", mod + "/shellquote"}

// socketFree may not import (directly, or through another package of this
// module) anything that opens a socket, runs a program or speaks SQL; every
// package of diag/ and report/ too (socketFreeIn).
var socketFree = append([]string{mod + "/diag", mod + "/report", mod + "/snapshot", mod + "/exposition/lint", mod + "/exposition/consumers", mod + "/exposition/fix"}, leaves...)

// socketFreeIn is socketFree and every package of diag/ and report/ in pkgs.
func socketFreeIn(pkgs []pkg) []string {
	out := append([]string(nil), socketFree...)
	for _, p := range pkgs {
		if (underDir(p.ImportPath, "diag") || underDir(p.ImportPath, "report")) && !has(out, p.ImportPath) {
			out = append(out, p.ImportPath)
		}
	}
	return out
}

var forbiddenIO = []string{"net", "net/http", "database/sql", "os/exec", "github.com/go-sql-driver/mysql"}

// linkedAnywhere are forbidden even as transitive dependencies through
// third-party code. database/sql and os/exec are not in this list because
// report's table libraries import them without opening anything
// (olekukonko/tablewriter → database/sql for sql.Null* cells,
// charmbracelet/colorprofile → os/exec for terminal probing); the rule for
// those is "no package of this module imports them" on the whole module-side
// closure, checked by ruleNoIO.
var linkedAnywhere = []string{"net", "net/http", "github.com/go-sql-driver/mysql"}

// exporterMain is the dorisdiag-exporter command: the only main that links
// the exporter (issue 24 item 3; `dorisdiag exporter` execs it).
const exporterMain = mod + "/cmd/dorisdiag-exporter"

// exporterOnly are the packages (an entry and everything under it) that only
// the exporter needs: dorisdiag links none of them, so that no subcommand of
// it initialises them (docs/performance.md "Start-up and binary size").
// dorisdiag-exporter links each: a name that no longer matches anything
// fails the rule, so that the list cannot rot into passing.
var exporterOnly = []string{
	mod + "/exporter", mod + "/cmd/exporter", mod + "/diag/round",
	"github.com/prometheus/client_golang", "github.com/prometheus/client_model", "github.com/prometheus/common",
	"github.com/prometheus/exporter-toolkit", "github.com/prometheus/procfs", "google.golang.org/protobuf",
	"github.com/pandatix/go-abnf", "github.com/golang-jwt/jwt/v5", "github.com/mwitkow/go-conntrack",
	"github.com/coreos/go-systemd/v22", "go.yaml.in/yaml/v2", "golang.org/x/crypto/bcrypt", "golang.org/x/net/trace",
	"html/template", "expvar", "runtime/metrics", "testing",
}

// ruleExporterApart: the module root (the dorisdiag command) links nothing
// of exporterOnly; the exporter's main links all of it.
func ruleExporterApart(pkgs []pkg) []string {
	idx := index(pkgs)
	under := func(dep, p string) bool { return dep == p || strings.HasPrefix(dep, p+"/") }
	var bad []string
	root, ok := idx[mod]
	if !ok {
		return []string{mod + ": not in the package list"}
	}
	for _, d := range root.Deps {
		for _, p := range exporterOnly {
			if under(d, p) {
				bad = append(bad, fmt.Sprintf("dorisdiag links %s (exporter only: it belongs in %s)", d, exporterMain))
			}
		}
	}
	exp, ok := idx[exporterMain]
	if !ok {
		return append(bad, exporterMain+": not in the package list")
	}
	for _, p := range exporterOnly {
		found := false
		for _, d := range exp.Deps {
			found = found || under(d, p)
		}
		if !found {
			bad = append(bad, fmt.Sprintf("%s does not link %s: drop it from exporterOnly", exporterMain, p))
		}
	}
	return bad
}

// TestDorisdiagLinksNoExporter: `go list -deps` of the dorisdiag command
// holds none of the exporter's packages; dorisdiag-exporter's holds them.
func TestDorisdiagLinksNoExporter(t *testing.T) {
	report(t, "dorisdiag links nothing of the exporter", ruleExporterApart(load(t)))
}

// fixturesAllowlist: known production imports of fixtures/..., each a
// documented exception. None: the demo scenarios the binary needs live in
// package scenario; fixtures/ is test support only.
var fixturesAllowlist = map[string][]string{}

func load(t *testing.T) []pkg {
	t.Helper()
	loaded.once.Do(func() { loaded.pkgs, loaded.err = goList() })
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	return append([]pkg(nil), loaded.pkgs...)
}

// loaded is the module's `go list`, run once for every test of the package
// (each took seconds of CPU on its own).
var loaded struct {
	once sync.Once
	pkgs []pkg
	err  error
}

func goList() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -json ./...: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		return nil, fmt.Errorf("go list found %d packages of %s; expected the whole module", len(pkgs), mod)
	}
	return pkgs, nil
}

func index(pkgs []pkg) map[string]pkg {
	m := make(map[string]pkg, len(pkgs))
	for _, p := range pkgs {
		m[p.ImportPath] = p
	}
	return m
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func inModule(path string) bool { return path == mod || strings.HasPrefix(path, mod+"/") }

func underDir(path, dir string) bool {
	return path == mod+"/"+dir || strings.HasPrefix(path, mod+"/"+dir+"/")
}

// ruleSiblings: scrape and diag are siblings over snapshot; neither reaches
// the other, directly or transitively.
func ruleSiblings(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		for _, pair := range [][2]string{{"scrape", "diag"}, {"diag", "scrape"}} {
			if underDir(p.ImportPath, pair[0]) {
				for _, d := range p.Deps {
					if underDir(d, pair[1]) {
						bad = append(bad, fmt.Sprintf("%s depends on %s", p.ImportPath, d))
					}
				}
			}
		}
	}
	return bad
}

// ruleScrapeLayers: scrape (the base: Config, the SQL client, HTTP GET, the
// guards) imports no package under scrape/, and the packages on it
// (scrape/collect, scrape/doctor) never reach one another: each reads on
// its own over the base (docs/architecture.md "Inside scrape").
func ruleScrapeLayers(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		if !underDir(p.ImportPath, "scrape") {
			continue
		}
		for _, d := range p.Deps {
			if !underDir(d, "scrape") || d == mod+"/scrape" {
				continue
			}
			if p.ImportPath == mod+"/scrape" || !underDir(d, strings.TrimPrefix(p.ImportPath, mod+"/")) {
				bad = append(bad, fmt.Sprintf("%s depends on %s", p.ImportPath, d))
			}
		}
	}
	return bad
}

// ruleLeaves: tso, exposition, doris and shellquote import no package of
// this module, not even one under them (exposition is the bottom layer its
// sub-packages stand on: issue 19).
func ruleLeaves(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		if !has(leaves, p.ImportPath) {
			continue
		}
		for _, imp := range p.Imports {
			if inModule(imp) {
				bad = append(bad, fmt.Sprintf("leaf %s imports %s", p.ImportPath, imp))
			}
		}
	}
	return bad
}

// ruleNoFixtures: no non-test package outside fixtures/ imports fixtures/...
// (fixturesAllowlist aside), and the binary never links the emulator, the
// SQL server it is built on (go-mysql-server: ~50 MB; design.md "The
// pipeline") or the other test support (internal/testnet, internal/testbin, internal/screentest,
// doris/doristest).
func ruleNoFixtures(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		if underDir(p.ImportPath, "fixtures") {
			continue
		}
		for _, imp := range p.Imports {
			if underDir(imp, "fixtures") && !has(fixturesAllowlist[p.ImportPath], imp) {
				bad = append(bad, fmt.Sprintf("%s imports %s", p.ImportPath, imp))
			}
		}
		if p.ImportPath == mod {
			for _, d := range p.Deps {
				if strings.HasPrefix(d, "github.com/dolthub/") || underDir(d, "fixtures/emulator") || underDir(d, "internal/testnet") || underDir(d, "internal/testbin") || underDir(d, "internal/screentest") || underDir(d, "doris/doristest") || underDir(d, "diag/internal/diagtest") {
					bad = append(bad, fmt.Sprintf("the dorisdiag binary links %s", d))
				}
			}
		}
	}
	return bad
}

// ruleNoIO: diag, report, snapshot and the leaves neither import a socket,
// process or SQL package nor reach one through another package of this
// module; net, net/http and the MySQL driver are not linked into them at all.
func ruleNoIO(pkgs []pkg) []string {
	byPath := index(pkgs)
	var bad []string
	for _, name := range socketFreeIn(pkgs) {
		p, ok := byPath[name]
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s not found by go list", name))
			continue
		}
		closure := []pkg{p}
		for _, d := range p.Deps {
			if q, ok := byPath[d]; ok {
				closure = append(closure, q)
			}
		}
		for _, q := range closure {
			for _, imp := range q.Imports {
				if has(forbiddenIO, imp) {
					via := ""
					if q.ImportPath != name {
						via = " via " + q.ImportPath
					}
					bad = append(bad, fmt.Sprintf("%s imports %s%s", name, imp, via))
				}
			}
		}
		for _, d := range p.Deps {
			if has(linkedAnywhere, d) {
				bad = append(bad, fmt.Sprintf("%s links %s", name, d))
			}
		}
	}
	return bad
}

// clockCalls lists calls that read the wall clock (time.Now, time.Since,
// time.Until) in one Go source file, honouring a renamed "time" import.
func clockCalls(fset *token.FileSet, f *ast.File) []string {
	var names []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			name := "time"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names = append(names, name)
		}
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || !has(names, id.Name) {
			return true
		}
		switch sel.Sel.Name {
		case "Now", "Since", "Until":
			bad = append(bad, fmt.Sprintf("%s: time.%s", fset.Position(sel.Pos()), sel.Sel.Name))
		}
		return true
	})
	return bad
}

func report(t *testing.T, rule string, bad []string) {
	t.Helper()
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: %s", rule, b)
	}
}

func TestScrapeAndDiagAreSiblings(t *testing.T) {
	report(t, "scrape and diag never import each other", ruleSiblings(load(t)))
}

func TestScrapeLayers(t *testing.T) {
	report(t, "scrape's layers are one-way", ruleScrapeLayers(load(t)))
}

func TestLeavesImportNothingOfTheModule(t *testing.T) {
	report(t, "leaves import nothing of this module", ruleLeaves(load(t)))
}

func TestNoFixturesOutsideTests(t *testing.T) {
	report(t, "fixtures are not linked outside tests", ruleNoFixtures(load(t)))
}

func TestOnlyScrapeOpensSockets(t *testing.T) {
	report(t, "only scrape opens sockets", ruleNoIO(load(t)))
}

func TestNoWallClockInDiag(t *testing.T) {
	report(t, "no wall clock in diag", sourceRule(t, clockCalls, "diag"))
}

// sourceRule applies rule to every non-test Go file of the packages under
// dirs and returns what it found; fewer than 20 files means go list did not
// see the tree, and fails rather than passing on nothing.
func sourceRule(t *testing.T, rule func(*token.FileSet, *ast.File) []string, dirs ...string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var bad []string
	files := 0
	for _, p := range load(t) {
		if !slices.ContainsFunc(dirs, func(d string) bool { return underDir(p.ImportPath, d) }) {
			continue
		}
		for _, name := range p.GoFiles { // GoFiles excludes _test.go files
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parsing %s: %v", name, err)
			}
			files++
			bad = append(bad, rule(fset, f)...)
		}
	}
	if files < 20 {
		t.Fatalf("go list found %d non-test Go files under %v", files, dirs)
	}
	return bad
}

// TestRulesCatchViolations proves each rule fails on a graph that breaks it,
// so the tests above cannot pass by accident.
func TestRulesCatchViolations(t *testing.T) {
	m := func(s string) string { return mod + "/" + s }
	cases := []struct {
		name string
		rule func([]pkg) []string
		pkgs []pkg
	}{
		{"diag reaches scrape transitively", ruleSiblings, []pkg{{ImportPath: m("diag"), Deps: []string{m("x"), m("scrape")}}}},
		{"diag reaches the doctor", ruleSiblings, []pkg{{ImportPath: m("diag/check"), Deps: []string{m("scrape/doctor")}}}},
		{"scrape imports diag", ruleSiblings, []pkg{{ImportPath: m("scrape"), Deps: []string{m("diag")}}}},
		{"the scrape base imports the collector", ruleScrapeLayers, []pkg{{ImportPath: m("scrape"), Deps: []string{m("scrape/collect")}}}},
		{"the doctor reaches the collector", ruleScrapeLayers, []pkg{{ImportPath: m("scrape/doctor"), Deps: []string{m("x"), m("scrape"), m("scrape/collect")}}}},
		{"leaf imports module package", ruleLeaves, []pkg{{ImportPath: m("exposition"), Imports: []string{m("snapshot")}}}},
		{"a leaf imports a package under it", ruleLeaves, []pkg{{ImportPath: m("exposition"), Imports: []string{m("exposition/fix")}}}},
		{"a leaf imports another leaf", ruleLeaves, []pkg{{ImportPath: m("tso"), Imports: []string{m("shellquote")}}}},
		{"report imports fixtures", ruleNoFixtures, []pkg{{ImportPath: m("report"), Imports: []string{m("fixtures/scenarios")}}}},
		{"cmd imports the emulator", ruleNoFixtures, []pkg{{ImportPath: m("cmd"), Imports: []string{m("fixtures/emulator")}}}},
		{"binary links the emulator", ruleNoFixtures, []pkg{{ImportPath: mod, Deps: []string{m("fixtures/emulator")}}}},
		{"binary links doristest", ruleNoFixtures, []pkg{{ImportPath: mod, Deps: []string{m("doris/doristest")}}}},
		{"binary links diagtest", ruleNoFixtures, []pkg{{ImportPath: mod, Deps: []string{m("diag/internal/diagtest")}}}},
		{"binary links testbin", ruleNoFixtures, []pkg{{ImportPath: mod, Deps: []string{m("internal/testbin")}}}},
		{"binary links go-mysql-server", ruleNoFixtures, []pkg{{ImportPath: mod, Deps: []string{"github.com/dolthub/go-mysql-server/sql"}}}},
		{"a diag package imports net", ruleNoIO, append(socketFreeGraph("", pkg{}), pkg{ImportPath: m("diag/streams"), Imports: []string{"net"}})},
		{"diag imports net/http", ruleNoIO, socketFreeGraph(m("diag"), pkg{Imports: []string{"net/http"}})},
		{"report reaches os/exec via a module package", ruleNoIO, append(socketFreeGraph(m("report"), pkg{Imports: []string{m("helper")}, Deps: []string{m("helper")}}),
			pkg{ImportPath: m("helper"), Imports: []string{"os/exec"}})},
		{"tso links the MySQL driver", ruleNoIO, socketFreeGraph(m("tso"), pkg{Deps: []string{"github.com/go-sql-driver/mysql"}})},
		{"dorisdiag links client_golang", ruleExporterApart, exporterGraph("github.com/prometheus/client_golang/prometheus")},
		{"dorisdiag links the exporter package", ruleExporterApart, exporterGraph(m("exporter"))},
		{"no exporter main", ruleExporterApart, exporterGraph("")[:1]},
	}
	for _, c := range cases {
		if bad := c.rule(c.pkgs); len(bad) == 0 {
			t.Errorf("%s: rule reported nothing", c.name)
		}
	}
	if bad := ruleScrapeLayers([]pkg{{ImportPath: m("scrape/collect"), Deps: []string{m("scrape"), m("snapshot")}}, {ImportPath: m("scrape/doctor"), Deps: []string{m("scrape")}}}); len(bad) != 0 {
		t.Errorf("clean scrape layers flagged: %v", bad)
	}
	if bad := ruleExporterApart(exporterGraph("")); len(bad) != 0 {
		t.Errorf("clean exporter split flagged: %v", bad)
	}
	if bad := ruleNoIO(socketFreeGraph("", pkg{})); len(bad) != 0 {
		t.Errorf("clean graph flagged: %v", bad)
	}

	src := `package diag
import clock "time"
func f() { _ = clock.Now(); _ = clock.Since(clock.Time{}) }`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := clockCalls(fset, f); len(got) != 2 {
		t.Errorf("clockCalls on a renamed time import = %v, want 2 calls", got)
	}
	f, _ = parser.ParseFile(fset, "y.go", "package diag\nimport \"time\"\nfunc g(now time.Time) time.Duration { return now.Sub(now) }", 0)
	if got := clockCalls(fset, f); len(got) != 0 {
		t.Errorf("clockCalls flagged a clock-free file: %v", got)
	}
}

// exporterGraph is the dorisdiag command linking only the standard library
// and dep (when non-empty), and the exporter's main linking every
// exporterOnly package.
func exporterGraph(dep string) []pkg {
	root := pkg{ImportPath: mod, Deps: []string{"fmt", "os", mod + "/cmd"}}
	if dep != "" {
		root.Deps = append(root.Deps, dep)
	}
	exp := pkg{ImportPath: exporterMain}
	for _, p := range exporterOnly {
		exp.Deps = append(exp.Deps, p+"/x")
	}
	return []pkg{root, exp}
}

// socketFreeGraph returns every socket-free package, clean, except that
// `dirty` (when non-empty) gets the imports and deps of p.
func socketFreeGraph(dirty string, p pkg) []pkg {
	var out []pkg
	for _, name := range socketFree {
		q := pkg{ImportPath: name}
		if name == dirty {
			q.Imports, q.Deps = p.Imports, p.Deps
		}
		out = append(out, q)
	}
	return out
}

// listenCalls lists calls that listen on a socket (net.Listen*, tls.Listen,
// http.ListenAndServe*, http.Serve*) in one Go source file, honouring renamed
// imports: `exporter` is the only production package that listens.
func listenCalls(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{} // local name → import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch p {
		case "net", "net/http", "crypto/tls":
			name := filepath.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = p
		}
	}
	listeners := map[string][]string{
		"net":        {"Listen", "ListenTCP", "ListenPacket", "ListenUDP", "ListenUnix", "ListenIP"},
		"crypto/tls": {"Listen", "NewListener"},
		"net/http":   {"ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS"},
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := names[id.Name]; ok && has(listeners[p], sel.Sel.Name) {
			bad = append(bad, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), p, sel.Sel.Name))
		}
		return true
	})
	return bad
}

// dialCalls lists what opens an outgoing connection (net.Dial*, a
// net.Dialer, tls.Dial*, an http.Transport or the default client, sql.Open*,
// the MySQL driver's connector) in one Go source file, honouring renamed
// imports: only the scrape base package builds a dialer, so every dial of
// scrape/collect and scrape/doctor goes through its guard (SetDialGuard).
func dialCalls(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{} // local name → import path
	dialers := map[string][]string{
		"net":                            {"Dial", "DialTimeout", "DialTCP", "DialUDP", "DialIP", "DialUnix", "Dialer"},
		"crypto/tls":                     {"Dial", "DialWithDialer", "Dialer"},
		"net/http":                       {"Transport", "DefaultClient", "DefaultTransport", "Get", "Head", "Post", "PostForm"},
		"database/sql":                   {"Open", "OpenDB"},
		"github.com/go-sql-driver/mysql": {"NewConnector", "NewConfig"},
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := dialers[p]; ok {
			name := filepath.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = p
		}
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := names[id.Name]; ok && has(dialers[p], sel.Sel.Name) {
			bad = append(bad, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), p, sel.Sel.Name))
		}
		return true
	})
	return bad
}

// TestEveryDialIsInScrape: no production package but scrape (the base)
// dials, so the one guard there (SetDialGuard, proved by
// TestOfflineNeverOpensASocket) sees every connection the binary opens;
// test support (fixtures, internal/testnet) may dial.
func TestEveryDialIsInScrape(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	seen := false
	for _, p := range load(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if strings.HasPrefix(rel, "fixtures") || rel == "internal/testnet" {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parsing %s: %v", name, err)
			}
			calls := dialCalls(fset, f)
			if rel == "scrape" {
				seen = seen || len(calls) > 0
				continue
			}
			bad = append(bad, calls...)
		}
	}
	if !seen {
		t.Error("dialCalls finds no dial in scrape: the rule has lost what it looks for")
	}
	report(t, "only scrape dials", bad)
	// The rule catches a dialer, under a renamed import too.
	f, err := parser.ParseFile(fset, "x.go", "package x\nimport n \"net\"\nfunc f() { _ = &n.Dialer{} }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(dialCalls(fset, f)) != 1 {
		t.Error("dialCalls misses n.Dialer under a renamed net import")
	}
}

// TestOnlyExporterListens: no production package but exporter listens on a
// socket (docs/architecture.md: scrape is the only package that dials,
// exporter the only one that listens); test support (fixtures, internal/testnet)
// may.
func TestOnlyExporterListens(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	for _, p := range load(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if rel == "exporter" || strings.HasPrefix(rel, "fixtures") || rel == "internal/testnet" {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parsing %s: %v", name, err)
			}
			bad = append(bad, listenCalls(fset, f)...)
		}
	}
	report(t, "only exporter listens", bad)
	// The rule catches a listener, under a renamed import too.
	f, err := parser.ParseFile(fset, "x.go", "package x\nimport n \"net\"\nfunc f() { n.Listen(\"tcp\", \":0\") }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(listenCalls(fset, f)) != 1 {
		t.Error("listenCalls misses n.Listen under a renamed net import")
	}
}
