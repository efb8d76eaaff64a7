package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/diag"
)

func TestParseConfig(t *testing.T) {
	cfg, pol, err := parseConfig([]byte(`
fail_on: warning
thresholds:
  max_delay: 10m
  min_headroom: 3600
  max_failures: 5
severity:
  SOURCE_MALFORMED_VALUE: info
ignore:
  - code: SOURCE_UNREACHABLE
    object: "SHOW BACKENDS"
    reason: no privilege on purpose
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FailOn != "warning" || time.Duration(*cfg.Thresholds.MaxDelay) != 10*time.Minute ||
		time.Duration(*cfg.Thresholds.MinHeadroom) != time.Hour || *cfg.Thresholds.MaxFailures != 5 {
		t.Errorf("cfg = %+v", cfg)
	}
	if pol.Severity["SOURCE_MALFORMED_VALUE"] != diag.SeverityInfo || len(pol.Ignores) != 1 {
		t.Errorf("policy = %+v", pol)
	}
	for _, bad := range []string{
		"thresholds:\n  max_dleay: 5m\n",   // typo: unknown key
		"thresholds:\n  max_delay: soon\n", // bad duration
		"fail_on: sometimes\n",
		"severity:\n  NO_SUCH_CODE: info\n",
		"ignore:\n  - reason: everything\n",
		"[not a map",
	} {
		if _, _, err := parseConfig([]byte(bad)); err == nil {
			t.Errorf("config %q: want an error", bad)
		} else if strings.Contains(err.Error(), "panic") {
			t.Errorf("config %q: %v", bad, err)
		}
	}
	if _, _, err := parseConfig(nil); err != nil {
		t.Errorf("empty config: %v", err)
	}
}

// TestConfigErrorsNameKeyAndLine: "config errors name Go types" (issue 13).
// Each error names the line and the key as written in the file.
func TestConfigErrorsNameKeyAndLine(t *testing.T) {
	goTypes := regexp.MustCompile(`!!|unmarshal|cmd\.|diag\.|\bint\b|\bstring\b|fileThresholds|fileConfig|time\.Duration|not found in type`)
	for _, tc := range []struct{ yaml, want string }{
		{"fail_on: warning\nthresholds:\n  max_failures: soon\n", `line 3: thresholds.max_failures: want a whole number of at least 1, got "soon"`},
		{"thresholds:\n  max_failures: [1]\n", `line 2: thresholds.max_failures: want a whole number, got a list`},
		{"thresholds:\n  max_dleay: 5m\n", `line 2: unknown key "thresholds.max_dleay"; did you mean "max_delay"?`},
		{"thresholds:\n  max_delay: soon\n", `line 2: thresholds.max_delay: want a positive duration such as 5m, 1h30m or seconds, got "soon"`},
		{"thresholds:\n  max_delay: -5m\n", `line 2: thresholds.max_delay: want a positive duration`},
		{"thresholds: 5m\n", `line 1: thresholds: want a mapping (key: value lines), got "5m"`},
		{"\n\nfail_on: sometimes\n", `line 3: fail_on: "sometimes": want none, warning or critical`},
		{"fail_on: [a]\n", `line 1: fail_on: want none, warning or critical, got a list`},
		{"severity:\n  NO_SUCH_CODE: info\n", `line 2: severity.NO_SUCH_CODE: unknown finding code`},
		{"severity:\n  MV_DELAY_HIGH: loud\n", `line 2: severity.MV_DELAY_HIGH: "loud": want info, warning or critical`},
		{"ignore:\n  - code: MV_JOB_PAUSED\n  - reason: everything\n", `line 3: ignore[2]: matches every finding: give a code or an object pattern`},
		{"ignore:\n  - object: \"[\"\n", `line 2: ignore[1]: bad object pattern "["`},
		{"ignore:\n  - cod: MV_JOB_PAUSED\n", `line 2: unknown key "ignore[1].cod"; did you mean "code"?`},
		{"ignore: MV_JOB_PAUSED\n", `line 1: ignore: want a list of {code, object, reason}, got "MV_JOB_PAUSED"`},
		{"failon: warning\n", `line 1: unknown key "failon"; did you mean "fail_on"?`},
		{"fail_on: warning\nfail_on: none\n", `line 2: key "fail_on" given twice`},
		{"[not a map", `line 1: did not find expected`},
		{"- a\n- b\n", `line 1: want a mapping (key: value lines), got a list`},
	} {
		_, _, err := parseConfig([]byte(tc.yaml))
		if err == nil {
			t.Errorf("%q: no error", tc.yaml)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n  got  %v\n  want %s", tc.yaml, err, tc.want)
		}
		if m := goTypes.FindString(err.Error()); m != "" {
			t.Errorf("%q: error names a Go type (%q): %v", tc.yaml, m, err)
		}
	}
}

// TestSampleConfigShips: docs/examples/dorisdiag.yaml loads, is the example
// docs/check.md shows, and the README's --config recipe names it.
func TestSampleConfigShips(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("..", "docs", "examples", "dorisdiag.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadConfig(filepath.Join("..", "docs", "examples", "dorisdiag.yaml")); err != nil {
		t.Fatal(err)
	}
	if string(docsConfigExample(t)) != string(sample) {
		t.Errorf("docs/check.md's yaml example differs from docs/examples/dorisdiag.yaml")
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "--config docs/examples/dorisdiag.yaml") {
		t.Errorf("README.md: no recipe runs --config docs/examples/dorisdiag.yaml")
	}
	// Run as the README says, from the repository root, not from a copy.
	stdout, stderr, code := run(t, nil, "", "check", "--demo", "incident", "--config", filepath.Join("..", "docs", "examples", "dorisdiag.yaml"), "-o", "json")
	if code != cmdutil.ExitFindings || !strings.Contains(stdout, `"suppressed"`) {
		t.Errorf("check --config sample: exit %d: %s", code, stderr)
	}
}
