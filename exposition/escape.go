package exposition

import (
	"strings"
	"unicode/utf8"
)

// maxDisplay is how many payload bytes a Problem.Value shows.
const maxDisplay = 80

// DisplayValue makes raw payload bytes safe to print: printable UTF-8 stays,
// backslash and double quote are backslash-escaped, line feed is \n, tab \t,
// other control bytes and invalid UTF-8 are \xNN. Longer input is cut to
// about 80 bytes and ends with "…".
func DisplayValue(raw []byte) string {
	var b strings.Builder
	cut := false
	if len(raw) > maxDisplay {
		raw = raw[:maxDisplay]
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

// canonicalEscaped: raw is value written with the only escapes the format
// has (\\, \" and \n), so its bytes are the canonical text.
func canonicalEscaped(raw, value []byte) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' {
			if i+1 >= len(raw) {
				return false
			}
			i++
			switch raw[i] {
			case '\\', '"':
				c = raw[i]
			case 'n':
				c = '\n'
			default:
				return false
			}
		}
		if j >= len(value) || value[j] != c {
			return false
		}
		j++
	}
	return j == len(value)
}

func escDisplay(rec []byte, i int) string {
	if i+1 < len(rec) {
		if c := rec[i+1]; c > 0x20 && c < 0x7f {
			return "'\\" + string(c) + "'"
		}
		return "'\\" + DisplayValue(rec[i+1:i+2]) + "'"
	}
	return `'\' at the end of the line`
}

// goQuoteHint says when an escape looks like Go's %q (\t, \xNN, \u, \U, \a ...).
func goQuoteHint(rec []byte, j int) string {
	if j+1 >= len(rec) {
		return ""
	}
	switch rec[j+1] {
	case 't', 'r', 'x', 'u', 'U', 'a', 'b', 'f', 'v', '0', '1', '2', '3':
		return " (Go %q escaping is not exposition escaping)"
	}
	return ""
}
