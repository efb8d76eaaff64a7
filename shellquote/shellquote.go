// Package shellquote is the one shell quoting of dorisdiag: every shell
// command the tool prints (a finding's next step, a verdict, a headline, a
// suggestion in an error) builds its arguments here, so that pasting it into
// a POSIX shell runs exactly that command with exactly those arguments and
// nothing else (docs/security.md "Printed commands and names").
//
// The quoting is POSIX single quotes: inside '...' no character is special
// (POSIX.1-2017 XCU 2.2.2 "Single-Quotes"), so the only character that needs
// care is the single quote itself, written '\” (close, an escaped quote,
// open again). A word made only of characters no shell treats specially is
// left bare, so the common case stays readable: dorisdiag mv explain
// demo.mv_orders_daily.
//
// A leaf: it imports nothing of the module.
package shellquote

import "strings"

// Quote returns s as one shell word: bare when every byte is safe, else in
// single quotes. The empty string is ”.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if safe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each argument and joins them with spaces: the command line
// that runs args[0] with args[1:] as its arguments.
func Join(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// safe: only bytes no POSIX shell (nor bash, zsh, ksh) gives a meaning to in
// any position of a word. '=' is safe after the first word only in practice,
// but a word that starts with NAME= is an assignment only before the command
// name, and Join's first word is always a plain program name.
func safe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == ',' || c == '+' || c == '@' || c == '%' || c == '=':
		default:
			return false
		}
	}
	// A leading '-' is fine for the shell (the program sees an option-looking
	// argument, which is the caller's business); a leading '~' or '=' (zsh
	// expands =cmd) is excluded above or here.
	return s[0] != '='
}
