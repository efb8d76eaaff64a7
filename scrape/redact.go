package scrape

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redaction is the last line of defence only (design.md "Secrets"; docs/
// security.md "Credentials"). The password never enters an error string in
// the first place: the MySQL driver gets it in a mysql.Config, never a DSN
// (no DSN text exists to be formatted into an error), HTTP errors name the
// user and never the password, and the collector formats no Config into any
// text. What redaction still catches is a server that echoes the password
// back in its own message.
//
// Redaction must not reveal what it hides (issue 14, "Redaction that
// reveals"): replacing "x" everywhere turned "syntax" into "synta***", and
// replacing "root" turned "Access denied for user 'root'" into "user '***'",
// which told the reader the password equals the user name. So:
//   - a secret shorter than minRedactLen is never searched for: no text is
//     changed for it (a one-letter password hides nothing and would mark
//     every word that holds the letter);
//   - only whole occurrences are replaced, bounded by characters that are not
//     letters, digits or '_' — never part of a longer word;
//   - when the secret occurs in a known non-secret (the user name, the host),
//     the text is left as it is: those appear in messages legitimately, and
//     a replaced one would tell which of them the password matches.
//   - a secret made of letters only (a dictionary word: "Access", "denied")
//     is replaced only where it stands whole between quotes ('Access',
//     "Access", `Access`), the way a server echoes a value back: as a bare
//     word it cannot be told from the message's own words, and replacing it
//     there ("*** denied for user") would print the password's position in a
//     sentence every reader knows (issue 25). The password never enters
//     dorisdiag's own text, so a bare word in a message is the server's.

// minRedactLen is the shortest secret redaction looks for.
const minRedactLen = 4

// Secret is a password with the non-secrets it may coincide with.
type Secret struct {
	value  string
	public []string // user name, host, host:port
}

// Secret is the collection's password with its user and host.
func (cfg Config) Secret() Secret {
	return Secret{value: cfg.Password, public: []string{cfg.User, cfg.Host}}
}

// redactedError keeps the chain of a wrapped error (errors.Is/As still work)
// while its text never carries the secret.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redact returns err with every whole occurrence of the secret in its text
// replaced by ***, under the rules above; err itself when nothing changes.
func (s Secret) Redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := s.redactText(msg)
	if out == msg {
		return err
	}
	return &redactedError{msg: out, err: err}
}

// redactText applies the rules to one text.
func (s Secret) redactText(text string) string {
	v := s.value
	if utf8.RuneCountInString(v) < minRedactLen || !strings.Contains(text, v) {
		return text
	}
	for _, p := range s.public {
		if p != "" && strings.Contains(p, v) {
			return text
		}
	}
	word := lettersOnly(v)
	first, _ := utf8.DecodeRuneInString(v)
	last, _ := utf8.DecodeLastRuneInString(v)
	var b strings.Builder
	done := 0 // text[:done] is written
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], v)
		if i < 0 {
			break
		}
		i += from
		j := i + len(v)
		// A secret that starts (ends) with a word character is whole only
		// when no word character precedes (follows) it.
		if isWord(first) && wordBefore(text[:i]) || isWord(last) && wordAfter(text[j:]) {
			from = i + 1
			continue
		}
		if word && !quoted(text, i, j) {
			from = i + 1
			continue
		}
		b.WriteString(text[done:i])
		b.WriteString("***")
		done, from = j, j
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordBefore: the text ends with a word character.
func wordBefore(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWord(r)
}

// wordAfter: the text starts with a word character.
func wordAfter(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWord(r)
}

// lettersOnly: every character of s is a letter.
func lettersOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// quoted: text[i:j] stands between two equal quote characters.
func quoted(text string, i, j int) bool {
	if i == 0 || j >= len(text) {
		return false
	}
	q := text[i-1]
	return (q == '\'' || q == '"' || q == '`') && text[j] == q
}
