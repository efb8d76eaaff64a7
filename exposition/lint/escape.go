package lint

import "github.com/dorisdiag/dorisdiag/exposition"

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
		return "'\\" + exposition.DisplayValue(rec[i+1:i+2]) + "'"
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
