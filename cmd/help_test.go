package cmd

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// leafCommands are the commands a user runs (not groups, not cobra's own).
func leafCommands() []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			walk(s)
		}
		if c.Runnable() && !c.HasSubCommands() && !c.Hidden && c.Name() != "help" {
			out = append(out, c)
		}
	}
	walk(NewRootCmd(&cmdutil.IOStreams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}))
	return out
}

func helpOf(t *testing.T, c *cobra.Command) string {
	t.Helper()
	args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "dorisdiag")), "--help")
	out, stderr, code := run(t, nil, "", args...)
	if code != 0 {
		t.Fatalf("%s --help: exit %d: %s", c.CommandPath(), code, stderr)
	}
	return out
}

// TestHelpListsFormatsExitCodesExamples: every command's help lists the -o
// formats it accepts (from the registry), its exit codes and at least two
// examples (issue 13: "a command's --help does not list the -o formats it
// accepts").
func TestHelpListsFormatsExitCodesExamples(t *testing.T) {
	for _, c := range leafCommands() {
		help := helpOf(t, c)
		if appliesGlobal(c, c.Root().PersistentFlags().Lookup("output")) {
			fs := commandFormats(c)
			if len(fs) == 0 {
				t.Errorf("%s: -o applies but no formats are known (set annKind)", c.CommandPath())
			}
			names := make([]string, len(fs))
			for i, f := range fs {
				names[i] = string(f)
			}
			if want := "output format: " + strings.Join(names, ", "); !strings.Contains(help, want) {
				t.Errorf("%s --help: no %q:\n%s", c.CommandPath(), want, help)
			}
		}
		if !strings.Contains(help, "Exit codes:\n  0  ran") || !strings.Contains(help, "\n  2  could not run") {
			t.Errorf("%s --help: no exit codes", c.CommandPath())
		}
		gate := appliesGlobal(c, c.Root().PersistentFlags().Lookup("fail-on"))
		if gate != strings.Contains(help, "\n  1  ran; at least one finding at or above --fail-on") {
			t.Errorf("%s --help: exit 1 listed %v, the gate applies %v", c.CommandPath(), !gate, gate)
		}
		if gate && !strings.Contains(help, "(default "+failOnDefault(c)+")") {
			t.Errorf("%s --help: the --fail-on default %s is not shown", c.CommandPath(), failOnDefault(c))
		}
		n := 0
		for _, l := range strings.Split(c.Example, "\n") {
			if len(dorisdiagInvocations(l)) > 0 {
				n++
			}
		}
		if n < 2 {
			t.Errorf("%s: %d examples, want at least 2", c.CommandPath(), n)
		}
	}
}

// TestHelpFormatsAreWhatTheCommandAccepts: the formats help lists (the
// annKind annotation) are the ones the command's own -o check names.
func TestHelpFormatsAreWhatTheCommandAccepts(t *testing.T) {
	want := regexp.MustCompile(`\(want ([a-z, ]+)\)`)
	for _, c := range leafCommands() {
		if !appliesGlobal(c, c.Root().PersistentFlags().Lookup("output")) {
			continue
		}
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "dorisdiag")), exampleArgs(c)...)
		args = append(args, "-o", "bogus")
		if appliesSource(c) {
			args = append(args, "--demo=incident")
		}
		if c.Name() == "snapshot" {
			args = append(args, "--summary")
		}
		_, stderr, code := run(t, nil, "", args...)
		m := want.FindStringSubmatch(stderr)
		if code != cmdutil.ExitError || m == nil {
			t.Errorf("%s: exit %d, %q", strings.Join(args, " "), code, stderr)
			continue
		}
		var names []string
		for _, f := range commandFormats(c) {
			names = append(names, string(f))
		}
		if m[1] != strings.Join(names, ", ") {
			t.Errorf("%s: the command accepts %s, help lists %s", c.CommandPath(), m[1], strings.Join(names, ", "))
		}
	}
}

// TestHelpShowsOnlyGlobalFlagsThatApply: "13 global flags repeat in every
// help, tso included". tso decode shows no connection, source or gate
// flags and refuses them; mv explain shows them grouped.
func TestHelpShowsOnlyGlobalFlagsThatApply(t *testing.T) {
	tso, _, _ := run(t, nil, "", "tso", "decode", "--help")
	for _, flag := range []string{"--host", "--port", "--http-port", "--user", "--tls", "--timeout", "--snapshot", "--demo", "--fail-on", "Connection flags", "Source flags"} {
		if strings.Contains(tso, flag) {
			t.Errorf("tso decode --help shows %s:\n%s", flag, tso)
		}
	}
	if !strings.Contains(tso, "Output flags:") || !strings.Contains(tso, "--output") {
		t.Errorf("tso decode --help: no output flags:\n%s", tso)
	}
	_, stderr, code := run(t, nil, "", "tso", "decode", "469067681628160003", "--host", "fe1")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "--host does not apply") {
		t.Errorf("tso decode --host: exit %d, %q", code, stderr)
	}
	mv, _, _ := run(t, nil, "", "mv", "explain", "--help")
	order := []string{"Flags:", "Source flags (one of):", "--host", "Connection flags (with --host):", "--port", "Output flags:", "--output", "Gate flags:", "--fail-on", "Exit codes:"}
	at := 0
	for _, s := range order {
		i := strings.Index(mv[at:], s)
		if i < 0 {
			t.Fatalf("mv explain --help: %q missing or out of order:\n%s", s, mv)
		}
		at += i
	}
	// The mv group's thresholds are mv explain's own flags.
	if !strings.Contains(mv[:strings.Index(mv, "Source flags")], "--max-delay") {
		t.Errorf("mv explain --help: --max-delay not among its flags")
	}
}

// TestHelpExamplesParseAndRun: every example parses against the command
// tree; the offline ones (--demo, tso, explain, version, completion) run,
// with the exit code their comment documents ("# exit 1 ...") or 0.
func TestHelpExamplesParseAndRun(t *testing.T) {
	exitNote := regexp.MustCompile(`#.*\bexits? (\d)\b`)
	ran := 0
	for _, c := range leafCommands() {
		for _, line := range strings.Split(c.Example, "\n") {
			for _, inv := range dorisdiagInvocations(line) {
				if err := parseCommandLine(inv); err != nil {
					t.Errorf("%s example %q: %v", c.CommandPath(), strings.TrimSpace(line), err)
					continue
				}
				if !offlineExample(line, inv) || c.Annotations[annServes] == "true" {
					continue
				}
				want := 0
				if m := exitNote.FindStringSubmatch(line); m != nil {
					want, _ = strconv.Atoi(m[1])
				}
				ran++
				_, stderr, code := run(t, nil, "", inv...)
				if code != want {
					t.Errorf("%s example %q: exit %d, documented %d: %s", c.CommandPath(), strings.TrimSpace(line), code, want, stderr)
				}
			}
		}
	}
	if ran < 15 {
		t.Errorf("only %d examples ran", ran)
	}
}

// offlineExample: needs no cluster, no input of the user's, no stdin, and
// writes no file.
func offlineExample(line string, args []string) bool {
	if strings.Contains(line, "| dorisdiag") || strings.Contains(line, "$(") {
		return false
	}
	offline := false
	switch args[0] {
	case "tso", "explain", "version", "completion", "demo":
		offline = true
	}
	for _, a := range args {
		switch {
		case a == "--demo" || strings.HasPrefix(a, "--demo="):
			offline = true
		case a == "--host" || a == "--snapshot" || a == "--targets" || strings.HasPrefix(a, "http") || strings.HasSuffix(a, ".prom") || a == "--config" || strings.HasPrefix(a, "--watch") ||
			a == "-f" || a == "-w" || a == "--save" || a == "--file":
			return false
		}
	}
	return offline
}

// TestEveryGlobalFlagHasAGroup: a global flag added without a group would be
// shown (and accepted) everywhere, tso included: give it one in
// globalFlagGroup.
func TestEveryGlobalFlagHasAGroup(t *testing.T) {
	root := NewRootCmd(&cmdutil.IOStreams{})
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && len(f.Annotations[flagGroupAnn]) == 0 {
			t.Errorf("global flag --%s has no group (globalFlagGroup in cmd/help.go)", f.Name)
		}
	})
}
