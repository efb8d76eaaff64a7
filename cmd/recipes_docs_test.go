package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/spf13/cobra"
)

// TestEveryDocumentedCommandParses: every `dorisdiag …` command line in the
// README, docs/ and the commands' --help examples names a real command and
// flags it accepts (a recipe that cannot even parse is a recipe that fails
// in cron). Lines that run offline (--demo, tso) are also run, and must not
// exit 2.
func TestEveryDocumentedCommandParses(t *testing.T) {
	var sources []string
	var texts []string
	paths, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	paths = append(paths, filepath.Join("..", "README.md"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts, sources = append(texts, string(b)), append(sources, p)
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts, sources = append(texts, c.Example), append(sources, c.CommandPath()+" --help")
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewRootCmd(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Getenv: func(string) string { return "" }}))

	line := regexp.MustCompile("(?m)(?:^|[`$;&|(]\\s*|^\\s+)dorisdiag ([a-z][^`\\n|;&>)<]*)")
	// dorisdiag-exporter ARGS is dorisdiag exporter ARGS (cmd/dorisdiag-exporter),
	// as a command line or a path (systemd's ExecStart=/usr/local/bin/...).
	exporterLine := regexp.MustCompile("(?m)(?:^\\s*|[`$;&|(]\\s*|=\\S*/)dorisdiag-exporter(\\s)")
	n, ran := 0, 0
	for i, text := range texts {
		text = exporterLine.ReplaceAllString(text, "\n dorisdiag exporter$1")
		for _, m := range line.FindAllStringSubmatch(text, -1) {
			cmdline := m[1]
			if k := strings.Index(cmdline, " #"); k >= 0 {
				cmdline = cmdline[:k] // a shell comment
			}
			args := shellWords(strings.TrimSpace(cmdline))
			if len(args) > 12 {
				continue // prose that starts with the tool's name
			}
			placeholder := false
			for _, a := range args {
				placeholder = placeholder || regexp.MustCompile(`^[A-Z][A-Z_]+$`).MatchString(a)
			}
			if placeholder {
				continue // HOST, SECONDS, …: a template, not a command line
			}
			if len(args) == 0 || strings.ContainsAny(m[1], "…[]{}") || strings.Contains(m[1], "CODE") || strings.Contains(m[1], "...") {
				continue // a synopsis, not a command line
			}
			if strings.Contains(strings.Join(args, " "), "/") && !strings.Contains(cmdline, "--") && len(args) <= 2 {
				continue // a list of subcommands, not a command line
			}
			n++
			root := NewRootCmd(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Getenv: func(string) string { return "" }})
			root.InitDefaultCompletionCmd()
			c, rest, err := root.Find(args)
			if err != nil || c == root && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
				t.Errorf("%s: %q names no command: %v", sources[i], "dorisdiag "+cmdline, err)
				continue
			}
			if err := c.ParseFlags(rest); err != nil {
				t.Errorf("%s: %q: %v", sources[i], "dorisdiag "+cmdline, err)
				continue
			}
			if offlineAndHarmless(args) {
				ran++
				if _, stderr, code := run(t, nil, "", args...); code == 2 {
					t.Errorf("%s: %q exits 2: %s", sources[i], "dorisdiag "+cmdline, stderr)
				}
			}
		}
	}
	if n < 30 || ran < 5 {
		t.Fatalf("only %d documented command lines found (%d run): the pattern no longer matches", n, ran)
	}
}

// offlineAndHarmless: a documented line that runs on a bundled scenario or
// needs no cluster (tso, explain), writes no file and does not loop.
func offlineAndHarmless(args []string) bool {
	if args[0] == "exporter" {
		return false // runs until SIGTERM (its own tests stop it)
	}
	offline := args[0] == "tso" || args[0] == "explain" || args[0] == "demo"
	for _, a := range args {
		switch {
		case a == "--demo" || strings.HasPrefix(a, "--demo="):
			offline = true
		case a == "--host" || a == "--snapshot" || strings.HasPrefix(a, "--watch") || a == "-f" || a == "-w" ||
			a == "--save" || a == "--file" || strings.HasPrefix(a, "--config") || strings.HasPrefix(a, "http"):
			return false
		}
	}
	return offline && args[0] != "completion" && args[0] != "metrics"
}

// shellWords splits a command line as sh would for the simple quoting the
// docs use ("…" and '…').
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
