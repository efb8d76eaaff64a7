package cmd

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// complete runs cobra's completion request and returns the candidates
// (descriptions dropped) and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, stderr, code := run(t, nil, "", append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var cands []string
	for _, l := range lines[:len(lines)-1] {
		cands = append(cands, strings.SplitN(l, "\t", 2)[0])
	}
	return cands, lines[len(lines)-1]
}

// TestCompletionValuesAreAccepted: every value a flag completes to is one
// the command accepts (exit 0 or 1, never the usage exit 2), and a value
// outside the set is refused — so the sets cannot drift from the parsers.
func TestCompletionValuesAreAccepted(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	root := NewRootCmd(&cmdutil.IOStreams{})
	checked := 0
	demoRun := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			walk(s)
		}
		if !c.Runnable() || c.HasSubCommands() || c.Hidden || c.Name() == "completion" || c.Name() == "help" || c.Annotations[annServes] == "true" {
			return
		}
		path := strings.Fields(strings.TrimPrefix(c.CommandPath(), "dorisdiag"))
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := fixedValues(c, f.Name); !ok || !appliesFlag(c, f) {
				return
			}
			vals, _ := complete(t, append(append([]string{}, path...), "--"+f.Name, "")...)
			if f.Name == "demo" {
				vals, _ = complete(t, append(append([]string{}, path...), "--demo=")...)
			}
			if len(vals) == 0 {
				t.Errorf("%s --%s: no completions", c.CommandPath(), f.Name)
			}
			for _, v := range vals {
				if f.Name == "demo" {
					// --demo is the root's flag, parsed by the one Source of
					// every command: each scenario is run once (the first
					// command that takes it), not once per command — scale
					// costs seconds a run.
					if demoRun[v] {
						continue
					}
					demoRun[v] = true
				}
				args := append(append([]string{}, path...), exampleArgs(c)...)
				args = append(args, "--"+f.Name+"="+v)
				if f.Name != "demo" && f.Name != "scenario" && appliesSource(c) {
					args = append(args, "--demo=incident")
				}
				if c.Name() == "snapshot" && f.Name == "output" {
					args = append(args, "--summary") // -o applies to the summary
				}
				_, stderr, code := run(t, nil, "", args...)
				// Refused: exit 2 naming the flag or the value (a scenario
				// without the object asked for is not a refused value).
				refused := strings.Contains(stderr, "--"+f.Name)
				if f.Name == "demo" || f.Name == "scenario" {
					refused = strings.Contains(stderr, "scenario")
				}
				if code == cmdutil.ExitError && (refused || strings.Contains(stderr, strconv.Quote(v)) || strings.Contains(stderr, "-o "+v)) {
					t.Errorf("%s: completed value %q refused: %s", strings.Join(args, " "), v, stderr)
				}
				checked++
			}
		})
	}
	walk(root)
	if checked < 20 {
		t.Errorf("only %d completed values checked", checked)
	}
}

// appliesFlag: f is the command's own flag, or a global one that applies.
func appliesFlag(c *cobra.Command, f *pflag.Flag) bool {
	if g := c.Root().PersistentFlags().Lookup(f.Name); g != nil {
		return appliesGlobal(c, g)
	}
	return true
}

func appliesSource(c *cobra.Command) bool {
	return appliesGlobal(c, c.Root().PersistentFlags().Lookup("demo")) && c.Name() != "demo"
}

// exampleArgs are valid positional arguments for the commands that need
// them.
func exampleArgs(c *cobra.Command) []string {
	switch strings.TrimPrefix(c.CommandPath(), "dorisdiag ") {
	case "mv explain":
		return []string{"demo.mv_orders_daily"}
	case "streams show":
		return []string{"demo.s_events_dup"}
	case "tso decode":
		return []string{"469067681628160003"}
	case "tso encode":
		return []string{"2026-11-30T10:00:00Z"}
	case "tso diff":
		return []string{"469067681628160003", "469067419484160000"}
	case "tso lag":
		return []string{"262144000"}
	case "tso headroom":
		return []string{"--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z"}
	case "metrics lint":
		return nil // --demo: the stored payloads
	case "explain":
		return []string{"MV_DELAY_HIGH"}
	}
	return nil
}

func TestCompletionOutputFormatsPerCommand(t *testing.T) {
	got, _ := complete(t, "tso", "decode", "-o", "")
	var want []string
	for _, f := range report.Formats("tso_decode") {
		want = append(want, string(f))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || cmdutil.Contains(got, "prom") {
		t.Errorf("tso decode -o: %q, want %q", got, want)
	}
	got, _ = complete(t, "check", "-o", "")
	if !cmdutil.Contains(got, "prom") {
		t.Errorf("check -o: %q, want prom among them", got)
	}
	got, _ = complete(t, "-o", "")
	if strings.Join(got, ",") != "table,wide,json,markdown,prom" {
		t.Errorf("root -o: %q", got)
	}
}

func TestCompletionNamesFromDemoAndSnapshot(t *testing.T) {
	mvs, _ := complete(t, "mv", "explain", "--demo", "incident", "")
	if !cmdutil.Contains(mvs, "demo.mv_orders_daily") {
		t.Errorf("mv explain --demo incident: %q", mvs)
	}
	// "--demo inc<TAB>": the scenarios (the shell keeps those starting
	// with "inc"), not the MV argument.
	sc, _ := complete(t, "mv", "explain", "--demo", "inc")
	if !cmdutil.Contains(sc, "incident") || cmdutil.Contains(sc, "demo.mv_orders_daily") {
		t.Errorf("--demo inc: %q", sc)
	}
	streams, _ := complete(t, "streams", "show", "--demo=incident", "demo.s_")
	if !cmdutil.Contains(streams, "demo.s_events_dup") {
		t.Errorf("streams show: %q", streams)
	}
	// A second argument completes nothing.
	if got, _ := complete(t, "streams", "show", "--demo=incident", "demo.s_events_dup", ""); len(got) != 0 {
		t.Errorf("second argument: %q", got)
	}
	// No source: nothing, and no error on the screen.
	if got, _ := complete(t, "mv", "explain", ""); len(got) != 0 {
		t.Errorf("no source: %q", got)
	}
	// A snapshot file.
	dir := t.TempDir()
	if _, stderr, code := run(t, nil, "", "snapshot", "--demo", "healthy", "-f", dir+"/s.json"); code != 0 {
		t.Fatalf("snapshot: %s", stderr)
	}
	got, _ := complete(t, "mv", "explain", "--snapshot", dir+"/s.json", "")
	if len(got) == 0 {
		t.Errorf("mv explain --snapshot: no names")
	}
	for _, path := range [][]string{{"streams"}, {"mv", "list"}, {"headroom"}} {
		dbs, _ := complete(t, append(append([]string{}, path...), "--demo=incident", "--db", "")...)
		if !cmdutil.Contains(dbs, "demo") {
			t.Errorf("%s --db: %q", path, dbs)
		}
		for _, db := range dbs { // each completed database is one the command accepts
			if _, stderr, code := run(t, nil, "", append(append([]string{}, path...), "--demo=incident", "--db", db)...); code == cmdutil.ExitError {
				t.Errorf("%s --db %s: %s", path, db, stderr)
			}
		}
	}
}

// TestCompletionLiveNames: names come from a live cluster (the emulator over
// the MySQL protocol), the same as --demo gives.
func TestCompletionLiveNames(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	snap, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	live := liveArgs(t, snap, emulator.Options{})
	got, _ := complete(t, append(append([]string{"mv", "explain"}, live...), "--timeout", "5s", "")...)
	want, _ := complete(t, "mv", "explain", "--demo=incident", "")
	if len(got) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("live names %q, demo names %q", got, want)
	}
}

// TestCompletionBashScriptHasNoBashCompletionCalls: outside its fallbacks,
// the shipped bash script calls no bash-completion function.
func TestCompletionBashScriptHasNoBashCompletionCalls(t *testing.T) {
	out, _, code := run(t, nil, "", "completion", "bash")
	if code != 0 || !strings.Contains(out, bashFallbacks) {
		t.Fatal("completion bash: no fallbacks")
	}
	rest := strings.Replace(out, bashFallbacks, "", 1)
	if m := regexp.MustCompile(`(^|[^_a-zA-Z])(_get_comp_words_by_ref|_filedir)\b`).FindString(rest); m != "" {
		t.Errorf("bash script calls %q outside the fallbacks", m)
	}
	if _, _, code := run(t, nil, "", "completion", "tcsh"); code != cmdutil.ExitError {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
}
