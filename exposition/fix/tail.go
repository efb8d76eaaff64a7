package fix

import (
	"github.com/dorisdiag/dorisdiag/exposition"

	"bytes"
	"fmt"
)

// sampleTail reads a sample line the plain way — a label value ends at the
// first quote no backslash escapes — and returns what follows the label set:
// the value, the timestamp and any further text. ok is false when the line
// does not read that way (then no value can be said to change).
func sampleTail(rec []byte) (value, ts, rest string, ok bool) {
	i := 0
	blank := func() {
		for i < len(rec) && (rec[i] == ' ' || rec[i] == '\t') {
			i++
		}
	}
	blank()
	if i < len(rec) && rec[i] == '#' {
		return "", "", "", false
	}
	for i < len(rec) && rec[i] != '{' && rec[i] != ' ' && rec[i] != '\t' && rec[i] != '\n' {
		i++
	}
	if i < len(rec) && rec[i] == '{' {
		i++
		for {
			blank()
			if i >= len(rec) {
				return "", "", "", false
			}
			if rec[i] == '}' {
				i++
				break
			}
			if rec[i] == '"' { // a quoted name
				j := quotedEnd(rec, i)
				if j < 0 {
					return "", "", "", false
				}
				i = j
			} else {
				for i < len(rec) && rec[i] != '=' && rec[i] != ',' && rec[i] != '}' && rec[i] != ' ' && rec[i] != '\n' {
					i++
				}
			}
			blank()
			if i < len(rec) && rec[i] == '=' {
				i++
				blank()
				j := quotedEnd(rec, i)
				if j < 0 {
					return "", "", "", false
				}
				i = j
				blank()
			}
			if i < len(rec) && rec[i] == ',' {
				i++
				continue
			}
			if i < len(rec) && rec[i] == '}' {
				continue
			}
			return "", "", "", false
		}
	}
	fields := bytes.Fields(bytes.TrimRight(rec[i:], "\n"))
	if len(fields) == 0 {
		return "", "", "", false
	}
	value = string(fields[0])
	if len(fields) > 1 {
		ts = string(fields[1])
	}
	if len(fields) > 2 {
		rest = string(bytes.Join(fields[2:], []byte{' '}))
	}
	return value, ts, rest, true
}

// quotedEnd is the index after the quoted string at i, or -1.
func quotedEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// sampleTailChanged reports whether a repair changes the sample's value,
// timestamp or trailing text, as both lines read the plain way.
func sampleTailChanged(orig, repaired []byte) (before, after string, changed bool) {
	v0, t0, r0, ok0 := sampleTail(orig)
	if !ok0 {
		return "", "", false
	}
	v1, t1, r1, ok1 := sampleTail(repaired)
	if ok1 && v0 == v1 && t0 == t1 && r0 == r1 {
		return "", "", false
	}
	show := func(v, t, r string, ok bool) string {
		if !ok {
			return "(no value)"
		}
		return exposition.DisplayValue([]byte(fmt.Sprintf("value %s timestamp %q then %q", v, t, r)))
	}
	return show(v0, t0, r0, true), show(v1, t1, r1, ok1), true
}
