package cmd

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// Issue 25 item 1: every printed block, pasted. The splitter below is the
// test's own (it does not trust diag.SplitNext): a printed next step is read
// as a person pastes it — a line that starts with "dorisdiag " or "curl " is
// a shell line (POSIX quoting, up to an unquoted line break), anything else
// is SQL (up to a ';' outside quotes and comments, then the rest of that
// line). Every SQL statement must be of an allowed kind, and its text outside
// quotes and comments must hold nothing of a hostile name; every shell line
// must run only dorisdiag (or curl) with the intended argv.

// pasteUnit is one statement or shell line of a printed block.
type pasteUnit struct {
	shell bool
	text  string // the whole unit as printed
	bare  string // SQL: the text outside quotes and comments
}

// splitPaste splits a printed block into what a paste runs.
func splitPaste(s string) []pasteUnit {
	var out []pasteUnit
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return out
		}
		if strings.HasPrefix(s, "-- ") || strings.HasPrefix(s, "#") { // a comment line
			n := strings.IndexByte(s, '\n')
			if n < 0 {
				return out
			}
			s = s[n:]
			continue
		}
		if strings.HasPrefix(s, "dorisdiag ") || strings.HasPrefix(s, "curl ") {
			n := shellUnitEnd(s)
			out = append(out, pasteUnit{shell: true, text: s[:n]})
			s = s[n:]
			continue
		}
		n, bare := sqlUnitEnd(s)
		if strings.TrimSpace(bare) != "" {
			out = append(out, pasteUnit{text: s[:n], bare: bare})
		}
		s = s[n:]
	}
}

// shellUnitEnd: the end of a shell line: the first line break outside
// quotes and not escaped ('#' at a word start comments to the line end).
func shellUnitEnd(s string) int {
	word := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			return i
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '\\':
			i++
		case c == '#' && word:
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			return i + j
		}
		word = i < len(s) && strings.IndexByte(" \t;|&", s[i]) >= 0
	}
	return len(s)
}

// sqlUnitEnd reads one SQL statement as the mysql client does: quotes (”,
// "", “ with doubling; backslash escapes in ” and ""), comments ("-- " or
// "--" then a control character, '#', /* */) up to their end; the statement
// ends after a ';' outside them and the rest of its line (blanks and a
// comment). It returns the end and the text outside quotes and comments.
func sqlUnitEnd(s string) (int, string) {
	var bare strings.Builder
	i := 0
	lineComment := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			bare.WriteString("Q")
			for i++; i < len(s); i++ {
				if s[i] == '\\' && c != '`' {
					i++
					continue
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c {
						i++
						continue
					}
					break
				}
			}
			i++
		case c == '-' && strings.HasPrefix(s[i:], "--") && (i+2 == len(s) || s[i+2] <= ' '):
			lineComment()
		case c == '#':
			lineComment()
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return len(s), bare.String()
			}
			i += j + 4
		case c == ';':
			bare.WriteByte(';')
			i++
			// the rest of the line: blanks and a comment only
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "#") {
				lineComment()
			}
			return i, bare.String()
		default:
			bare.WriteByte(c)
			i++
		}
	}
	return len(s), bare.String()
}

// allowedSQL are the kinds of statement dorisdiag prints: reads, and the
// statements that act on one MV, stream or table, which a person runs after
// reading why.
var allowedSQL = []string{"SELECT ", "(SELECT ", "SHOW ", "REFRESH MATERIALIZED VIEW ", "RESUME MATERIALIZED VIEW JOB ON ",
	"CANCEL MATERIALIZED VIEW TASK ", "DROP STREAM ", "ALTER TABLE ", "INSERT ... SELECT "}

// hostileFragments are pieces of the hostile names that must never stand
// outside quotes in SQL, nor start a line of a human format.
var hostileFragments = []string{"pwned", "touch ", "DROP DATABASE", "rm -rf", "$("}

// isSQL: a statement starts with a keyword in capitals ("SELECT", "(SELECT");
// a next step in words starts otherwise ("Raise …", "Check …").
func isSQL(stmt string) bool {
	w := strings.TrimLeft(stmt, "(")
	n := 0
	for n < len(w) && w[n] >= 'A' && w[n] <= 'Z' {
		n++
	}
	return n >= 2 && (n == len(w) || w[n] == ' ' || w[n] == ';')
}

// checkSQLUnit checks one pasted SQL statement.
func checkSQLUnit(t *testing.T, where string, u pasteUnit) {
	t.Helper()
	stmt := strings.TrimSpace(u.bare)
	for _, h := range hostileFragments {
		if strings.HasPrefix(strings.TrimSpace(u.text), h) {
			t.Errorf("%s: a paste starts with a piece of a name: %q", where, u.text)
		}
	}
	if !isSQL(stmt) {
		return // prose (a next step in words): a person reads it
	}
	ok := false
	for _, k := range allowedSQL {
		ok = ok || hasPrefixFold(stmt, k)
	}
	if !ok {
		t.Errorf("%s: a paste runs a statement of no allowed kind: %q (from %q)", where, stmt, u.text)
	}
	for _, h := range hostileFragments {
		if strings.Contains(u.bare, h) {
			t.Errorf("%s: %q stands outside quotes and comments in %q", where, h, u.text)
		}
	}
	if n := strings.Count(u.bare, ";"); n > 1 || (n == 1 && !strings.HasSuffix(strings.TrimRight(u.bare, " \t\r\n"), ";")) {
		t.Errorf("%s: %q holds %d statements", where, u.text, n)
	}
}

// TestSplitPaste pins the test's splitter on what it must see through.
func TestSplitPaste(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // "sh:" or "sql:" and the unit's text
	}{
		{"SELECT 1;  -- a `b\nDROP DATABASE x;", []string{"sql:SELECT 1;  -- a `b", "sql:DROP DATABASE x;"}},
		{"SELECT 'a\nb;c';\ndorisdiag mv explain 'x\ny'  # c\nSHOW x", []string{"sql:SELECT 'a\nb;c';", "sh:dorisdiag mv explain 'x\ny'  # c", "sql:SHOW x"}},
		{"-- only a comment\n(SELECT * FROM `a``;b`) EXCEPT (q);", []string{"sql:(SELECT * FROM `a``;b`) EXCEPT (q);"}},
	} {
		var got []string
		for _, u := range splitPaste(tc.in) {
			p := "sql:"
			if u.shell {
				p = "sh:"
			}
			got = append(got, p+u.text)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("splitPaste(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// checkBlock pastes one printed block: each SQL statement is checked, each
// shell line is run by sh with dorisdiag replaced by a stub. It returns the
// number of units.
func checkBlock(t *testing.T, sh, path, where, block string, mvs, streams []cmdutil.ObjectRef) int {
	t.Helper()
	units := splitPaste(block)
	for _, u := range units {
		if u.shell {
			checkShellCommand(t, sh, path, printedText{where, u.text}, mvs, streams)
			continue
		}
		checkSQLUnit(t, where, u)
	}
	return len(units)
}

// humanRuns are the human outputs of the hostile scenario: check in every
// human format, mv list, mv explain --details and streams show.
func humanRuns(mvs, streams []cmdutil.ObjectRef) [][]string {
	var runs [][]string
	for _, f := range []string{"table", "wide", "markdown"} {
		runs = append(runs, []string{"check", "-o", f}, []string{"mv", "list", "-o", f}, []string{"streams", "-o", f})
	}
	runs = append(runs, []string{"check", "-o", "prom"})
	for _, m := range mvs {
		runs = append(runs, []string{"mv", "explain", m.String(), "--details"}, []string{"mv", "explain", m.String(), "-o", "markdown"})
	}
	for _, s := range streams {
		runs = append(runs, []string{"streams", "show", s.String()})
	}
	return runs
}

// TestHostileNamesPasteAsTheySay (issue 25 Why 1-3): a scenario whose names
// hold line feeds, CR, quotes, backquotes, $(), ';', "--" and dots: every
// next step of every JSON output, pasted, splits into the statements it
// means and runs only dorisdiag naming an object that exists; no human output
// holds a raw control character or starts a line with a piece of a name; the
// mv list footer is one shell line that names its MV.
func TestHostileNamesPasteAsTheySay(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	if testing.Short() {
		t.Skip("runs every command over a scenario")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, db := range hostileDBs {
		t.Run(fmt.Sprintf("%q", db), func(t *testing.T) {
			path, snap := hostileSnapshot(t, "incident", db)
			_, mvs, streams := collectPrinted(t, path, snap)
			var nBlocks, nUnits int
			for _, c := range [][]string{{"check"}, {"streams"}, {"mv", "list"}} {
				stdout, stderr, code := run(t, nil, "", append(c, "--snapshot", path, "-o", "json", "--fail-on", "none")...)
				if code != cmdutil.ExitOK {
					t.Fatalf("%q: exit %d: %s", c, code, stderr)
				}
				var doc any
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatal(err)
				}
				walkPrinted(doc, "", func(key string, v any) {
					if s, ok := v.(string); ok && key == "next" {
						nBlocks++
						nUnits += checkBlock(t, sh, path, strings.Join(c, " ")+" (next)", s, mvs, streams)
					}
				})
			}
			for _, m := range mvs {
				c := []string{"mv", "explain", m.String(), "--snapshot", path, "-o", "json"}
				stdout, stderr, code := run(t, nil, "", c...)
				if code == cmdutil.ExitError {
					t.Fatalf("%q: exit %d: %s", c, code, stderr)
				}
				var doc struct{ Next []string }
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatal(err)
				}
				// "Next (paste into a MySQL client)": the block as a whole,
				// and each entry one statement (or one comment line).
				nBlocks++
				nUnits += checkBlock(t, sh, path, "mv explain "+m.String()+" (next[])", strings.Join(doc.Next, "\n"), mvs, streams)
				for _, e := range doc.Next {
					if n := len(splitPaste(e)); n > 1 {
						t.Errorf("mv explain %s: next[] entry %q pastes as %d statements", m, e, n)
					}
				}
			}
			t.Logf("%d blocks, %d statements and shell lines pasted", nBlocks, nUnits)
			if nBlocks < 20 || nUnits < 40 {
				t.Errorf("pasted %d blocks (%d units): too few, the scenario lost its findings", nBlocks, nUnits)
			}

			for _, c := range humanRuns(mvs, streams) {
				stdout, stderr, code := run(t, nil, "", append(c, "--snapshot", path, "--fail-on", "none")...)
				if code == cmdutil.ExitError {
					// mv explain and streams show take no --fail-on
					stdout, stderr, code = run(t, nil, "", append(c, "--snapshot", path)...)
				}
				if code == cmdutil.ExitError {
					t.Fatalf("%q: exit %d: %s", c, code, stderr)
				}
				where := strings.Join(c, " ")
				checkInertHuman(t, where, stdout)
				for _, line := range strings.Split(stdout, "\n") {
					if cmd, ok := strings.CutPrefix(line, "Explain one: "); ok {
						checkShellCommand(t, sh, path, printedText{where + " (footer)", cmd}, mvs, streams)
					}
				}
			}
		})
	}
}

// checkInertHuman: a human output holds no control character but the line
// feed, and no line starts with a piece of a hostile name (what follows a
// line feed in a name).
func checkInertHuman(t *testing.T, where, out string) {
	t.Helper()
	for i, r := range out {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == utf8.RuneError {
			t.Errorf("%s: a raw control character %U at byte %d: %q", where, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimLeft(line, " \t|`>-*")
		for _, h := range append(hostileFragments, "line", "rm ", "'\n") {
			if strings.HasPrefix(l, h) {
				t.Errorf("%s: a line starts with a piece of a name: %q", where, line)
			}
		}
	}
}

// FuzzCommentAndNames (issue 25 item 1): for any name, the statements and
// comments the contract builds paste as what they say — a comment stays one
// line, a name stays inside its quotes — and the printed command gives
// dorisdiag exactly the name back.
func FuzzCommentAndNames(f *testing.F) {
	for _, s := range []string{"x\nDROP DATABASE y;", "a\rb", "it's", "`;--", "$(touch p)", "a.b", "--\n--", "\u2028x", "p;\n-- x\n"} {
		f.Add("db", s)
		f.Add(s, "mv")
	}
	f.Fuzz(func(t *testing.T, db, name string) {
		blocks := []string{
			doris.CompareMVOver(db, name, name),
			doris.Note(doris.ShowQueryProfile(name), "then, if stuck: "+doris.CancelMVTask(1, db, name)),
			doris.Note(doris.RefreshMV(db, name, "AUTO"), name),
			doris.Note(doris.DropStream(db, name)+";", "after "+name),
			doris.SuggestMVStatus(db, name, true),
			doris.SuggestInternalStreams(db, name, []string{name + "_x"}, true),
			doris.SuggestMVTasks(db, name, true),
		}
		for _, b := range blocks {
			for _, u := range splitPaste(b) {
				if u.shell {
					continue // a shell line is a dorisdiag command: checked below
				}
				stmt := strings.TrimSpace(u.bare)
				ok := false
				for _, k := range allowedSQL {
					ok = ok || hasPrefixFold(stmt, k)
				}
				if !ok || strings.Count(u.bare, ";") > 1 {
					t.Fatalf("%q pastes as %q", b, u.text)
				}
			}
		}
		// The command round-trips through the word splitting of a POSIX
		// shell (the test's, below) and ParseName.
		cmd := diag.MVExplainCommand(db, name)
		argv := posixWords(cmd)
		if len(argv) != 4 || argv[0] != "dorisdiag" {
			t.Fatalf("%q splits into %q", cmd, argv)
		}
		n, err := doris.ParseName(argv[3])
		if err != nil || n.DB != db || n.Name != name {
			t.Fatalf("%q names %+v (%v), want %q.%q", cmd, n, err, db, name)
		}
	})
}

// posixWords splits the words of a command line as a POSIX shell does for
// the quoting shellquote writes (bare words, '...', and \' between them).
func posixWords(s string) []string {
	var out []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '\\' && i+1 < len(s):
			w.WriteByte(s[i+1])
			i++
			in = true
		default:
			if strings.IndexByte("$`\"|&;<>(){}*?[]~#!", c) >= 0 {
				return nil // would mean something to the shell
			}
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}
