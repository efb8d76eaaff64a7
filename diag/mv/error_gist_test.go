package mv

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestErrorGistKeepsTheCause: the summary of failed refreshes cut the
// error text at 120 bytes, before its cause ("Allocator sys memory ch…").
// The gist drops Doris's errCode prefix and keeps the head and the tail.
func TestErrorGistKeepsTheCause(t *testing.T) {
	mem := "errCode = 2, detailMessage = (be2.demo.invalid)[MEM_LIMIT_EXCEEDED]PreCatch error code:11, [E11] Allocator sys memory check failed: Cannot alloc:67108864, consuming tracker:<Query#Id=3b4c5d6e7f8a9b0c-1d2e3f4a5b6c7d8e>, peak used 7.82 GB, current used 7.80 GB, exec node:<AGGREGATION_NODE (id=3)>, process memory used 27.93 GB exceed limit 27.90 GB or sys available memory 1.41 GB less than low water mark 1.60 GB."
	for _, tc := range []struct {
		name, in string
		want     []string
		not      []string
	}{
		{"cause kept", mem, []string{"[MEM_LIMIT_EXCEEDED]", " [...] ", "process memory used 27.93 GB exceed limit 27.90 GB or sys available memory 1.41 GB less than low water mark 1.60 GB."}, []string{"errCode", "detailMessage"}},
		{"short as is", "errCode = 2, detailMessage = table not found", []string{"table not found"}, []string{"…", "errCode"}},
		{"line feeds", "first\nsecond\r\n\tthird", []string{"first second third"}, []string{"\n", "\r", "\t"}},
		{"multibyte", strings.Repeat("内存不足 ", 100) + "原因：超过限制", []string{"原因：超过限制"}, nil},
		{"one long word", strings.Repeat("x", 1000), []string{" [...] "}, nil},
	} {
		got := errorGist(tc.in, 200)
		if len(got) > 200 || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes, valid UTF-8 %v: %q", tc.name, len(got), utf8.ValidString(got), got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q holds %q", tc.name, got, w)
			}
		}
	}
}
