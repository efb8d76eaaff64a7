package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// Issue 13, "Done when": screens captured from a real terminal. The built
// dorisdiag binary runs inside tmux (a private server on its own socket,
// killed at the end) at 80×24 and 120×40; the pane is captured with its
// whole history. The goldens are under testdata/tmux (-update rewrites
// them); the test asserts that no line wrapped (the capture with wrapped
// lines joined, -J, has as many lines as without) and that the worst finding
// is on the first screen. The pager is made deterministic with --no-pager;
// TestTmuxPagerOnTerminalNotOnPipe checks the real one.

type tmuxTerm struct {
	t    *testing.T
	sock string
	bin  string
	dir  string
}

func newTmux(t *testing.T) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install -y tmux; .ci/run installs it): the real-terminal goldens are skipped")
	}
	dir := t.TempDir()
	bin := testbin.Dorisdiag(t)
	tm := &tmuxTerm{t: t, sock: filepath.Join(dir, "tmux.sock"), bin: bin, dir: dir}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	// A session that lives as long as the test, so that the server does not
	// exit (and race the next new-session) when a screen's session ends.
	tm.tmux("new-session", "-d", "-s", "keep", "sh")
	return tm
}

func (tm *tmuxTerm) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

const tmuxDone = "__DORISDIAG_DONE__"

// start opens a session of width×height running sh, with TERM set and no
// COLUMNS (the width must come from the terminal itself).
func (tm *tmuxTerm) start(name string, width, height int) {
	tm.t.Helper()
	tm.tmux("new-session", "-d", "-s", name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height),
		"env", "-u", "COLUMNS", "-u", "NO_COLOR", "TERM=xterm-256color", "PS1=", "LANG=C.UTF-8", "sh")
	tm.tmux("set-option", "-t", name, "history-limit", "10000")
}

// waitFor polls the pane until text appears (a deadline only to fail
// instead of hanging; no timing is asserted).
func (tm *tmuxTerm) waitFor(name, text string) string {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out := tm.tmux("capture-pane", "-p", "-t", name, "-S", "-", "-E", "-")
		if strings.Contains(out, text) {
			return out
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("%s: %q never appeared; the pane shows:\n%s", name, text, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screen runs args in a fresh width×height terminal and returns the lines
// it printed (whole history), checking that none wrapped.
func (tm *tmuxTerm) screen(width, height int, args ...string) []string {
	tm.t.Helper()
	name := fmt.Sprintf("s%d", time.Now().UnixNano())
	tm.start(name, width, height)
	defer tm.tmux("kill-session", "-t", name)
	tm.tmux("send-keys", "-t", name, "stty -echo; clear", "Enter")
	tm.waitForPrompt(name)
	tm.tmux("clear-history", "-t", name)
	line := tm.bin + " " + strings.Join(args, " ") + " --no-pager; printf '" + tmuxDone + "\\n'"
	tm.tmux("send-keys", "-t", name, line, "Enter")
	tm.waitFor(name, tmuxDone)
	plain := tm.tmux("capture-pane", "-p", "-t", name, "-S", "-", "-E", "-")
	joined := tm.tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-", "-E", "-")
	lines := cutAtDone(plain)
	if j := cutAtDone(joined); len(j) != len(lines) {
		tm.t.Errorf("%dx%d %v: lines wrapped (%d screen lines, %d printed lines)", width, height, args, len(lines), len(j))
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > width {
			tm.t.Errorf("%dx%d %v: line %d is %d wide", width, height, args, i+1, w)
		}
	}
	return lines
}

// waitForPrompt waits until the pane is empty after clear (sh printed
// nothing else: PS1 is empty and echo is off).
func (tm *tmuxTerm) waitForPrompt(name string) {
	tm.t.Helper()
	tm.tmux("send-keys", "-t", name, "printf '__READY__\\n'", "Enter")
	tm.waitFor(name, "__READY__")
	tm.tmux("send-keys", "-t", name, "clear", "Enter")
	deadline := time.Now().Add(30 * time.Second)
	for strings.TrimSpace(tm.tmux("capture-pane", "-p", "-t", name)) != "" {
		if time.Now().After(deadline) {
			tm.t.Fatalf("%s: the screen never cleared", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cutAtDone is the captured lines before the done marker, without the
// leading blank lines clear left and the trailing blank ones.
func cutAtDone(capture string) []string {
	lines := strings.Split(capture, "\n")
	var out []string
	for _, l := range lines {
		if strings.Contains(l, tmuxDone) {
			break
		}
		if strings.Contains(l, "__READY__") {
			out = nil
			continue
		}
		out = append(out, strings.TrimRight(l, " "))
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func TestTmuxScreens(t *testing.T) {
	t.Parallel() // self-contained: its own buffers (or tmux socket); no global or env
	tm := newTmux(t)
	mv := worstDemoMV(t)
	cases := []struct {
		name  string
		args  []string
		first string // what must be on the first screen
	}{
		{"check", []string{"check", "--demo", "incident"}, "CRITICAL STREAM_CANNOT_RESUME_CLIPPED"},
		{"mv_explain", []string{"mv", "explain", mv, "--demo", "incident"}, "CRITICAL MV_CHANGELOG_BROKEN"},
		{"streams_show", []string{"streams", "show", "demo.s_orders_audit", "--demo", "incident"}, "CLIPPED"},
		{"headroom_20h", []string{"headroom", "--in", "20h", "--demo", "incident"}, "demo.s_payments_etl"},
		{"tso_decode", []string{"tso", "decode", "470819222323200000", "470819222323200001", "470796573081862144", "0x68a8c07a0000000"}, "470819222323200000"},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, c := range cases {
			lines := tm.screen(size[0], size[1], c.args...)
			first := strings.Join(lines[:min(size[1], len(lines))], "\n")
			if !strings.Contains(first, c.first) {
				t.Errorf("%dx%d %s: %q is not on the first screen:\n%s", size[0], size[1], c.name, c.first, first)
			}
			// Issue 25 item 6: the two worst criticals' next steps are on
			// the first 80×24 screen too.
			if c.name == "check" && strings.Count(first, "\n         next: ") < 2 {
				t.Errorf("%dx%d check: the first screen lacks the two worst criticals' next steps:\n%s", size[0], size[1], first)
			}
			if c.name == "mv_explain" && len(lines) > 40 {
				t.Errorf("%dx%d mv explain %s: %d rows, want one 40-row screen", size[0], size[1], mv, len(lines))
			}
			golden(t, fmt.Sprintf("tmux/%s_%dx%d.golden", c.name, size[0], size[1]), strings.Join(lines, "\n")+"\n")
		}
	}
}

// On a terminal the pager is used (and less -FRX shows the worst finding on
// its first page; q quits it); through a pipe it is not.
func TestTmuxPagerOnTerminalNotOnPipe(t *testing.T) {
	tm := newTmux(t)
	name := "pager"
	tm.start(name, 80, 24)
	tm.tmux("send-keys", "-t", name, "stty -echo", "Enter")
	tm.waitForPrompt(name)
	marker := filepath.Join(tm.dir, "paged")
	pager := filepath.Join(tm.dir, "pager.sh")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Through a pipe: the pager must not run.
	tm.tmux("send-keys", "-t", name, "PAGER="+pager+" "+tm.bin+" check --demo incident | cat >/dev/null; printf '"+tmuxDone+"1\\n'", "Enter")
	tm.waitFor(name, tmuxDone+"1")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the pager ran although stdout was a pipe")
	}
	// On the terminal: it runs.
	tm.tmux("send-keys", "-t", name, "PAGER="+pager+" "+tm.bin+" check --demo incident >/dev/tty; printf '"+tmuxDone+"2\\n'", "Enter")
	tm.waitFor(name, tmuxDone+"2")
	if _, err := os.Stat(marker); err != nil {
		t.Error("the pager did not run on a terminal")
	}
	// The default pager, less -FRX: its first page holds the overview and
	// the worst finding; q quits.
	if _, err := exec.LookPath("less"); err != nil {
		t.Log("less is not installed: the default pager is not exercised")
		return
	}
	tm.tmux("send-keys", "-t", name, "clear; env -u PAGER -u LESS "+tm.bin+" check --demo incident; printf '"+tmuxDone+"3\\n'", "Enter")
	page := tm.waitFor(name, "STREAM_CANNOT_RESUME_CLIPPED")
	if strings.Contains(page, tmuxDone+"3") {
		t.Errorf("check exited without paging its %s", "long output")
	}
	if !strings.Contains(page, "Findings: 15 critical") {
		t.Errorf("less's first page lacks the overview:\n%s", page)
	}
	tm.tmux("send-keys", "-t", name, "q")
	tm.waitFor(name, tmuxDone+"3")
}
