package fix

import (
	"bytes"
	"strings"
)

// LabelValueText is a decoded label value as a payload writes it between
// its quotes (\ for a backslash, \" for a quote, \n for a line feed): a
// Problem.Value for a label value read from parsed samples.
func LabelValueText(v string) string { return string(escapeLabelValue([]byte(v))) }

// escapeLabelValue: \ → \\, line feed → \n, " → \", in that order; invalid
// UTF-8 becomes U+FFFD.
func escapeLabelValue(v []byte) []byte {
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

// decodeLiteral reads raw label value or HELP bytes the lenient way: valid
// escapes are decoded, any other backslash is a backslash.
func decodeLiteral(raw []byte, help bool) []byte {
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

// escapeHelp: \ → \\, line feed → \n.
func escapeHelp(v []byte) []byte {
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
