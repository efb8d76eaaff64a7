package doris

// Quoting: the one place that quotes identifiers and string literals for
// Doris's MySQL dialect (identifiers put into SQL are quoted in one function
// and tested with hostile names). The collector uses it for every statement
// it sends, and diag for every statement it prints as a next step.

import "strings"

// QuoteIdent backquotes an identifier for Doris (MySQL dialect): every name
// dorisdiag puts into SQL — databases, tables, and columns such as the
// reserved word LAG — goes through here. A backquote inside the name is
// doubled, which is the only escape inside backquotes.
func QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// QuoteLiteral writes a single-quoted string literal. TVF arguments such as
// mv_infos("database"=...) cannot be bind parameters (go-libraries.md §3:
// "the client must inline those literals"), so every inlined value goes
// through this one function: backslash, quote and the control bytes the
// MySQL lexer treats specially are escaped, so a hostile database name stays
// one literal.
func QuoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '"':
			b.WriteString(`\"`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
