package doris

import "strings"

// Placeholders of a Statement template and the regular expression each
// matches in a sent statement (read only: doristest.Match turns the
// templates back into patterns with it).
var Placeholders = map[string]string{
	"{columns}": "(?:`(?:[^`]|``)+`(?:, `(?:[^`]|``)+`)*|\\*)",
	"{db}":      "`(?:[^`]|``)+`",
	"{table}":   "`(?:[^`]|``)+`",
	"{literal}": `'(?:[^'\\]|\\.)*'`,
	"{in}":      `\('(?:[^'\\]|\\.)*'(?:, '(?:[^'\\]|\\.)*')*\)`,
	"{n}":       `[0-9]+`,
	"{host}":    `[^/:]+|\[[0-9a-fA-F:.]+\]`,
	"{port}":    `[0-9]+`,
	// {segment} is one percent-escaped URL path segment (a database name in
	// /api/{db}/get_load_state).
	"{segment}": `[^/?#]+`,
}

// Build fills a template's placeholders, left to right, with args the caller
// has already quoted (QuoteIdent, QuoteLiteral, an IN list): a statement is
// written from the contract, never retyped.
func (st Statement) Build(args ...string) string {
	t := st.Template
	var b strings.Builder
	for len(t) > 0 {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			break
		}
		if _, ok := Placeholders[t[i:i+j+1]]; !ok {
			b.WriteString(t[:i+j+1])
			t = t[i+j+1:]
			continue
		}
		if len(args) == 0 {
			panic("doris: too few arguments for " + st.Template)
		}
		b.WriteString(t[:i])
		b.WriteString(args[0])
		args = args[1:]
		t = t[i+j+1:]
	}
	if len(args) != 0 {
		panic("doris: too many arguments for " + st.Template)
	}
	b.WriteString(t)
	return b.String()
}
