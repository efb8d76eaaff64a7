package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Every `dorisdiag ...` command a user can read — in a finding code's
// text, a finding's next step over every bundled scenario, a help example,
// README.md or docs/*.md — is parsed against the real command tree: an
// unknown subcommand or flag, or a wrong number of arguments, fails
// (issue 13: the explain text of STREAM_CANNOT_RESUME_REJECTED named
// "dorisdiag tso cutoff", which does not exist). Placeholders (DB.STREAM,
// <db>.<mv>, FILE) are arguments like any other.

// cmdWords splits one shell command line into words: quotes are
// honoured, "# comment" ends it; a redirection and its target are dropped.
func cmdWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := byte(0)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == '$' && i+1 < len(line) && line[i+1] == '(':
			// $(...) is one word, spaces and all
			depth := 0
			for ; i < len(line); i++ {
				cur.WriteByte(line[i])
				if line[i] == '(' {
					depth++
				} else if line[i] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			inWord = true
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			flush()
			return dropRedirects(words)
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return dropRedirects(words)
}

func dropRedirects(ws []string) []string {
	var out []string
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if w == ">" || w == ">>" || w == "<" || w == "2>" || w == "2>&1" {
			i++ // and its target
			continue
		}
		if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") || strings.HasPrefix(w, "<") && !placeholderWord.MatchString(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// segments splits a line at |, ||, &&, ; (outside quotes) and returns the
// ones that run dorisdiag, as words without the leading "dorisdiag" and
// without environment assignments before it.
func dorisdiagInvocations(line string) [][]string {
	var segs []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		if quote != 0 {
			if ch == quote {
				quote = 0
			}
			cur.WriteByte(ch)
			continue
		}
		if ch == '\'' || ch == '"' {
			quote = ch
		}
		if ch == '|' || ch == ';' || (ch == '&' && i+1 < len(line) && line[i+1] == '&') {
			segs = append(segs, cur.String())
			cur.Reset()
			if i+1 < len(line) && (line[i+1] == '|' || line[i+1] == '&') {
				i++
			}
			continue
		}
		cur.WriteByte(ch)
	}
	segs = append(segs, cur.String())
	var out [][]string
	for _, s := range segs {
		ws := cmdWords(s)
		for len(ws) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(ws[0]) {
			ws = ws[1:]
		}
		if len(ws) > 0 && ws[0] == "dorisdiag" {
			out = append(out, ws[1:])
		}
	}
	return out
}

// parseCommandLine resolves args against a fresh command tree as Main
// would, without running anything. A "a/b/c" word where a subcommand is
// expected (a docs table's "tso decode/encode/diff") stands for each.
func parseCommandLine(args []string) error { return parseCommandLineIn(args, false) }

// parseCommandLineIn: listing skips the argument count (a list of
// subcommands such as "tso decode/encode", not one command line).
func parseCommandLineIn(args []string, listing bool) error {
	for i, a := range args {
		if a == "…" || a == "..." { // "dorisdiag …": whatever follows
			args, listing = args[:i], true
			break
		}
	}
	root := NewRootCmd(&cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	args = joinDemoValue(args)
	c := root
	i := 0
	for i < len(args) && c.HasSubCommands() {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			break
		}
		if strings.Contains(a, "/") && !strings.Contains(a, ".") {
			for _, alt := range strings.Split(a, "/") {
				rest := append([]string{}, args[:i]...)
				rest = append(rest, alt)
				if err := parseCommandLineIn(append(rest, args[i+1:]...), true); err != nil {
					return err
				}
			}
			return nil
		}
		sub := findSub(c, a)
		if sub == nil {
			return fmt.Errorf("unknown command %q for %q", a, c.CommandPath())
		}
		c = sub
		i++
	}
	rest := args[i:]
	if err := c.ParseFlags(rest); err != nil {
		return fmt.Errorf("%s: %v", c.CommandPath(), err)
	}
	pos := c.Flags().Args()
	if c.HasSubCommands() {
		// flags before the subcommand ("dorisdiag --demo check"): go on.
		if len(pos) == 0 {
			return nil
		}
		again := append([]string{}, args[:i]...)
		flagsOnly := rest[:len(rest)-len(pos)]
		if findSub(c, pos[0]) == nil {
			return fmt.Errorf("unknown command %q for %q", pos[0], c.CommandPath())
		}
		return parseCommandLineIn(append(append(append(again, pos[0]), flagsOnly...), pos[1:]...), listing)
	}
	if c.Args != nil && !listing {
		if err := c.Args(c, pos); err != nil {
			return fmt.Errorf("%s: %v", c.CommandPath(), err)
		}
	}
	if err := checkGlobalsApply(c); err != nil {
		return err
	}
	return nil
}

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

func TestParseCommandLineRejects(t *testing.T) {
	for _, bad := range []string{
		"dorisdiag tso cutoff --ttl 86400",
		"dorisdiag mv lsit",
		"dorisdiag frobnicate",
		"dorisdiag check --no-such-flag",
		"dorisdiag tso diff 469067681628160003",
		"dorisdiag tso decode --host fe1",
		"dorisdiag tso decode/cutoff 1",
	} {
		inv := dorisdiagInvocations(bad)
		if len(inv) != 1 || parseCommandLine(inv[0]) == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
	for _, good := range []string{
		"dorisdiag mv explain <db>.<mv>",
		"dorisdiag streams show DB.STREAM --watch 15s",
		"DORISDIAG_PASSWORD=x dorisdiag snapshot --host fe1 -f snap.json",
		"curl -s FE:8030/metrics | dorisdiag metrics lint -",
		"dorisdiag tso decode -- -1 N/A",
		"dorisdiag check --demo incident -o prom > x.prom && mv x.prom y",
		"dorisdiag tso decode/encode/diff",
	} {
		inv := dorisdiagInvocations(good)
		if len(inv) != 1 {
			t.Errorf("%s: %d invocations", good, len(inv))
			continue
		}
		if err := parseCommandLine(inv[0]); err != nil && !strings.Contains(good, "decode/encode") {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// placeholderWord: DB.STREAM, SECONDS, <db>.<mv>, C: a value to fill in.
var placeholderWord = regexp.MustCompile(`^(<[a-z_]+>|[A-Z][A-Z0-9_]*)([.:][A-Z<][A-Za-z0-9_<>]*)*$`)

// fillPlaceholders gives a placeholder flag value one the flag's type
// parses ("--ttl SECONDS" → "--ttl 1"), so only names are judged.
func fillPlaceholders(args []string) []string {
	types := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { types[f.Name] = f.Value.Type() })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { types[f.Name] = f.Value.Type() })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewRootCmd(&cmdutil.IOStreams{}))
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i++ {
		name := strings.TrimLeft(out[i], "-")
		if !strings.HasPrefix(out[i], "--") || !placeholderWord.MatchString(out[i+1]) {
			continue
		}
		switch types[name] {
		case "int", "int64", "float64":
			out[i+1] = "1"
		case "duration":
			out[i+1] = "1s"
		}
		if name == "demo" {
			out[i+1] = "incident"
		}
	}
	return out
}

// A command found in prose: "dorisdiag X" where X is a top-level command,
// up to a closing backquote or parenthesis or the end of the sentence.
var proseCmd = regexp.MustCompile("dorisdiag ([a-z][a-z-]*)([ \t][^`()\n]*)?($|[`()\n])")

func proseCommands(text string, topLevel map[string]bool) []string {
	var out []string
	for _, m := range proseCmd.FindAllStringSubmatchIndex(text, -1) {
		if !topLevel[text[m[2]:m[3]]] {
			continue
		}
		end := m[3]
		if m[4] >= 0 {
			end = m[5]
		}
		out = append(out, cutProse(text[m[0]:end]))
	}
	return out
}

// checkProse judges a command named in prose: the subcommand path, and
// every --flag word it names; other words are the sentence's.
func checkProse(words []string) error {
	root := NewRootCmd(&cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	c := root
	i := 0
	for ; i < len(words) && c.HasSubCommands() && !strings.HasPrefix(words[i], "-"); i++ {
		sub := findSub(c, words[i])
		if sub == nil {
			if c == root {
				return nil // "dorisdiag answers five questions": prose
			}
			return fmt.Errorf("unknown command %q for %q", words[i], c.CommandPath())
		}
		c = sub
	}
	for _, w := range words[i:] {
		if !strings.HasPrefix(w, "--") || w == "--" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if name == "help" {
			continue
		}
		if c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil {
			return fmt.Errorf("%s: unknown flag --%s", c.CommandPath(), name)
		}
	}
	return nil
}

// cutProse ends a command found in prose at a sentence's end or a closing
// quote.
func cutProse(s string) string {
	if i := strings.IndexAny(s, "'\""); i >= 0 {
		s = s[:i]
	}
	for _, sep := range []string{". ", ", ", "; ", " — "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return regexp.MustCompile(`[.,;:]+$`).ReplaceAllString(strings.TrimSpace(s), "")
}

// synopsisForms expands "[...]" groups of a synopsis: the line without them,
// and with each alternative ("a | b") of each.
func synopsisForms(s string) []string {
	grp := regexp.MustCompile(`\[([^\[\]]*)\]`)
	base := strings.Join(strings.Fields(grp.ReplaceAllString(s, "")), " ")
	forms := []string{base}
	for _, m := range grp.FindAllStringSubmatch(s, -1) {
		for _, alt := range strings.Split(m[1], " | ") {
			forms = append(forms, base+" "+strings.TrimSpace(alt))
		}
	}
	return forms
}

// textSource is one text a user reads; code marks command text (a shell
// line, an inline code span, a Confirm line) as opposed to prose.
type textSource struct {
	where string
	text  string
	code  bool
}

func userTexts(t *testing.T) []textSource {
	t.Helper()
	var out []textSource
	for _, c := range diag.Codes() {
		for _, l := range strings.Split(c.Confirm, "\n") {
			out = append(out, textSource{"code " + c.Code + " Confirm", l, true})
		}
		for name, s := range map[string]string{"Meaning": c.Meaning, "Matters": c.Matters, "Confirm": c.Confirm, "Fix": c.Fix, "Title": c.Title} {
			out = append(out, textSource{"code " + c.Code + " " + name, s, false})
		}
	}
	for _, name := range scenario.Names() {
		snap, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		res := check.Run([]*snapshot.Snapshot{snap}, check.Options{})
		for _, f := range res.Findings {
			where := "scenario " + name + " finding " + f.Code.String()
			for _, l := range strings.Split(f.Next, "\n") {
				out = append(out, textSource{where + " next", l, true})
			}
			out = append(out, textSource{where + " next", f.Next, false}, textSource{where + " summary", f.Summary, false}, textSource{where + " detail", f.Detail, false})
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, textSource{c.CommandPath() + " --help", c.Long + "\n" + c.Short, false})
		for _, l := range strings.Split(c.Example, "\n") {
			out = append(out, textSource{c.CommandPath() + " --help example", l, true})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewRootCmd(&cmdutil.IOStreams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}))
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	inline := regexp.MustCompile("`(dorisdiag [^`]+)`")
	for _, f := range append([]string{filepath.Join("..", "README.md")}, files...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var prose strings.Builder
		inFence, shell := false, false
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			where := fmt.Sprintf("%s:%d", f, i+1)
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				lang := strings.TrimPrefix(strings.TrimSpace(l), "```")
				inFence = !inFence
				shell = inFence && (lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console")
				continue
			}
			if inFence {
				if shell {
					for strings.HasSuffix(strings.TrimSpace(l), `\`) && i+1 < len(lines) {
						i++
						l = strings.TrimSuffix(strings.TrimSpace(l), `\`) + " " + strings.TrimSpace(lines[i])
					}
					out = append(out, textSource{where, strings.TrimPrefix(strings.TrimSpace(l), "$ "), true})
				}
				continue
			}
			prose.WriteString(l + "\n")
			_ = where
		}
		text := prose.String()
		for _, m := range inline.FindAllStringSubmatch(text, -1) {
			out = append(out, textSource{f + " `" + m[1] + "`", strings.Join(strings.Fields(m[1]), " "), true})
		}
		out = append(out, textSource{f + " (prose)", inline.ReplaceAllString(text, ""), false})
	}
	return out
}

// TestEveryCommandInTextParses is item 6 of issue 13.
func TestEveryCommandInTextParses(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	top := map[string]bool{}
	for _, c := range NewRootCmd(&cmdutil.IOStreams{}).Commands() {
		top[c.Name()] = true
	}
	n := 0
	for _, src := range userTexts(t) {
		var cmds []string
		if src.code {
			cmds = synopsisForms(src.text)
		} else {
			cmds = proseCommands(src.text, top)
		}
		for _, cmdText := range cmds {
			for _, inv := range dorisdiagInvocations(cmdText) {
				n++
				check := parseCommandLine
				if !src.code {
					check = checkProse
				}
				if err := check(fillPlaceholders(inv)); err != nil {
					t.Errorf("%s: %q: %v", src.where, cmdText, err)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d commands found in the texts", n)
	}
	t.Logf("%d commands parsed", n)
}
