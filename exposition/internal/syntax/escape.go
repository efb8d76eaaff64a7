package syntax

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// EscapeLabelValue: \ → \\, line feed → \n, " → \", in that order; invalid
// UTF-8 becomes U+FFFD.
func EscapeLabelValue(v []byte) []byte {
	s := strings.ToValidUTF8(string(v), "\uFFFD")
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// DecodeLiteral reads raw label value or HELP bytes the lenient way: valid
// escapes are decoded, any other backslash is a backslash.
func DecodeLiteral(raw []byte, help bool) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' && i+1 < len(raw) {
			switch raw[i+1] {
			case '\\':
				out = append(out, '\\')
				i++
				continue
			case 'n':
				out = append(out, '\n')
				i++
				continue
			case '"':
				out = append(out, '"')
				i++
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func EscapeHelp(v []byte) []byte {
	var b bytes.Buffer
	for _, c := range v {
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

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

// CanonicalEscaped: raw is value written with the only escapes the format
// has (\\, \" and \n), so its bytes are the canonical text.
func CanonicalEscaped(raw, value []byte) bool {
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

func EscDisplay(rec []byte, i int) string {
	if i+1 < len(rec) {
		if c := rec[i+1]; c > 0x20 && c < 0x7f {
			return "'\\" + string(c) + "'"
		}
		return "'\\" + DisplayValue(rec[i+1:i+2]) + "'"
	}
	return `'\' at the end of the line`
}

// GoQuoteHint says when an escape looks like Go's %q (\t, \xNN, \u, \U, \a ...).
func GoQuoteHint(rec []byte, j int) string {
	if j+1 >= len(rec) {
		return ""
	}
	switch rec[j+1] {
	case 't', 'r', 'x', 'u', 'U', 'a', 'b', 'f', 'v', '0', '1', '2', '3':
		return " (Go %q escaping is not exposition escaping)"
	}
	return ""
}
