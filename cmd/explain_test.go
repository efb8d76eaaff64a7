package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report/explain"
)

// docs/findings.md is generated from the same registry as `explain`; this
// test fails when they drift (run with -update to regenerate).
func TestFindingsDocUpToDate(t *testing.T) {
	var buf bytes.Buffer
	if err := explain.FindingsDoc(&buf, diag.Codes()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "findings.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run go test ./cmd -run TestFindingsDoc -update): %v", path, err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is out of date with diag/codes_*.go: run go test ./cmd -run TestFindingsDocUpToDate -update", path)
	}
}

func TestExplainEveryCode(t *testing.T) {
	for _, c := range diag.Codes() {
		out, stderr, code := run(t, nil, "", "explain", c.Code)
		if code != cmdutil.ExitOK || len(out) == 0 {
			t.Errorf("explain %s: exit %d, stderr %q", c.Code, code, stderr)
		}
	}
	if _, _, code := run(t, nil, "", "explain", "NO_SUCH_CODE"); code != cmdutil.ExitError {
		t.Errorf("explain of an unknown code: exit %d, want 2", code)
	}
	out, _, code := run(t, nil, "", "explain", "tso_offset_expired")
	if code != cmdutil.ExitOK {
		t.Fatalf("explain is case-insensitive: exit %d", code)
	}
	golden(t, "explain_tso_offset_expired.txt", out)
	out, _, _ = run(t, nil, "", "explain", "TSO_HEADROOM_LOW", "-o", "json")
	golden(t, "explain_tso_headroom_low.json", out)
}

// TestExplainJSONDoesNotEscapeHTML: the list of codes in JSON keeps the SQL
// of how_to_confirm as written ('<db>', "headroom < 0"), not as \u003c: the
// explain document has its own MarshalJSON, which report.JSON's encoder
// does not re-escape, so it must not escape either.
func TestExplainJSONDoesNotEscapeHTML(t *testing.T) {
	out, stderr, code := run(t, nil, "", "explain", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("explain -o json: exit %d, stderr %q", code, stderr)
	}
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if strings.Contains(out, esc) {
			t.Errorf("explain -o json writes %s", esc)
		}
	}
	if !strings.Contains(out, "MvName = '<mv>'") {
		t.Errorf("explain -o json: the SQL of how_to_confirm is not written as is:\n%.2000s", out)
	}
}

// TestJSONGoldensHaveNoHTMLEscapes: no JSON golden of a command holds an
// HTML escape of <, > or & (report.JSON writes them as they are).
func TestJSONGoldensHaveNoHTMLEscapes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no JSON goldens: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if strings.Contains(string(b), esc) {
				t.Errorf("%s holds %s", f, esc)
			}
		}
	}
}

// Every declaration has an action: a few words of prose that fit an
// 80-column next: line with where the whole step is, and that cannot be
// pasted as a statement (lower-case first, no ';' or backquote, no SQL
// verb first).
func TestDeclarationActions(t *testing.T) {
	for _, d := range diag.Codes() {
		a := d.Action
		r := []rune(a)
		switch {
		case a == "":
			t.Errorf("%s: no Action", d.Code)
			continue
		case len(r) > diag.ActionMaxLen:
			t.Errorf("%s: Action %q is %d characters (at most %d)", d.Code, a, len(r), diag.ActionMaxLen)
		case !unicode.IsLower(r[0]) || strings.ContainsAny(a, ";`\n"):
			t.Errorf("%s: Action %q must be prose: lower-case first, no ';', backquote or line feed", d.Code, a)
		}
		if line := "         next: " + a + " (full step: -o wide)"; len([]rune(line)) > 80 {
			t.Errorf("%s: %q is %d wide", d.Code, line, len([]rune(line)))
		}
	}
}
