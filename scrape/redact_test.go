package scrape

import (
	"errors"
	"strings"
	"testing"
)

// TestRedactionCannotReveal (issue 14, "Redaction that reveals"): a short
// password changed every word that held it ("syntax" → "synta***"), and a
// password equal to the user name turned "Access denied for user 'root'"
// into "user '***'", which told the password.
func TestRedactionCannotReveal(t *testing.T) {
	for _, tc := range []struct {
		name, password, user, host, in, want string
	}{
		{"short secret changes nothing", "x", "diag", "fe1", "You have an error in your SQL syntax", "You have an error in your SQL syntax"},
		{"three letters still too short", "abc", "diag", "fe1", "abc at abcd", "abc at abcd"},
		{"password equals the user", "root", "root", "fe1", "Access denied for user 'root'@'10.0.0.1'", "Access denied for user 'root'@'10.0.0.1'"},
		{"password inside the user", "admin", "admin2", "fe1", "Access denied for user 'admin2'", "Access denied for user 'admin2'"},
		{"password inside the host", "prod", "diag", "prod-fe1.example", "connecting to prod-fe1.example:9030: prod", "connecting to prod-fe1.example:9030: prod"},
		{"part of a longer word is not the secret", "pass", "diag", "fe1", "password passes", "password passes"},
		{"whole occurrence replaced", "Pw-4c1-s3cret", "diag", "fe1", "server said: bad password Pw-4c1-s3cret (using password: YES)", "server said: bad password *** (using password: YES)"},
		{"every whole occurrence", "hunter2", "diag", "fe1", "hunter2,hunter2 and hunter22", "***,*** and hunter22"},
		{"edge punctuation is its own boundary", "!s3cr", "diag", "fe1", "x!s3cr.", "x***."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Password: tc.password, User: tc.user, Host: tc.host}
			base := errors.New(tc.in)
			got := cfg.Secret().Redact(base)
			if got.Error() != tc.want {
				t.Errorf("redact(%q) = %q, want %q", tc.in, got.Error(), tc.want)
			}
			if !errors.Is(got, base) {
				t.Error("the redacted error lost its chain")
			}
		})
	}
}

// TestRedactionOfDictionaryWords (issue 25 Why 6): with the password
// "Access", "Access denied" printed as "*** denied" — the message every
// reader knows gave the password away. A letters-only password is replaced
// only where a server echoes a value (whole, between quotes); the messages
// of MySQL, Doris and the network stay as they are for every word in them.
func TestRedactionOfDictionaryWords(t *testing.T) {
	messages := []string{
		"Error 1045 (28000): Access denied for user 'diag'@'10.0.0.7' (using password: YES)",
		"dial tcp 10.0.0.1:9030: connect: connection refused",
		"GET http://fe1:8030/api/tso: HTTP 401 Unauthorized: Need auth information.",
		"Error 1105 (HY000): errCode = 2, detailMessage = Unknown database 'shop'",
		"read tcp: i/o timeout while reading the handshake",
		"Error 1064 (42000): You have an error in your SQL syntax; check the manual",
	}
	for _, msg := range messages {
		for _, w := range strings.FieldsFunc(msg, func(r rune) bool { return !isWord(r) }) {
			if !lettersOnly(w) || len(w) < minRedactLen || w == "diag" {
				continue
			}
			cfg := Config{Password: w, User: "diag", Host: "fe1"}
			got := cfg.Secret().redactText(msg)
			if strings.Trim(w, "'") == "shop" {
				// a quoted echo of the value: replaced
				if got == msg {
					t.Errorf("password %q: the quoted echo is kept: %q", w, got)
				}
				continue
			}
			if got != msg {
				t.Errorf("password %q: %q became %q", w, msg, got)
			}
		}
	}
	// A password with a digit or a sign is still replaced wherever it stands whole.
	cfg := Config{Password: "Access1", User: "diag", Host: "fe1"}
	if got := cfg.Secret().redactText("bad password Access1 given"); got != "bad password *** given" {
		t.Errorf("got %q", got)
	}
}
