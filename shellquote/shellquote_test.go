package shellquote

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

var hostile = []string{
	"", "plain", "demo.mv_orders_daily", "it's", "$(touch pwned)", "`touch pwned`", "a;b", "a\nb", "a b", "'", "''",
	`\`, `"`, "!", "*", "?", "~", "~root", "=x", "#c", "{a,b}", "a|b", "a&b", "<x", ">x", "\t", "é日本", "\x01\x1b[2J", "-n",
	"shop.`ev$(touch pwned)`",
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"demo.mv_orders_daily", "demo.mv_orders_daily"},
		{"it's", `'it'\''s'`},
		{"shop.ev$(touch pwned)", "'shop.ev$(touch pwned)'"},
		{"=x", "'=x'"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestQuoteRoundTripsThroughSh: a real sh reads each quoted word back as
// exactly one argument, byte for byte, and runs nothing else.
func TestQuoteRoundTripsThroughSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	line := "printf '%s\\0' " + Join(hostile...)
	cmd := exec.Command(sh, "-c", line)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(hostile) {
		t.Fatalf("sh read %d arguments, want %d: %q", len(got), len(hostile), got)
	}
	for i := range hostile {
		if got[i] != hostile[i] {
			t.Errorf("argument %d: sh read %q, want %q", i, got[i], hostile[i])
		}
	}
	if ls, _ := exec.Command("ls", "-A", dir).Output(); len(bytes.TrimSpace(ls)) != 0 {
		t.Errorf("quoted words ran something: %s", ls)
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if strings.ContainsRune(s, 0) {
			return // no shell argument holds a NUL
		}
		// The quoted word is bare and safe, or one single-quoted run with
		// each quote written '\''.
		if safe(s) && s != "" {
			if q != s {
				t.Fatalf("Quote(%q) = %q", s, q)
			}
			return
		}
		if !strings.HasPrefix(q, "'") || !strings.HasSuffix(q, "'") || strings.ReplaceAll(q[1:len(q)-1], `'\''`, "'") != s {
			t.Fatalf("Quote(%q) = %q", s, q)
		}
	})
}
