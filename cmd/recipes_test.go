package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/exposition"
)

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
		{[]string{"mv", "lsit", "--fail-on", "warning", "--demo", "incident"}, "Did you mean this? \tlist"},
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
