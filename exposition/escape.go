package exposition

import (
	"strings"
	"unicode/utf8"
)

// MaxDisplay is how many payload bytes a Problem.Value shows.
const MaxDisplay = 80

// DisplayValue makes raw payload bytes safe to print: printable UTF-8 stays,
// backslash and double quote are backslash-escaped, line feed is \n, tab \t,
// other control bytes and invalid UTF-8 are \xNN. Longer input is cut to
// about 80 bytes and ends with "…".
func DisplayValue(raw []byte) string {
	var b strings.Builder
	cut := false
	if len(raw) > MaxDisplay {
		raw = raw[:MaxDisplay]
		cut = true
	}
	for len(raw) > 0 {
		r, size := utf8.DecodeRune(raw)
		switch {
		case r == utf8.RuneError && size <= 1:
			if cut && !utf8.FullRune(raw) {
				raw = nil // a rune cut by the truncation, not an invalid byte
				continue
			}
			b.WriteString(`\x`)
			b.WriteByte(hexDigit[raw[0]>>4])
			b.WriteByte(hexDigit[raw[0]&15])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hexDigit[byte(r)>>4])
			b.WriteByte(hexDigit[byte(r)&15])
		default:
			b.Write(raw[:size])
		}
		raw = raw[size:]
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

const hexDigit = "0123456789abcdef"
