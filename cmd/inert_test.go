package cmd

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// hostileServerText is what a hostile server puts in an error or a body: an
// OSC 8 link, a screen clear, a CR that rewrites the line, a bidi override.
const hostileServerText = "denied \x1b]8;;http://evil.invalid\x07click\x1b]8;;\x07 \x1b[2J\rOK \u202eevil \x9b31m"

// rawControl reports the first control character of s other than the line
// feed, or -1.
func rawControl(s string) int {
	for i, r := range s {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return i
		}
	}
	return -1
}

// TestFatalErrorIsInert (issue 25 Why 4): the one line a fatal error prints
// on stderr holds the server's text escaped.
func TestFatalErrorIsInert(t *testing.T) {
	var b bytes.Buffer
	if code := cmdutil.ExitCodeFor(errors.New("Error 1045 (28000): "+hostileServerText), &b, "dorisdiag"); code != cmdutil.ExitError {
		t.Fatalf("exit %d", code)
	}
	if i := rawControl(b.String()); i >= 0 {
		t.Errorf("stderr holds a raw control character at %d: %q", i, b.String())
	}
	if !strings.Contains(b.String(), `\e]8;;`) {
		t.Errorf("the escape is not shown escaped: %q", b.String())
	}
}

// TestHTTPErrorBodyIsInert: a live command whose server answers with a
// hostile body prints it inert.
func TestHTTPErrorBodyIsInert(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(hostileServerText))
	}))
	defer srv.Close()
	_, stderr, code := run(t, nil, "", "metrics", "lint", srv.URL+"/metrics")
	if code != cmdutil.ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if i := rawControl(stderr); i >= 0 {
		t.Errorf("stderr holds a raw control character at %d: %q", i, stderr)
	}
}

// TestCompletionCandidatesAreInert (issue 25 Why 4): a name holding ESC or a
// line break is no completion candidate; the others still are.
func TestCompletionCandidatesAreInert(t *testing.T) {
	path, _ := hostileSnapshot(t, "incident", "shop")
	got, _ := complete(t, "mv", "explain", "--snapshot", path, "")
	if len(got) == 0 {
		t.Fatal("no candidates")
	}
	for _, c := range got {
		if i := rawControl(c); i >= 0 {
			t.Errorf("candidate %q holds a raw control character", c)
		}
	}
	if !cmdutil.Contains(got, "shop.o_s%") && !cmdutil.Contains(got, "shop.`o_s%`") {
		t.Errorf("the printable names are gone: %q", got)
	}
}
