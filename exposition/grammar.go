package exposition

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

func nameStart(b byte, metric bool) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || b == '"' || (metric && b == ':')
}

func nameCont(b byte, metric, quoted bool) bool {
	return quoted || nameStart(b, metric) || (b >= '0' && b <= '9')
}

// unsafeString views b as a string without copying; only for calls that do
// not keep the string (strconv copies it into its errors).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseFloat is expfmt's ParseFloat: strconv.ParseFloat without 'p', 'P', '_'.
func parseFloat(b []byte) (float64, bool) {
	if n := len(b); n > 0 && n <= 15 {
		// the usual value: a small integer, exact in a float64
		var v uint64
		for _, c := range b {
			d := c - '0'
			if d > 9 {
				goto general
			}
			v = v*10 + uint64(d)
		}
		return float64(v), true
	}
general:
	if bytes.IndexByte(b, '_') >= 0 || bytes.IndexByte(b, 'p') >= 0 || bytes.IndexByte(b, 'P') >= 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(unsafeString(b), 64)
	return v, err == nil
}

func firstInvalid(b []byte, from int) int {
	for i := from; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return from
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// restParses checks, on syntax alone, that the rest of a sample line from k
// (a ',' or '}' after a candidate closing quote) parses: label pairs whose
// values end at their first unescaped quote, '}', a float, an optional
// integer timestamp.
func restSyntaxOK(rec []byte, k int) bool {
	n := len(rec)
	for {
		if rec[k] == '}' {
			return valueRestOK(rec, k+1)
		}
		k = skipBlanksAt(rec, k+1)
		if k >= n {
			return false
		}
		if rec[k] == '}' {
			continue
		}
		// a label name, or a metric name inside braces
		if rec[k] == '"' {
			if k = quoteAt(rec, k+1); k >= n {
				return false
			}
			k++
		} else {
			if !nameStart(rec[k], true) {
				return false
			}
			for k < n && nameCont(rec[k], true, false) && rec[k] != '"' {
				k++
			}
		}
		k = skipBlanksAt(rec, k)
		if k >= n {
			return false
		}
		if rec[k] == ',' || rec[k] == '}' {
			continue
		}
		if rec[k] != '=' {
			return false
		}
		k = skipBlanksAt(rec, k+1)
		if k >= n || rec[k] != '"' {
			return false
		}
		// The value ends at the first unescaped quote followed by blanks
		// and ',' or '}': a raw quote in a later value does not spoil it.
		k++
		for {
			if k = quoteAt(rec, k); k >= n {
				return false
			}
			k = skipBlanksAt(rec, k+1)
			if k >= n {
				return false
			}
			if rec[k] == ',' || rec[k] == '}' {
				break
			}
		}
	}
}

// quoteAt is the first unescaped double quote at or after k (len(rec): none).
func quoteAt(rec []byte, k int) int {
	for k < len(rec) && rec[k] != '"' {
		if rec[k] == '\\' {
			k++
		}
		k++
	}
	return min(k, len(rec))
}

func skipBlanksAt(rec []byte, k int) int {
	for k < len(rec) && isBlank(rec[k]) {
		k++
	}
	return k
}

// valueRestOK: blanks, a float, optionally blanks and an int64 timestamp.
func valueRestOK(rec []byte, k int) bool {
	n := len(rec)
	k = skipBlanksAt(rec, k)
	s := k
	for k < n && !isBlank(rec[k]) && rec[k] != '\n' {
		k++
	}
	if _, ok := parseFloat(rec[s:k]); !ok {
		return false
	}
	k = skipBlanksAt(rec, k)
	if k == n {
		return true
	}
	s = k
	for k < n && !isBlank(rec[k]) && rec[k] != '\n' {
		k++
	}
	if _, err := strconv.ParseInt(string(rec[s:k]), 10, 64); err != nil {
		return false
	}
	return skipBlanksAt(rec, k) == n
}

// lineSyntaxOK: does a line parse on its own, on syntax alone? Used to decide
// whether a line is the continuation of a sample a raw line feed split.
func lineSyntaxOK(rec []byte) bool {
	k := skipBlanksAt(rec, 0)
	if k == len(rec) || rec[k] == '#' {
		return true
	}
	if rec[k] == '{' {
		return restSyntaxOK(append([]byte{','}, rec[k+1:]...), 0)
	}
	if !nameStart(rec[k], true) || rec[k] == '"' {
		return false
	}
	for k < len(rec) && nameCont(rec[k], true, false) && rec[k] != '"' {
		k++
	}
	k = skipBlanksAt(rec, k)
	if k < len(rec) && rec[k] == '{' {
		return restSyntaxOK(append([]byte{','}, rec[k+1:]...), 0)
	}
	return valueRestOK(rec, k)
}
