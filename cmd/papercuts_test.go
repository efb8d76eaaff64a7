package cmd

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// Issue 25, papercuts: each was an exit 2 (or worse, an exit 0) that did not
// tell a new user what to do.
func TestPapercutHints(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "--watch", "5", "--demo"}, cmdutil.ExitError, "--watch takes an interval with a unit (--watch 5s)"},
		{[]string{"tso", "decode", "-1"}, cmdutil.ExitError, "put -- before the values (dorisdiag tso decode -- -1)"},
		{[]string{"check", "-p", "x", "--demo"}, cmdutil.ExitError, "the password is read from DORISDIAG_PASSWORD"},
		{[]string{"check", "--demo", "--port", "8030"}, cmdutil.ExitError, "--port 8030 is the HTTP port (--http-port)"},
		{[]string{"exporter", "--demo", "--log.level", "verbose"}, cmdutil.ExitError, `--log.level "verbose": want debug, info, warn or error`},
		{[]string{"snapshot", "--demo", "-o", "table"}, cmdutil.ExitError, "snapshot writes JSON; -o table is only valid with --summary"},
		{[]string{"headroom", "--demo", "--ttl", "-1", "--in", "1h"}, cmdutil.ExitError, "want a TTL above zero"},
		{[]string{"headroom", "--demo", "--ttl", "0", "--in", "1h"}, cmdutil.ExitError, "want a TTL above zero"},
	} {
		out, stderr, code := run(t, nil, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if strings.Contains(stderr, "slog:") {
			t.Errorf("%q: a library's words leak: %q", tc.args, stderr)
		}
		if code == cmdutil.ExitError && out != "" {
			t.Errorf("%q: a refused command printed %d bytes", tc.args, len(out))
		}
	}
	// --version, as every CLI has it.
	out, stderr, code := run(t, nil, "", "--version")
	if code != cmdutil.ExitOK || !strings.HasPrefix(out, "dorisdiag ") {
		t.Errorf("--version: exit %d, %q %q", code, out, stderr)
	}
	// snapshot without -o (and with -o json) still writes the JSON.
	for _, args := range [][]string{{"snapshot", "--demo"}, {"snapshot", "--demo", "-o", "json"}} {
		if out, stderr, code := run(t, nil, "", args...); code != cmdutil.ExitOK || !strings.HasPrefix(out, "{") {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}
