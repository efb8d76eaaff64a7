// Package testbin builds a command of this module once per test process and
// hands every test that execs it the same file: the whole-process memory
// budgets, the real-terminal goldens and the benchmarks that time a process
// used to run `go build` each (up to 20 s of link time apiece on 2 cores).
// Only tests import it, so the dorisdiag binary never links it
// (internal/archtest).
//
// A package that uses it runs its tests through Main, which removes the
// binaries when they end:
//
//	func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Module is the import path of this module's root package: the dorisdiag
// command.
const Module = "github.com/dorisdiag/dorisdiag"

// Emulator is the import path of the doris-emulator command.
const Emulator = Module + "/fixtures/emulator/cmd/doris-emulator"

// Exporter is the import path of the dorisdiag-exporter command, which
// `dorisdiag exporter` execs.
const Exporter = Module + "/cmd/dorisdiag-exporter"

// DorisdiagTest is the import path of dorisdiag as tests run it in a child
// process: loopback dials only, its peak memory reported on request
// (internal/testbin/dorisdiagtest).
const DorisdiagTest = Module + "/internal/testbin/dorisdiagtest"

var (
	mu     sync.Mutex
	inMain bool
	dir    string
	built  = map[string]result{}
)

type result struct {
	path string
	err  error
}

// Main runs m's tests and then removes every binary built for them. It
// returns the exit code for os.Exit.
func Main(m *testing.M) int {
	mu.Lock()
	inMain = true
	mu.Unlock()
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
		dir = ""
	}
	return code
}

// Dorisdiag returns the path of the dorisdiag binary, built on the first
// call of this test process.
func Dorisdiag(tb testing.TB) string { return Build(tb, Module) }

// DorisdiagWithExporter returns the path of the dorisdiag binary with
// dorisdiag-exporter built beside it, where `dorisdiag exporter` finds it
// first: a test that runs `dorisdiag exporter` runs the exporter through
// the shim, as a user does.
func DorisdiagWithExporter(tb testing.TB) string {
	tb.Helper()
	Build(tb, Exporter)
	return Build(tb, Module)
}

// Build returns the path of the command pkg (an import path of this
// module), built on the first call of this test process for pkg; later
// calls, from any test, return the same file. It skips when there is no go
// tool on PATH; a failed build fails every test that asks for it. Safe for
// parallel tests.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if !inMain {
		tb.Fatal("testbin.Build: the package's TestMain must run its tests through testbin.Main (it removes the binaries)")
	}
	r, ok := built[pkg]
	if !ok {
		r = build(pkg)
		built[pkg] = r
	}
	if r.err != nil {
		if r.err == errNoGo {
			tb.Skip("no go tool on PATH to build " + pkg)
		}
		tb.Fatal(r.err)
	}
	return r.path
}

var errNoGo = fmt.Errorf("no go tool on PATH")

// build runs `go build -o DIR/NAME pkg`; mu is held.
func build(pkg string) result {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return result{err: errNoGo}
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "dorisdiag-testbin-"); err != nil {
			return result{err: err}
		}
	}
	name := "dorisdiag" // the module's root; a sub-package by its path
	switch pkg {
	case Module:
	case Exporter:
		name = "dorisdiag-exporter" // beside dorisdiag, where its shim looks
	default:
		name = strings.ReplaceAll(strings.TrimPrefix(pkg, Module+"/"), "/", "_")
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command(goTool, "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return result{err: fmt.Errorf("go build %s: %v\n%s", pkg, err, out)}
	}
	return result{path: bin}
}
