package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// The cron and CI recipes of --help, README.md and docs/ are run as written
// (through sh, against a "dorisdiag" on PATH), on the bundled "incident"
// scenario instead of --host: a recipe that goes stale exactly during an
// incident (the old "check -o prom > f.$$ && mv": exit 1, so mv never ran)
// fails here.

// A recipe's "dorisdiag" is the real command, built once for the package
// (testbin.DorisdiagTest: every dial outside the loopback range refused, so
// no recipe can reach a live cluster or a name server).
func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

type recipe struct {
	where string // file:line or "dorisdiag X --help"
	text  string
}

// recipeMarkers: what makes a command line a cron or CI recipe — it gates on
// an exit code, writes a file, or chains.
var recipeMarkers = regexp.MustCompile(`--fail-on|--config| > | -f | -w |&&|\$\(`)

// recipeSkips: recipes that cannot run offline here, each with why. Every
// skip is logged; nothing else is dropped.
var recipeSkips = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`\bcurl\b|\bmysql\b|https?://`), "needs a real server"},
	{regexp.MustCompile(`--watch(=| )[0-9]`), "runs until stopped (the watch tests cover --watch -f)"},
	{regexp.MustCompile(`fe50mb|broken\.prom|/usr/bin/time`), "needs the user's own input file (metrics tests cover lint and --fix)"},
	{regexp.MustCompile(`\b(FILE|DB\.MV|DB\.STREAM|CODE)\b`), "a placeholder, not a recipe"},
}

func markdownRecipes(t *testing.T, file string) []recipe {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []recipe
	inFence, shell := false, false
	lines := strings.Split(string(data), "\n")
	inline := regexp.MustCompile("`(dorisdiag [^`]*)`")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			lang := strings.TrimPrefix(strings.TrimSpace(l), "```")
			inFence = !inFence
			shell = inFence && (lang == "" || lang == "sh" || lang == "bash" || lang == "shell")
			continue
		}
		where := file + ":" + strconv.Itoa(i+1)
		if inFence {
			if !shell {
				continue
			}
			cmd := l
			for strings.HasSuffix(strings.TrimSpace(cmd), `\`) && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(strings.TrimSpace(cmd), `\`) + " " + strings.TrimSpace(lines[i])
			}
			if strings.Contains(cmd, "dorisdiag ") && recipeMarkers.MatchString(cmd) {
				out = append(out, recipe{where, strings.TrimSpace(cmd)})
			}
			continue
		}
		for _, m := range inline.FindAllStringSubmatch(l, -1) {
			if recipeMarkers.MatchString(m[1]) && regexp.MustCompile(`--host |--demo`).MatchString(m[1]) {
				out = append(out, recipe{where, m[1]})
			}
		}
	}
	return out
}

func helpRecipes(c *cobra.Command) []recipe {
	var out []recipe
	for _, l := range strings.Split(c.Example, "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, "dorisdiag ") && recipeMarkers.MatchString(l) {
			out = append(out, recipe{c.CommandPath() + " --help", l})
		}
	}
	for _, s := range c.Commands() {
		out = append(out, helpRecipes(s)...)
	}
	return out
}

func allRecipes(t *testing.T) []recipe {
	t.Helper()
	rs := helpRecipes(NewRootCmd(&cmdutil.IOStreams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}))
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	for _, f := range append([]string{filepath.Join("..", "README.md")}, files...) {
		rs = append(rs, markdownRecipes(t, f)...)
	}
	return rs
}

var (
	hostFlag = regexp.MustCompile(`--host[ =]\S+`)
	absPath  = regexp.MustCompile(`/var/lib/[^\s;&|]+`)
	// shellComment: a trailing "  # ..." (recipes' comments mention flags).
	shellComment = regexp.MustCompile(`\s+#\s.*$`)
)

// runRecipe runs one recipe in a fresh directory: --host → --demo incident,
// /var/lib/... → ./var/lib/..., --config dorisdiag.yaml → the config example
// of docs/check.md. It returns the exit code, the output and the directory.
func runRecipe(t *testing.T, r recipe, config []byte, seed map[string]string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testbin.Build(t, testbin.DorisdiagTest), filepath.Join(bin, "dorisdiag")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dorisdiag.yaml"), config, 0o644); err != nil {
		t.Fatal(err)
	}
	text := r.text
	bare := shellComment.ReplaceAllString(text, "")
	if !strings.Contains(bare, "--demo") && !strings.Contains(bare, "--snapshot") {
		text = hostFlag.ReplaceAllString(text, "--demo incident")
	}
	if hostFlag.MatchString(shellComment.ReplaceAllString(text, "")) {
		t.Fatalf("%s: %s: would run against a live --host", r.where, r.text)
	}
	text = absPath.ReplaceAllStringFunc(text, func(p string) string {
		d := path.Dir(strings.SplitN(p, "$", 2)[0] + "x")
		if err := os.MkdirAll(filepath.Join(dir, "work", d), 0o755); err != nil {
			t.Fatal(err)
		}
		return "." + p
	})
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "dorisdiag.yaml"), filepath.Join(work, "dorisdiag.yaml")); err != nil {
		t.Fatal(err)
	}
	for rel, content := range seed {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := exec.Command("sh", "-c", text)
	sh.Dir = work
	sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := sh.CombinedOutput()
	exit := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: running sh: %v", r.where, err)
	}
	return exit, string(out), work
}

// checkRecipeFiles: every file a recipe wrote is non-empty and parses by its
// kind (.prom with prometheus/common's parser, .json as JSON); returns them.
func checkRecipeFiles(t *testing.T, r recipe, work string) []string {
	t.Helper()
	var files []string
	err := filepath.Walk(work, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Name() == "dorisdiag.yaml" {
			return err
		}
		rel, _ := filepath.Rel(work, p)
		files = append(files, rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			t.Errorf("%s: %s is empty", r.where, rel)
		}
		switch {
		case strings.Contains(rel, ".prom"):
			if _, err := parseTextfile(data); err != nil {
				t.Errorf("%s: textfile %s does not parse: %v", r.where, rel, err)
			}
		case strings.HasSuffix(rel, ".json"):
			if !json.Valid(data) {
				t.Errorf("%s: %s is not JSON", r.where, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func docsConfigExample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "check.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "```yaml\n")
	j := strings.Index(s[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("docs/check.md has no ```yaml config example")
	}
	return []byte(s[i+8 : i+8+j])
}

// TestRecipes runs every cron and CI recipe of --help, README.md and docs/.
func TestRecipes(t *testing.T) {
	config, err := os.ReadFile(filepath.Join("..", "docs", "examples", "dorisdiag.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, r := range allRecipes(t) {
		skipped := false
		for _, s := range recipeSkips {
			if s.re.MatchString(r.text) {
				t.Logf("skip %s: %s (%s)", r.where, r.text, s.why)
				skipped = true
				break
			}
		}
		if skipped {
			continue
		}
		ran++
		t.Logf("run %s: %s", r.where, r.text)
		// The shipped sample config, where the README's recipe names it
		// (docs/examples/dorisdiag.yaml) and as ./dorisdiag.yaml.
		code, out, work := runRecipe(t, r, config, map[string]string{"docs/examples/dorisdiag.yaml": string(config)})
		// A recipe that opts out of the gate, or chains a step after
		// dorisdiag, must exit 0 during an incident; a gate exits 1, never 2.
		want := "0 or 1"
		ok := code == cmdutil.ExitOK || code == cmdutil.ExitFindings
		if strings.Contains(r.text, "--fail-on none") || strings.Contains(r.text, "&&") {
			want, ok = "0", code == cmdutil.ExitOK
		}
		if strings.Contains(r.text, "# exit 1") {
			want, ok = "1", code == cmdutil.ExitFindings
		}
		if !ok {
			t.Errorf("%s: %s\n  exit %d on --demo incident, want %s; output:\n%s", r.where, r.text, code, want, out)
			continue
		}
		files := checkRecipeFiles(t, r, work)
		if regexp.MustCompile(` > | -f | -w `).MatchString(r.text) && len(files) == 0 {
			t.Errorf("%s: %s\n  wrote no file", r.where, r.text)
		}
		if strings.Contains(r.text, "&& mv ") {
			// The redirect creates the temporary file before dorisdiag
			// runs: none left means the mv ran.
			for _, f := range files {
				if strings.HasSuffix(f, ".tmp") || regexp.MustCompile(`\.[0-9]+$`).MatchString(f) {
					t.Errorf("%s: %s\n  temporary file %s left behind: the mv never ran", r.where, r.text, f)
				}
			}
		}
	}
	// The extraction itself must not go quiet: the README's cron and CI
	// blocks, docs/check.md's textfile and check --help's examples at least.
	if ran < 8 {
		t.Errorf("only %d recipes ran: the extraction lost some", ran)
	}
}

// TestTextfileRecipeDuringIncident: the textfile recipe of check --help,
// run during a critical incident, writes a textfile that parses and says
// there are critical findings (the old recipe exited 1 before mv, leaving
// the previous textfile in place exactly then).
func TestTextfileRecipeDuringIncident(t *testing.T) {
	var found []recipe
	for _, r := range allRecipes(t) {
		if strings.Contains(r.text, "-o prom") && strings.HasPrefix(r.where, "dorisdiag check") {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		t.Fatal("check --help has no -o prom textfile recipe")
	}
	for _, r := range found {
		// Yesterday's textfile, from before the incident.
		stale := map[string]string{"var/lib/node_exporter/textfile/dorisdiag.prom": "dorisdiag_findings{severity=\"critical\"} 0\n"}
		code, out, work := runRecipe(t, r, docsConfigExample(t), stale)
		if strings.Contains(r.text, "&&") && code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d during the incident: the step after && never runs and the textfile goes stale\n%s", r.text, code, out)
		}
		if code != cmdutil.ExitOK && code != cmdutil.ExitFindings {
			t.Fatalf("%s: exit %d\n%s", r.text, code, out)
		}
		files := checkRecipeFiles(t, r, work)
		var prom string
		for _, f := range files {
			if strings.HasSuffix(f, ".prom") {
				prom = f
			}
		}
		if prom == "" {
			t.Fatalf("%s: no .prom file written (files: %v)", r.text, files)
		}
		data, _ := os.ReadFile(filepath.Join(work, prom))
		fams, err := parseTextfile(data)
		if err != nil {
			t.Fatal(err)
		}
		crit := 0.0
		for _, m := range fams["dorisdiag_findings"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "severity" && l.GetValue() == "critical" {
					crit = m.GetGauge().GetValue()
				}
			}
		}
		if crit < 1 {
			t.Errorf("%s: the textfile still says no critical finding during the incident (stale):\n%s", r.text, data)
		}
	}
}

func parseTextfile(data []byte) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(data))
}

// TestTextfileRecipeSurvivesAnIncident runs the cron recipe of check --help
// (and docs/check.md) on the incident scenario: a critical incident must not
// leave the textfile stale. The recipe exits 0 with --fail-on none and the
// file is replaced and parses; the old `check -o prom > f.$$ && mv` form
// exited 1 there, so mv never ran.
func TestTextfileRecipeSurvivesAnIncident(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dorisdiag.prom")
	if err := os.WriteFile(file, []byte("# stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, nil, "", "check", "--demo", "incident", "-o", "prom", "--fail-on", "none", "-f", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "# stale") || !strings.Contains(string(b), "dorisdiag_findings") {
		t.Fatalf("textfile not replaced:\n%.300s", b)
	}
	res, err := exposition.Lint(strings.NewReader(string(b)), exposition.Options{})
	if err != nil || !res.Parseable {
		t.Fatalf("textfile does not parse: %v %+v", err, res)
	}
	// The recipe as --help prints it.
	help, _, _ := run(t, nil, "", "check", "--help")
	if !strings.Contains(help, "-o prom --fail-on none -f ") {
		t.Errorf("check --help does not show the textfile recipe that survives an incident")
	}
}

// TestUsageErrorsExit2: a typo'd subcommand at any level, a filter that
// matches nothing, an empty --fail-on and --password are usage errors.
func TestUsageErrorsExit2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mv", "lsit", "--fail-on", "warning", "--demo", "incident"}, `did you mean "list"?`},
		{[]string{"metrics", "lnt"}, "lint"},
		{[]string{"tso", "decod", "1"}, "decode"},
		{[]string{"streams", "--demo", "incident", "--db", "nosuch"}, "nearest: demo"},
		{[]string{"mv", "list", "--demo", "incident", "--db", "nosuch"}, "nearest: demo"},
		{[]string{"check", "--demo", "incident", "--fail-on", ""}, `--fail-on ""`},
		{[]string{"check", "--demo", "incident", "--password", "x"}, "DORISDIAG_PASSWORD"},
		{[]string{"check", "--host", "127.0.0.1:9", "--port", "8"}, "give the port once"},
	} {
		_, stderr, code := run(t, nil, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
