package diag

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/shellquote"
)

// Printed commands (docs/security.md "Printed commands and names"): every
// shell command a finding, verdict or headline names with a real object is
// built here, its object name written by doris.FormatName (DB.NAME with
// backquoted parts, which `dorisdiag mv explain` and `streams show` parse
// back) and every argument quoted by shellquote (POSIX single quotes), so
// that pasting it into sh runs dorisdiag with exactly that argument and
// nothing else. SQL goes through doris.QuoteIdent / QuoteLiteral /
// LikeEscape.

// Command is the one way a printed shell command is written: dorisdiag and
// its arguments, each quoted by shellquote. MVExplainCommand and
// StreamShowCommand are Command with an object's name.
func Command(args ...string) string {
	return shellquote.Join(append([]string{"dorisdiag"}, args...)...)
}

// MVExplainCommand is the command that explains one MV.
func MVExplainCommand(db, name string) string {
	return Command("mv", "explain", doris.FormatName(db, name))
}

// StreamShowCommand is the command that shows one stream.
func StreamShowCommand(db, name string) string {
	return Command("streams", "show", doris.FormatName(db, name))
}

// ShellComment makes s safe after a shell '#': a comment ends at a line
// break, so a line break (or any control character) in an object name would
// turn the rest of the comment into a command when pasted.
func ShellComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return ' '
		}
		return r
	}, s)
}

// SplitNext splits a finding's next step into its statements: one per line,
// where a line break inside a quoted name (a '...' or "..." SQL literal, a
// `...` identifier, a '...' shell word) does not end the statement. A line
// that starts with "dorisdiag " or "curl " is read with the shell's quoting
// rules, any other with SQL's; a quote that never closes is not a quote (the
// text is split at every line break then), so prose with an apostrophe stays
// line by line.
func SplitNext(s string) []string {
	var out []string
	for s != "" {
		n := statementEnd(s)
		out = append(out, s[:n])
		if n < len(s) {
			n++ // the line break
		}
		s = s[n:]
	}
	return out
}

// statementEnd is the index of the line break that ends the first statement
// of s (len(s) when none does).
func statementEnd(s string) int {
	plain := strings.IndexByte(s, '\n')
	if plain < 0 {
		return len(s)
	}
	t := strings.TrimLeft(s, " \t")
	var end int
	if strings.HasPrefix(t, "dorisdiag ") || strings.HasPrefix(t, "curl ") {
		end = shellLineEnd(s)
	} else {
		end = sqlLineEnd(s)
	}
	if end < 0 {
		return plain
	}
	return end
}

// shellLineEnd: the first line break outside quotes, -1 when a quote does
// not close.
func shellLineEnd(s string) int {
	word := true // at the start of a word (a '#' there starts a comment)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			return i
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return -1
			}
			i = j
		case c == '\\':
			i++
		case c == '#' && word:
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			return i + j
		}
		word = i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '|' || s[i] == '&')
	}
	return len(s)
}

// sqlLineEnd: the first line break outside SQL quotes and outside a "-- "
// comment's text, -1 when a quote does not close.
func sqlLineEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			return i
		case '\'', '"', '`':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\\' && c != '`' {
					j++
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled: one quote inside
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return -1
			}
			i = j
		case '-':
			if strings.HasPrefix(s[i:], "-- ") {
				j := strings.IndexByte(s[i:], '\n')
				if j < 0 {
					return len(s)
				}
				return i + j
			}
		}
	}
	return len(s)
}
