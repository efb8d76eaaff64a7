package tso

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParse: Parse and ParseOffset never panic, agree with each other, and
// every accepted TSO round-trips through String and Hex (design.md: every
// parser is fuzzed).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"469067681628160003", "0x68276923b100003", " 42 ", "0", "-1", "N/A", `\N`, "", "NULL",
		"9223372036854775807", "9223372036854775808", "0x", "12ab", "+", "1e9", "-0x1", "0x-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		o, oerr := ParseOffset(s)
		if (err == nil) != (oerr == nil) {
			t.Fatalf("Parse(%q) err %v but ParseOffset err %v", s, err, oerr)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid TSO ") {
				t.Fatalf("Parse(%q) error %q does not say what was invalid", s, err)
			}
			return
		}
		if p.Raw != s || o.Raw != s {
			t.Fatalf("Raw not kept: %q / %q, input %q", p.Raw, o.Raw, s)
		}
		switch p.Kind {
		case KindTSO:
			if !p.TSO.IsReal() {
				t.Fatalf("Parse(%q) = KindTSO %d, not real", s, int64(p.TSO))
			}
			for _, text := range []string{p.TSO.String(), p.TSO.Hex()} {
				q, err := Parse(text)
				if err != nil || q.Kind != KindTSO || q.TSO != p.TSO {
					t.Fatalf("round trip of %d via %q: %+v, %v", int64(p.TSO), text, q, err)
				}
			}
			if p.TSO == 0 {
				if o.Kind != KindNoOffset || o.TSO != -1 {
					t.Fatalf("ParseOffset(%q) = %+v, want no offset for 0", s, o)
				}
			} else if o.Kind != KindTSO || o.TSO != p.TSO {
				t.Fatalf("ParseOffset(%q) = %+v, Parse = %+v", s, o, p)
			}
		case KindNoOffset:
			if p.TSO != -1 || o.Kind != KindNoOffset || o.TSO != -1 {
				t.Fatalf("no offset %q: Parse %+v, ParseOffset %+v", s, p, o)
			}
		case KindUnbounded:
			if p.TSO != Unbounded || o.Kind != KindUnbounded {
				t.Fatalf("unbounded %q: Parse %+v, ParseOffset %+v", s, p, o)
			}
		default:
			t.Fatalf("Parse(%q): unknown kind %v", s, p.Kind)
		}
	})
}

// FuzzParseLag: ParseLag never panics; an accepted LAG round-trips through
// its decimal form; errors name the input.
func FuzzParseLag(f *testing.F) {
	for _, s := range []string{"262144000", "0", "N/A", `\N`, "", "-3", "12ab", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lag, ok, err := ParseLag(s)
		if err != nil {
			if ok || !strings.HasPrefix(err.Error(), "invalid LAG ") {
				t.Fatalf("ParseLag(%q) = %d, %v, %v", s, lag, ok, err)
			}
			return
		}
		if !ok {
			return
		}
		back, ok2, err := ParseLag(strconv.FormatInt(lag, 10))
		if err != nil || !ok2 || back != lag {
			t.Fatalf("round trip of %d: %d, %v, %v", lag, back, ok2, err)
		}
	})
}
