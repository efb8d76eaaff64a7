package cmd

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	metricscmd "github.com/dorisdiag/dorisdiag/cmd/metrics"
	mvcmd "github.com/dorisdiag/dorisdiag/cmd/mv"
	streamscmd "github.com/dorisdiag/dorisdiag/cmd/streams"
	tsocmd "github.com/dorisdiag/dorisdiag/cmd/tso"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/diag/streams"
)

// testIOStreams returns streams over buffers (cli/cli's iostreams.Test).
func testIOStreams() (*cmdutil.IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

// testFactory is the Factory of a command line whose root flags are cfg.
func testFactory(cfg *cmdutil.Config) *cmdutil.Factory {
	ios, _, _ := testIOStreams()
	return cmdutil.NewFactory(ios, cfg)
}

// parse runs c with args and a runF that records the options: flag parsing
// and validation apart from behaviour (cli/cli pkg/cmd/pr/checks
// checks_test.go). got is nil when validation refused the flags.
func parse[O any](t *testing.T, build func(runF func(*O) error) *cobra.Command, args ...string) (got *O, err error) {
	t.Helper()
	c := build(func(o *O) error { got = o; return nil })
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceUsage, c.SilenceErrors = true, true
	_, err = c.ExecuteC()
	return got, err
}

func wantUsage(t *testing.T, err error, contains string) {
	t.Helper()
	if err == nil || !cmdutil.IsUsage(err) || !strings.Contains(err.Error(), contains) {
		t.Errorf("error %v: want a usage error containing %q", err, contains)
	}
}

func TestNewCmdStreamsFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "table", Demo: "incident"})
	build := func(runF func(*streamscmd.StreamsOptions) error) *cobra.Command {
		return streamscmd.NewCmdStreams(f, runF)
	}

	o, err := parse(t, build, "--db", "demo", "--kind", "user", "--state", "cannot_resume", "--min-headroom", "2h", "--watch=30s", "--watch-rounds", "3", "-f", "out.txt")
	if err != nil || o == nil {
		t.Fatalf("valid flags: %v", err)
	}
	want := streamscmd.StreamsOptions{DB: "demo", Kind: "user", State: "cannot_resume",
		Limits: streamscmd.StreamThresholds{MinHeadroom: 2 * time.Hour, MaxPending: streams.DefaultMaxPending},
		Watch:  watch.Options{Interval: 30 * time.Second, Rounds: 3, File: "out.txt"}}
	if o.DB != want.DB || o.Kind != want.Kind || o.State != want.State || o.Limits != want.Limits || o.Watch != want.Watch {
		t.Errorf("options %+v, want %+v", *o, want)
	}
	if o.Config.Demo != "incident" || o.IO != f.IOStreams || o.Source == nil {
		t.Errorf("the run's inputs are not the factory's: %+v", o.Common)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "table"}, `--kind "table": want user or ivm`},
		{[]string{"--state", "fine"}, `--state "fine"`},
		{[]string{"--max-pending", "-1s"}, "must not be negative"},
	} {
		o, err := parse(t, build, tc.args...)
		if o != nil {
			t.Errorf("%v: runF called", tc.args)
		}
		wantUsage(t, err, tc.want)
	}
	// -o is a flag: checked before the run, against the formats of the kind.
	bad := testFactory(&cmdutil.Config{Output: "yaml"})
	if _, err := parse(t, func(runF func(*streamscmd.StreamsOptions) error) *cobra.Command {
		return streamscmd.NewCmdStreams(bad, runF)
	}); err == nil || !cmdutil.IsUsage(err) {
		t.Errorf("-o yaml: %v, want a usage error", err)
	}
}

func TestNewCmdStreamsShowFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "json"})
	build := func(runF func(*streamscmd.StreamsShowOptions) error) *cobra.Command {
		return streamscmd.NewCmdStreamsShow(f, runF)
	}
	o, err := parse(t, build, "demo.s_orders_cdc", "--max-pending", "10m")
	if err != nil || o == nil || o.Target == nil || *o.Target != "demo.s_orders_cdc" || o.Limits.MaxPending != 10*time.Minute {
		t.Fatalf("got %+v, %v", o, err)
	}
	if o, err = parse(t, build); err != nil || o.Target != nil {
		t.Errorf("no name: Target %v, %v; want nil (the run lists the candidates)", o.Target, err)
	}
}

func TestNewCmdMVListFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "table"})
	th := &mvcmd.MVThresholds{MaxDelay: time.Minute, MaxFailures: 3, MaxRunning: time.Hour, MaxQueued: time.Hour, FallbackWindow: time.Hour, MinFallbacks: 2}
	build := func(runF func(*mvcmd.MVListOptions) error) *cobra.Command { return mvcmd.NewCmdMVList(f, th, runF) }
	o, err := parse(t, build, "--state", "LAGGING", "--db", "demo")
	if err != nil || o == nil {
		t.Fatalf("valid flags: %v", err)
	}
	if o.State != "lagging" || o.DB != "demo" || o.Limits != *th {
		t.Errorf("--state LAGGING: %q (want the state's own name), db %q, limits %+v", o.State, o.DB, o.Limits)
	}
	_, err = parse(t, build, "--state", "stale")
	wantUsage(t, err, `--state "stale"`)

	th.MaxDelay = 0
	_, err = parse(t, build)
	wantUsage(t, err, "--max-delay must be positive")
}

func TestNewCmdCheckFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "prom"})
	build := func(runF func(*CheckOptions) error) *cobra.Command { return NewCmdCheck(f, runF) }
	o, err := parse(t, build, "--max-delay", "10m", "--config", "x.yaml", "--no-metrics", "--watch")
	if err != nil || o == nil {
		t.Fatalf("valid flags: %v", err)
	}
	if o.MaxDelay != 10*time.Minute || o.ConfigFile != "x.yaml" || !o.NoMetrics || o.Watch.Interval != 15*time.Second {
		t.Errorf("options %+v", *o)
	}
	// The flags given win over --config: the run is told which they are.
	var given []string
	for k := range o.Given {
		given = append(given, k)
	}
	sort.Strings(given)
	if strings.Join(given, ",") != "config,max-delay,no-metrics,watch" {
		t.Errorf("Given = %v", given)
	}
}

func TestNewCmdHeadroomFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "table"})
	build := func(runF func(*HeadroomOptions) error) *cobra.Command { return NewCmdHeadroom(f, runF) }
	o, err := parse(t, build, "--at", "2026-12-01T02:00:00Z", "--ttl", "48h", "--kind", "ivm")
	if err != nil || o == nil {
		t.Fatalf("valid flags: %v", err)
	}
	if !o.at.Equal(time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)) || o.ttl == nil || *o.ttl != 172800 {
		t.Errorf("--at and --ttl parsed to %v, %v", o.at, o.ttl)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--at", "2026-12-01T02:00:00Z", "--in", "1h"}, "give --at or --in, not both"},
		{[]string{"--in", "-1h"}, "--in must not be negative"},
		{[]string{"--ttl", "soon"}, `--ttl "soon"`},
		{[]string{"--at", "tomorrow"}, `--at "tomorrow"`},
	} {
		_, err := parse(t, build, tc.args...)
		wantUsage(t, err, tc.want)
	}
}

func TestNewCmdTSOHeadroomFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "table"})
	build := func(runF func(*tsocmd.TSOHeadroomOptions) error) *cobra.Command {
		return tsocmd.NewCmdTSOHeadroom(f, runF)
	}
	o, err := parse(t, build, "--offset", "N/A", "--ttl", "86400", "--now", "469099767398400000")
	if err != nil || o == nil || o.Offset != "N/A" || o.TTL != 86400 || o.TTLText != "86400" || o.MinHeadroom != 30*time.Minute {
		t.Fatalf("got %+v, %v", o, err)
	}
	_, err = parse(t, build, "--ttl", "86400")
	wantUsage(t, err, "--offset is required")
	_, err = parse(t, build, "--offset", "1", "--ttl", "0")
	wantUsage(t, err, "want a TTL above zero")
	// One validation with `headroom`'s: a duration is a TTL too, and the
	// generic cursor form takes a timestamp in --tz and a table.
	if o, err = parse(t, build, "--offset", "2026-11-29 16:59:48", "--tz", "Asia/Shanghai", "--ttl", "24h", "--now", "469099767398400000"); err != nil || o.TTL != 86400 {
		t.Fatalf("timestamp offset, --ttl 24h: %+v, %v", o, err)
	}
	if o, err = parse(t, build, "--offset", "2026-11-29 16:59:48", "--table", "demo.orders"); err != nil || o.Table != "demo.orders" || o.TTL != 0 {
		t.Fatalf("--table: %+v, %v", o, err)
	}
	_, err = parse(t, build, "--offset", "1", "--ttl", "86400", "--table", "demo.orders")
	wantUsage(t, err, "give --ttl or --table, not both")
	_, err = parse(t, build, "--offset", "1", "--table", "orders")
	wantUsage(t, err, `--table "orders": want DB.TABLE`)
	_, err = parse(t, build, "--offset", "yesterday", "--ttl", "1")
	wantUsage(t, err, `--offset "yesterday": want a TSO`)
}

func TestNewCmdMetricsLintFlags(t *testing.T) {
	build := func(cfg *cmdutil.Config) func(runF func(*metricscmd.MetricsLintOptions) error) *cobra.Command {
		f := testFactory(cfg)
		return func(runF func(*metricscmd.MetricsLintOptions) error) *cobra.Command {
			return metricscmd.NewCmdMetricsLint(f, runF)
		}
	}
	o, err := parse(t, build(&cmdutil.Config{Output: "table"}), "fe.prom", "--fix", "-w", "out.prom")
	if err != nil || o.Input != "fe.prom" || !o.Fix || o.Write != "out.prom" || o.FromSource {
		t.Fatalf("got %+v, %v", o, err)
	}
	// No argument: stdin, or the payloads of --demo/--snapshot.
	if o, err = parse(t, build(&cmdutil.Config{Output: "table"})); err != nil || o.Input != "-" || o.FromSource {
		t.Errorf("no argument: %+v, %v", o, err)
	}
	if o, err = parse(t, build(&cmdutil.Config{Output: "table", Demo: "incident"})); err != nil || !o.FromSource {
		t.Errorf("--demo, no argument: %+v, %v", o, err)
	}
	_, err = parse(t, build(&cmdutil.Config{Output: "table", Demo: "incident"}), "--fix")
	wantUsage(t, err, "--fix works on one payload")
	_, err = parse(t, build(&cmdutil.Config{Output: "table"}), "-w", "x.prom")
	wantUsage(t, err, "-w needs --fix")
	_, err = parse(t, build(&cmdutil.Config{Output: "table", FailOn: "info"}), "fe.prom")
	wantUsage(t, err, `--fail-on "info"`)
}

// TestRunsNeverWriteTheSharedConfig: check used to write the config file's
// fail_on into the shared --fail-on (and snapshot and check their
// collection knobs into the shared source options, --watch its round and
// NDJSON mode, and swap stdout to capture a round). Now a run leaves the
// root's flags as they were parsed.
func TestRunsNeverWriteTheSharedConfig(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "dorisdiag.yaml")
	if err := os.WriteFile(cfgFile, []byte("fail_on: none\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--demo=incident", "--config", cfgFile, "-o", "json"},
		{"check", "--demo=incident", "--watch=1ms", "--watch-rounds", "2", "-o", "json"},
		{"snapshot", "--demo=incident", "--tasks-per-mv", "3", "--summary"},
		{"streams", "--demo=incident", "-f", filepath.Join(dir, "streams.txt")},
	} {
		ios, _, _ := testIOStreams()
		out := ios.Out
		cfg := &cmdutil.Config{}
		root := newRoot(cmdutil.NewFactory(ios, cfg), cfg, exporterCommand)
		var parsed cmdutil.Config
		root.PersistentPostRun = nil
		pre := root.PersistentPreRunE
		root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
			err := pre(c, args)
			parsed = *cfg
			parsed.Snapshots = append([]string(nil), cfg.Snapshots...)
			return err
		}
		root.SetArgs(args)
		if _, err := root.ExecuteC(); err != nil && !errors.Is(err, cmdutil.ErrFindings) {
			t.Fatalf("%v: %v", args, err)
		}
		if !reflect.DeepEqual(parsed, *cfg) {
			t.Errorf("%v: the run changed the shared flags: %+v → %+v", args, parsed, *cfg)
		}
		if cfg.FailOn != "" {
			t.Errorf("%v: --fail-on became %q", args, cfg.FailOn)
		}
		if ios.Out != out {
			t.Errorf("%v: stdout was swapped", args)
		}
	}
}

// TestEveryCommandHasTheOneShape: every runnable command is built by a
// NewCmdX(f *cmdutil.Factory, runF func(*XOptions) error) whose options
// embed the common inputs (cmdutil.Common, directly or through a struct
// that embeds it); a group is NewCmdX(f
// *cmdutil.Factory). Read from the source of cmd and of every command
// package under it, so a new command in another shape fails here. Its
// RunE ends in the command's run function of the options alone (`return
// xRun(o)`: explicit inputs, no second argument carrying state the RunE
// built; issue 19, doctor's four commands ran `doctorRun(o.Common,
// &o.doctorInputs)`).
func TestEveryCommandHasTheOneShape(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, sub...)
	// name is the name of a type written as T or pkg.T.
	name := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return x.Sel.Name
		}
		return ""
	}
	var files []*ast.File
	funcs := map[string]*ast.FuncDecl{} // "dir.name" → a function (not a method) of a package
	dirOf := map[*ast.FuncDecl]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[filepath.Dir(name)+"."+fd.Name.Name] = fd
				dirOf[fd] = filepath.Dir(name)
			}
		}
	}
	// runOf is the run function the RunE of ctor ends in (`return xRun(o)`),
	// nil when it ends otherwise.
	runOf := func(ctor *ast.FuncDecl) *ast.FuncDecl {
		var run *ast.FuncDecl
		ast.Inspect(ctor.Body, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != "RunE" {
				return true
			}
			lit, ok := kv.Value.(*ast.FuncLit)
			if !ok || len(lit.Body.List) == 0 {
				return false
			}
			ret, ok := lit.Body.List[len(lit.Body.List)-1].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				return false
			}
			call, ok := ret.Results[0].(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return false
			}
			fn, ok1 := call.Fun.(*ast.Ident)
			if _, ok2 := call.Args[0].(*ast.Ident); ok1 && ok2 {
				run = funcs[dirOf[ctor]+"."+fn.Name]
			}
			return false
		})
		return run
	}
	options := map[string]bool{}    // struct types that embed common
	embeds := map[string][]string{} // struct type → the types it embeds
	var ctors []*ast.FuncDecl
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							if len(fl.Names) == 0 {
								embeds[ts.Name.Name] = append(embeds[ts.Name.Name], name(fl.Type))
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil && strings.HasPrefix(d.Name.Name, "NewCmd") {
					ctors = append(ctors, d)
				}
			}
		}
	}
	// Common embedded directly, or through a struct that embeds it (the
	// inputs a group's commands share, as cmd/metrics' payloadOptions).
	options["Common"] = true
	for grew := true; grew; {
		grew = false
		for typ, es := range embeds {
			for _, e := range es {
				if options[e] && !options[typ] {
					options[typ], grew = true, true
				}
			}
		}
	}
	delete(options, "Common")
	withRunF := 0
	for _, d := range ctors {
		ps := d.Type.Params.List
		if star, ok := ps[0].Type.(*ast.StarExpr); !ok || name(star.X) != "Factory" {
			t.Errorf("%s: the first parameter is not f *Factory", d.Name.Name)
		}
		last := ps[len(ps)-1]
		ft, ok := last.Type.(*ast.FuncType)
		if len(ps) == 1 || !ok {
			continue // a group
		}
		withRunF++
		opt := ""
		if len(ft.Params.List) == 1 {
			if star, ok := ft.Params.List[0].Type.(*ast.StarExpr); ok {
				opt = name(star.X)
			}
		}
		if opt != strings.TrimPrefix(d.Name.Name, "NewCmd")+"Options" || !options[opt] {
			t.Errorf("%s: runF takes *%s; want *%sOptions, a struct embedding common", d.Name.Name, opt, strings.TrimPrefix(d.Name.Name, "NewCmd"))
		}
		run := runOf(d)
		if run == nil || len(run.Type.Params.List) != 1 || len(run.Type.Params.List[0].Names) > 1 {
			t.Errorf("%s: RunE does not end in `return xRun(o)`, a run function of the options alone", d.Name.Name)
		} else if star, ok := run.Type.Params.List[0].Type.(*ast.StarExpr); !ok || name(star.X) != opt {
			t.Errorf("%s: its run function %s does not take *%s", d.Name.Name, run.Name.Name, opt)
		}
	}
	// Every function that builds a runnable cobra.Command is a NewCmdX of
	// the shape above, but the ones named here, with why: a command outside
	// the shape would otherwise go unseen (the exporter's shim did).
	notShaped := map[string]string{
		"newCmdExporterShim": "execs dorisdiag-exporter with the arguments untouched: no options, no run of its own",
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || strings.HasPrefix(fd.Name.Name, "NewCmd") {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok || name(cl.Type) != "Command" {
					return true
				}
				for _, e := range cl.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok && (name(kv.Key) == "RunE" || name(kv.Key) == "Run") {
						if _, ok := notShaped[fd.Name.Name]; !ok {
							t.Errorf("%s builds a runnable command outside the NewCmdX(f, runF) shape", fd.Name.Name)
						}
					}
				}
				return true
			})
		}
	}
	leaves := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.HasSubCommands() && c.Name() != "help" {
			leaves++
		}
		if c.Name() == "streams" || c.Name() == "doctor" {
			leaves++ // runnable with subcommands (streams show; doctor config, net, labels)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewRootCmd(&cmdutil.IOStreams{}))
	if withRunF != leaves {
		t.Errorf("%d NewCmdX with a runF for %d runnable commands", withRunF, leaves)
	}
}
