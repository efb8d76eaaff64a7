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
func QuoteLiteral(s string) string { return quoteString(s, '\'') }

// quoteDouble writes a double-quoted string literal with QuoteLiteral's
// escapes (Doris's lexer reads "..." as a string like '...', a backslash
// escaping in both): the form Doris's own documentation gives for
// property lists such as ADMIN SET FRONTEND CONFIG ("key" = "value").
func quoteDouble(s string) string { return quoteString(s, '"') }

func quoteString(s string, q byte) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		writeLiteralByte(&b, s[i])
	}
	b.WriteByte(q)
	return b.String()
}

// writeLiteralByte writes one byte of a single-quoted literal's content.
func writeLiteralByte(b *strings.Builder, c byte) {
	switch c {
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

// LikeEscape escapes s for use inside a LIKE pattern with Doris's default
// escape character, the backslash: '%', '_' and '\' are preceded by '\', and
// nothing else is touched.
//
// Why only those three: the BE's LIKE (be/src/vec/functions/like.h and
// like.cpp @002661616f14, LikeSearchState::escape_char = '\\') reads "\%",
// "\_" and "\\" as the literal characters and every other character as
// itself — "\." there is a backslash and a dot, not a dot — in the fast
// paths (extract_like_fast_path, remove_escape_character) and in
// convert_like_pattern, which escapes the regex metacharacters itself. So a
// name "o_s%" escaped this way matches only "o_s%", never "oxsab".
// (An older BE, like.cpp @03255c4e, copied unescaped regex metacharacters
// such as '.' and '(' into the regex of a pattern with a wildcard in the
// middle; LikePrefix keeps its only wildcard at the end, which that build
// matches as a plain prefix.)
func LikeEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// LikePrefix is the string literal of the pattern "starts with prefix":
// QuoteLiteral(LikeEscape(prefix) + "%"). The literal doubles each
// backslash and the FE's escapeBackSlash turns a doubled one back into one
// (LogicalPlanBuilderAssistant.java @ff3b1041), so LIKE sees the escapes as
// LikeEscape wrote them. (The FE would also keep a lone backslash before '_'
// or '%' in a literal, as MySQL does, but go-mysql-server drops it: the
// doubled form means the same on both.)
func LikePrefix(prefix string) string { return QuoteLiteral(LikeEscape(prefix) + "%") }
