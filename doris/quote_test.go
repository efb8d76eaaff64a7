package doris

import "testing"

// Hostile names stay one identifier or one literal. scrape's tests run the
// same functions through the real MySQL driver and the emulator.
func TestIdentAndLiteral(t *testing.T) {
	for _, tc := range []struct{ in, ident, lit string }{
		{"demo", "`demo`", "'demo'"},
		{"a`b", "`a``b`", "'a`b'"},
		{"it's", "`it's`", `'it\'s'`},
		{`back\slash`, "`back\\slash`", `'back\\slash'`},
		{"x'; DROP DATABASE demo; --", "`x'; DROP DATABASE demo; --`", `'x\'; DROP DATABASE demo; --'`},
		{"line\nfeed\r\x00\x1a\"", "`line\nfeed\r\x00\x1a\"`", `'line\nfeed\r\0\Z\"'`},
		{"日本", "`日本`", "'日本'"},
	} {
		if got := QuoteIdent(tc.in); got != tc.ident {
			t.Errorf("QuoteIdent(%q) = %q, want %q", tc.in, got, tc.ident)
		}
		if got := QuoteLiteral(tc.in); got != tc.lit {
			t.Errorf("QuoteLiteral(%q) = %q, want %q", tc.in, got, tc.lit)
		}
	}
}
