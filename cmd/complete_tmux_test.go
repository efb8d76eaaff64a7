package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/report"
)

// Completion is tested in real interactive shells under tmux (issue 13:
// "the bash script needs the bash-completion package and errors on every
// TAB without it"): keys are typed with send-keys and the screen is read
// with capture-pane. "dorisdiag" on the shell's PATH is this test binary
// (testbin.DorisdiagTest, the real command built once for the package).

type tmuxShell struct {
	t      *testing.T
	socket string
	dir    string
}

// startShell starts argv (a shell without its rc files) in a detached tmux
// session whose PATH has "dorisdiag" first. It skips when tmux or the shell
// is missing.
func startShell(t *testing.T, argv ...string) *tmuxShell {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (apt-get install tmux)")
	}
	shell, err := exec.LookPath(argv[0])
	if err != nil {
		t.Skipf("%s not installed", argv[0])
	}
	// Not t.TempDir: the shells write their history and state under HOME
	// while tmux stops them, so removal is retried after kill-server.
	dir, err := os.MkdirTemp("", "dorisdiag-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testbin.Build(t, testbin.DorisdiagTest), filepath.Join(bin, "dorisdiag")); err != nil {
		t.Fatal(err)
	}
	s := &tmuxShell{t: t, socket: filepath.Join(dir, "tmux.sock"), dir: dir}
	env := []string{"env", "-i", "PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "HISTFILE=/dev/null", "TERM=xterm", "PS1=$ "}
	args := append([]string{"-S", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "40", "-c", dir}, env...)
	args = append(args, shell)
	args = append(args, argv[1:]...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", s.socket, "kill-server").Run()
		for i := 0; i < 100; i++ {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove %s", dir)
	})
	return s
}

func (s *tmuxShell) keys(keys ...string) {
	s.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", s.socket, "send-keys", "-t", "0"}, keys...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("tmux send-keys %q: %v: %s", keys, err, out)
	}
}

// typeText types text literally.
func (s *tmuxShell) typeText(text string) { s.keys("-l", text) }

func (s *tmuxShell) screen() string {
	out, err := exec.Command("tmux", "-S", s.socket, "capture-pane", "-p", "-t", "0").Output()
	if err != nil {
		s.t.Fatalf("tmux capture-pane: %v", err)
	}
	return string(out)
}

// waitFor returns the screen once it contains every want; it fails the test
// with the screen after a generous deadline (a hung shell, not a slow one).
func (s *tmuxShell) waitFor(what string, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := s.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
			}
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: screen never showed %q:\n%s", what, want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clear empties the command line (C-u) and the screen (C-l), and waits for
// a screen that holds only the prompt.
func (s *tmuxShell) clear() {
	s.t.Helper()
	s.keys("C-u")
	s.keys("C-l")
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := strings.TrimSpace(s.screen())
		if scr != "" && !strings.Contains(scr, "\n") && len(scr) < 20 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("clear: the screen never emptied:\n%s", scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func writeCompletionScript(t *testing.T, dir, shell string) string {
	t.Helper()
	out, errOut, code := run(t, nil, "", "completion", shell)
	if code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errOut)
	}
	p := filepath.Join(dir, "dorisdiag."+shell)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompletionBashWithoutBashCompletion: in a bash with no rc files (so no
// bash-completion package functions), TAB completes commands, -o formats of
// the command, flag values with "=", and MV and stream names of --demo.
func TestCompletionBashWithoutBashCompletion(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	s := startShell(t, "bash", "--norc", "--noprofile")
	s.typeText("type _get_comp_words_by_ref _filedir >/dev/null 2>&1 || echo NO-BASH-COMPLETION")
	s.keys("Enter")
	s.waitFor("a bare bash", "\nNO-BASH-COMPLETION")
	script := writeCompletionScript(t, s.dir, "bash")
	s.typeText("source " + script + " && echo SOURCED")
	s.keys("Enter")
	s.waitFor("source", "\nSOURCED")
	s.clear()

	steps := []struct {
		typed string
		tabs  int
		want  []string
	}{
		{"dorisdiag -o ", 2, []string{"table", "wide", "json", "markdown", "prom"}},
		{"dorisdiag tso decode -o mar", 1, []string{"$ dorisdiag tso decode -o markdown"}},
		{"dorisdiag check --fail-on=cr", 1, []string{"$ dorisdiag check --fail-on=critical"}},
		{"dorisdiag check --demo ", 2, []string{"healthy", "incident", "legacy", "scale"}},
		{"dorisdiag mv explain --demo incident ", 2, []string{"demo.mv_orders_daily", "demo.mv_big_join"}},
		{"dorisdiag streams show --demo incident demo.s_events_d", 1, []string{"$ dorisdiag streams show --demo incident demo.s_events_dup"}},
		{"dorisdiag streams --kind ", 2, []string{"user", "ivm"}},
		{"dorisdiag mv list --state ", 2, []string{"lagging", "fresh", "rebuild_required"}},
		{"dorisdiag mv ex", 1, []string{"$ dorisdiag mv explain"}},
	}
	for _, st := range steps {
		s.typeText(st.typed)
		// A list takes two TABs after the one that inserted the common
		// prefix (readline lists on a TAB that changed nothing).
		for i := 0; i < st.tabs; i++ {
			s.keys("Tab")
		}
		if st.tabs > 1 {
			s.keys("Tab")
		}
		scr := s.waitFor(st.typed, st.want...)
		if strings.Contains(scr, "command not found") || strings.Contains(scr, "dorisdiag:") {
			t.Errorf("%s<TAB>: an error on the screen:\n%s", st.typed, scr)
		}
		s.clear()
	}
	// -o of tso decode offers only what tso decode accepts.
	s.typeText("dorisdiag tso decode -o ")
	s.keys("Tab", "Tab")
	scr := s.waitFor("tso decode -o", "markdown")
	accepted := map[string]bool{}
	for _, f := range report.Formats("tso_decode") {
		accepted[string(f)] = true
	}
	for _, f := range []string{"table", "wide", "json", "markdown", "prom"} {
		if on := regexp.MustCompile(`\b` + f + `\b`).MatchString(scr); on != accepted[f] {
			t.Errorf("tso decode -o: %s offered %v, accepted %v:\n%s", f, on, accepted[f], scr)
		}
	}
}

// TestCompletionBashControlCobraScriptNeedsBashCompletion proves the harness
// above sees the bug it guards against: cobra's own V2 script, in the same
// bare bash, errors on TAB.
func TestCompletionBashControlCobraScriptNeedsBashCompletion(t *testing.T) {
	s := startShell(t, "bash", "--norc", "--noprofile")
	var b bytes.Buffer
	if err := NewRootCmd(&cmdutil.IOStreams{Out: &b, Err: &b}).GenBashCompletionV2(&b, true); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.dir, "cobra.bash")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s.typeText("source " + p)
	s.keys("Enter")
	s.typeText("dorisdiag -o ")
	s.keys("Tab")
	s.waitFor("cobra's script", "_get_comp_words_by_ref: command not found")
}

// TestCompletionLiveDeadHostReturnsNothing: a TAB against a host that never
// answers returns no names (bounded by --timeout), and one that refuses too.
func TestCompletionLiveDeadHostReturnsNothing(t *testing.T) {
	for _, addr := range []string{testnet.SilentListener(t), testnet.ClosedPort(t)} {
		out, _, code := run(t, nil, "", "__complete", "mv", "explain", "--host", addr, "--timeout", "300ms", "")
		if code != 0 {
			t.Fatalf("__complete against %s: exit %d", addr, code)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], ":") {
			t.Errorf("__complete against dead %s: want only the directive, got %q", addr, out)
		}
	}
}

func TestCompletionZsh(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	s := startShell(t, "zsh", "-f")
	script := writeCompletionScript(t, s.dir, "zsh")
	s.typeText("source " + script + " && echo SOURCED")
	s.keys("Enter")
	s.waitFor("source", "\nSOURCED")
	s.clear()
	s.typeText("dorisdiag -o ")
	s.keys("Tab")
	scr := s.waitFor("zsh -o", "markdown", "prom")
	if strings.Contains(scr, "command not found") {
		t.Errorf("zsh:\n%s", scr)
	}
	s.clear()
	s.typeText("dorisdiag mv explain --demo incident demo.mv_orders_d")
	s.keys("Tab")
	s.waitFor("zsh mv explain", "$ dorisdiag mv explain --demo incident demo.mv_orders_daily")
}

func TestCompletionFish(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	s := startShell(t, "fish", "--no-config")
	script := writeCompletionScript(t, s.dir, "fish")
	s.typeText("source " + script + "; and echo SOURCED")
	s.keys("Enter")
	s.waitFor("source", "\nSOURCED")
	s.clear()
	s.typeText("dorisdiag -o ")
	s.keys("Tab")
	s.waitFor("fish -o", "markdown", "prom")
	s.clear()
	s.typeText("dorisdiag mv explain --demo incident demo.mv_orders_d")
	s.keys("Tab")
	s.waitFor("fish mv explain", "demo.mv_orders_daily")
}
