package usertext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// The one generation of every output (issue 19: "tests that read every
// output do it in one streaming pass"). Every command line runs once, as on
// an 80-column terminal (stdout a TTY, so colour and the headroom bars are
// on; the width from COLUMNS, as a real terminal's would be from
// TIOCGWINSZ), in each format it writes; its stdout and stderr stream into
// the citation scanner, and the few outputs the prose checks read whole
// (the default view, -o wide and -o json of check, mv explain and streams
// show) are also kept. Before, the citation test and the ellipsis test each
// ran most of these commands, at different widths.

// outputs is what the one generation found.
type outputs struct {
	citations map[string][]string // a citation problem → the outputs it is in
	read      int                 // outputs read by the citation scanner
	failed    []string            // command lines that could not run
	ellipses  []string            // "…" inside prose, per scenario and view
	check     map[string]checkViews
}

// checkViews are check's 80-column views of one scenario.
type checkViews struct{ out, wide string }

var (
	generated     *outputs
	generatedOnce sync.Once
)

// everyOutput returns the one generation, made on the first call of the
// test process; a command line that could not run fails the caller.
func everyOutput(t *testing.T) *outputs {
	t.Helper()
	generatedOnce.Do(func() { generated = generate() })
	for _, f := range generated.failed {
		t.Error(f)
	}
	return generated
}

// addProblems records the citation problems of one output.
func (g *outputs) addProblems(source string, problems []string) {
	g.read++
	once := map[string]bool{}
	for _, p := range problems {
		if !once[p] {
			once[p] = true
			g.citations[p] = append(g.citations[p], source)
		}
	}
}

// run runs one command line on the 80-column terminal, its stdout to out.
func run(args []string, out io.Writer) (int, string) {
	var errb bytes.Buffer
	env := map[string]string{"COLUMNS": "80", "PAGER": "cat"}
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: out, Err: &errb, IsTTY: true, Getenv: func(k string) string { return env[k] }}
	return cmd.Main(args, ios), errb.String()
}

// job is one command line and the formats it runs in.
type job struct {
	args    []string
	formats []string
}

func key(args []string, format string) string { return strings.Join(args, " ") + " -o " + format }

// runJobs runs each job's command line once per format (a line and format
// already run is not run again), through the citation scanner; the outputs
// keep names are returned whole.
func (g *outputs) runJobs(jobs []job, keep map[string]bool, texts map[string]string, done map[string]bool) {
	for _, j := range jobs {
		for _, f := range j.formats {
			k := key(j.args, f)
			if done[k] {
				continue
			}
			done[k] = true
			a := append(append([]string{}, j.args...), "-o", f)
			sc := &citationScanner{}
			var w io.Writer = sc
			var whole strings.Builder
			if keep[k] {
				w = io.MultiWriter(sc, &whole)
			}
			code, stderr := run(a, w)
			if code == cmdutil.ExitError && (strings.Contains(stderr, "format") || strings.Contains(stderr, "holds no /metrics payloads")) {
				continue // a format this command does not write
			}
			if code == cmdutil.ExitError {
				g.failed = append(g.failed, fmt.Sprintf("%s: exit 2: %s", strings.Join(a, " "), stderr))
			}
			errs := &citationScanner{}
			errs.WriteString(stderr)
			g.addProblems(strings.Join(a, " "), append(sc.done(), errs.done()...))
			if keep[k] {
				texts[k] = whole.String()
			}
		}
	}
}

// names are the objects (DB.NAME as typed) of the list under key of a
// command's JSON document.
func names(doc string, key string) ([]string, error) {
	var d map[string]json.RawMessage
	var objs []struct{ DB, Name string }
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(d[key], &objs); err != nil {
		return nil, fmt.Errorf(".%s: %w", key, err)
	}
	var ns []string
	for _, o := range objs {
		ns = append(ns, doris.FormatName(o.DB, o.Name))
	}
	return ns, nil
}

// generate runs every command on every bundled scenario in every human and
// JSON format, explains every code and every stream and MV, lints every
// fixture payload; the citation scanner reads all of it, the prose checks
// the views of proseViews.
func generate() *outputs {
	g := &outputs{citations: map[string][]string{}, check: map[string]checkViews{}}
	all := []string{"table", "wide", "markdown", "json"}
	done := map[string]bool{}
	for _, sc := range scenario.Names() {
		demo := "--demo=" + sc
		fs := all
		if sc == "scale" {
			fs = []string{"table", "json"} // 5 s a run: the table and every string of the document
		}
		views, err := proseViews(sc)
		if err != nil {
			g.failed = append(g.failed, err.Error())
			continue
		}
		keep := map[string]bool{}
		for _, v := range views {
			keep[key(v, "table")], keep[key(v, "wide")] = true, true
			if v[0] == "mv" {
				keep[key(v, "json")] = true
			}
		}
		keep[key(views[0], "json")] = true // check's JSON holds every stream, MV, partition and task
		streamsList, mvList := []string{"streams", demo}, []string{"mv", "list", demo}
		if sc != "scale" { // its names are not read, and its streams JSON is over 100 MB
			keep[key(streamsList, "json")], keep[key(mvList, "json")] = true, true
		}
		texts := map[string]string{}
		g.runJobs([]job{
			{[]string{"check", demo}, fs},
			{streamsList, fs},
			{mvList, fs},
			{[]string{"headroom", "--in", "20h", demo}, fs},
			{[]string{"metrics", "lint", demo}, fs},
			{[]string{"snapshot", "--summary", demo}, fs},
			{[]string{"demo", "--scenario", sc}, fs},
		}, keep, texts, done)
		var jobs []job
		if sc != "scale" {
			// scale's 7,000 streams and 2,000 MVs are generated in the
			// shapes of the other scenarios, whose every object is
			// explained here.
			streams, err := names(texts[key(streamsList, "json")], "streams")
			if err != nil {
				g.failed = append(g.failed, fmt.Sprintf("%v -o json: %v", streamsList, err))
			}
			mvs, err := names(texts[key(mvList, "json")], "mvs")
			if err != nil {
				g.failed = append(g.failed, fmt.Sprintf("%v -o json: %v", mvList, err))
			}
			for _, s := range streams {
				jobs = append(jobs, job{[]string{"streams", "show", s, demo}, all})
			}
			for _, m := range mvs {
				jobs = append(jobs, job{[]string{"mv", "explain", m, demo}, all}, job{[]string{"mv", "explain", m, "--details", demo}, all})
			}
		}
		// The prose views not run above (scale's, and any whose name
		// is typed otherwise), in the formats the prose checks read.
		for _, v := range views {
			jobs = append(jobs, job{v, []string{"table", "wide", "json"}})
		}
		g.runJobs(jobs, keep, texts, done)
		g.proseChecks(sc, views, texts)
	}
	var jobs []job
	for _, c := range diag.Codes() {
		jobs = append(jobs, job{[]string{"explain", c.Code}, all})
	}
	jobs = append(jobs, job{[]string{"explain"}, all})
	payloads, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "metrics", "*.prom"))
	if len(payloads) == 0 {
		g.failed = append(g.failed, "no fixture payloads")
	}
	for _, p := range payloads {
		jobs = append(jobs, job{[]string{"metrics", "lint", p, "--now", "2026-11-30T10:00:00Z"}, all})
	}
	jobs = append(jobs,
		job{[]string{"tso", "decode", "469067681628160003", "470819222323200000"}, all},
		job{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now", "470819222323200000"}, all})
	g.runJobs(jobs, nil, nil, done)
	return g
}

// proseChecks runs the checks of prose fitted to 80 columns over one
// scenario's kept views: no "…" inside prose (ellipsisProblems), and keeps
// check's views for the overview and summary tests.
func (g *outputs) proseChecks(sc string, views [][]string, texts map[string]string) {
	ids, err := identifiers(texts[key(views[0], "json")])
	if err != nil {
		g.failed = append(g.failed, fmt.Sprintf("%v -o json: %v", views[0], err))
	}
	for _, v := range views {
		out, full := texts[key(v, "table")], texts[key(v, "wide")]
		if v[0] == "mv" {
			full += texts[key(v, "json")]
		}
		for _, p := range ellipsisProblems(out, full, ids) {
			g.ellipses = append(g.ellipses, fmt.Sprintf("%s %v: %s", sc, v, p))
		}
	}
	g.check[sc] = checkViews{out: texts[key(views[0], "table")], wide: texts[key(views[0], "wide")]}
}
