package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// Why (issue 13): `check --demo incident` printed 139 lines on a terminal
// with no pager. On a terminal, output longer than the screen goes through
// $PAGER (less -FRX by default); a pipe, --no-pager, PAGER=cat and JSON
// never do; output that fits is written straight away.
func TestPagerOnlyOnATerminal(t *testing.T) {
	type result struct {
		paged   []string
		stdout  string
		pagedAt string
	}
	runP := func(tty bool, env map[string]string, args ...string) result {
		t.Helper()
		var out, errb bytes.Buffer
		var r result
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, IsTTY: tty, Getenv: func(k string) string { return env[k] },
			TermSize: func() (int, int) { return 80, 24 },
			RunPager: func(command string, text []byte) error {
				r.paged = append(r.paged, command)
				r.pagedAt = string(text)
				return nil
			}}
		if code := Main(args, ios); code != cmdutil.ExitOK && code != cmdutil.ExitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		r.stdout = out.String()
		return r
	}
	check := []string{"check", "--demo", "incident"}

	r := runP(true, nil, check...)
	if len(r.paged) != 1 || r.paged[0] != "less -FRX" {
		t.Fatalf("terminal: pager runs %v, want [less -FRX]", r.paged)
	}
	if r.stdout != "" || !strings.Contains(r.pagedAt, "STREAM_CANNOT_RESUME_CLIPPED") {
		t.Errorf("terminal: the pager got %d bytes, stdout %d bytes", len(r.pagedAt), len(r.stdout))
	}
	if r := runP(true, map[string]string{"PAGER": "most -s"}, check...); len(r.paged) != 1 || r.paged[0] != "most -s" {
		t.Errorf("$PAGER not used: %v", r.paged)
	}
	for name, c := range map[string]struct {
		tty  bool
		env  map[string]string
		args []string
	}{
		"a pipe":       {false, nil, check},
		"--no-pager":   {true, nil, append([]string{"--no-pager"}, check...)},
		"PAGER=cat":    {true, map[string]string{"PAGER": "cat"}, check},
		"-o json":      {true, nil, append([]string{"-o", "json"}, check...)},
		"fits at once": {true, nil, []string{"tso", "decode", "470819222323200000"}},
	} {
		r := runP(c.tty, c.env, c.args...)
		if len(r.paged) != 0 {
			t.Errorf("%s: pager ran (%v)", name, r.paged)
		}
		if r.stdout == "" {
			t.Errorf("%s: nothing on stdout", name)
		}
	}
}
