package doris

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Object names as a person types them on dorisdiag's command line: DB.NAME or
// NAME, each part bare or in backquotes, a backquote inside backquotes
// written twice — Doris's own identifier syntax (DorisLexer.g4, apache/doris
// @00247e5c7a6058fa26b705200c103d127cbf9494:
// BACKQUOTED_IDENTIFIER : '`' ( ~'`' | '``' )* '`' ;
// IDENTIFIER : (LETTER | DIGIT | '_')+ with LETTER [a-zA-Z$_] or any
// character above 0x7F). ParseName reads what FormatName writes, for every
// pair of strings (FuzzNameRoundTrip).

// ObjectName is a parsed DB.NAME; DB is "" and Qualified false for a bare NAME.
type ObjectName struct {
	DB, Name  string
	Qualified bool
}

// FormatName writes db.name so that ParseName reads it back: each part bare
// when it is a Doris IDENTIFIER, else backquoted.
func FormatName(db, name string) string { return FormatPart(db) + "." + FormatPart(name) }

// FormatPart writes one name part: bare when Doris would read it unquoted
// (IDENTIFIER: letters, digits, _, $ and any non-ASCII character), else in
// backquotes with each backquote doubled.
func FormatPart(s string) string {
	if isBareIdent(s) {
		return s
	}
	return QuoteIdent(s)
}

func isBareIdent(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '$':
		case r > 0x7f && !isFormatOrControl(r):
		default:
			return false
		}
	}
	return true
}

// isFormatOrControl: C1 controls, bidi and other invisible format characters
// are legal in a Doris IDENTIFIER but a person cannot see them; backquote
// them so the printed name shows that something is there.
func isFormatOrControl(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || r == 0xa0 || r == 0xad || (r >= 0x200b && r <= 0x200f) || (r >= 0x2028 && r <= 0x202e) ||
		(r >= 0x2060 && r <= 0x206f) || r == 0xfeff
}

// ParseName reads DB.NAME or NAME. A part is either backquoted (`...`, a
// backquote inside written twice) or bare: a bare part is any run of characters other
// than '.' and '`' (more lenient than Doris's IDENTIFIER, so my-db.x works),
// and it is taken as written, without trimming. More than two parts, an
// empty bare part, or an unclosed backquote is an error that says how to
// write it.
func ParseName(s string) (ObjectName, error) {
	var parts []string
	i := 0
	for {
		part, n, err := parsePart(s, i)
		if err != nil {
			return ObjectName{}, err
		}
		parts = append(parts, part)
		i = n
		if i == len(s) {
			break
		}
		if s[i] != '.' {
			return ObjectName{}, fmt.Errorf("%q: unexpected %q after a backquoted part at byte %d: want DB.NAME (backquote a part that contains a dot or a backquote: `s.h.o.p`.`mv.x`)", s, s[i], i)
		}
		i++
	}
	switch len(parts) {
	case 1:
		return ObjectName{Name: parts[0]}, nil
	case 2:
		return ObjectName{DB: parts[0], Name: parts[1], Qualified: true}, nil
	default:
		return ObjectName{}, fmt.Errorf("%q has %d dot-separated parts: want DB.NAME or NAME (backquote a part that contains a dot: `s.h.o.p`.`mv.x`)", s, len(parts))
	}
}

// parsePart reads one part starting at byte i and returns it and the index
// after it.
func parsePart(s string, i int) (string, int, error) {
	if i < len(s) && s[i] == '`' {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			if s[j] != '`' {
				b.WriteByte(s[j])
				continue
			}
			if j+1 < len(s) && s[j+1] == '`' {
				b.WriteByte('`')
				j++
				continue
			}
			return b.String(), j + 1, nil
		}
		return "", 0, fmt.Errorf("%q: the backquote at byte %d is not closed (write a backquote inside a backquoted part as ``)", s, i)
	}
	j := i
	for j < len(s) && s[j] != '.' && s[j] != '`' {
		j++
	}
	if j < len(s) && s[j] == '`' {
		return "", 0, fmt.Errorf("%q: a backquote inside a bare part at byte %d: backquote the whole part and double the backquote (`a``b`)", s, j)
	}
	if j == i {
		return "", 0, fmt.Errorf("%q: an empty name part at byte %d: want DB.NAME or NAME (backquote a part that contains a dot: `s.h.o.p`.`mv.x`)", s, i)
	}
	return s[i:j], j, nil
}
