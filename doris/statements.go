package doris

import (
	"regexp"
	"strings"
	"sync"
)

// Placeholders of a Statement template and what they match in a sent
// statement.
var placeholders = map[string]string{
	"{columns}": "(?:`(?:[^`]|``)+`(?:, `(?:[^`]|``)+`)*|\\*)",
	"{db}":      "`(?:[^`]|``)+`",
	"{table}":   "`(?:[^`]|``)+`",
	"{literal}": `'(?:[^'\\]|\\.)*'`,
	"{in}":      `\('(?:[^'\\]|\\.)*'(?:, '(?:[^'\\]|\\.)*')*\)`,
	"{n}":       `[0-9]+`,
	"{host}":    `[^/:]+|\[[0-9a-fA-F:.]+\]`,
	"{port}":    `[0-9]+`,
}

var (
	compileOnce sync.Once
	compiled    []stmtRE
)

type stmtRE struct {
	rel *Relation
	st  Statement
	re  *regexp.Regexp
}

func templateRE(t string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for len(t) > 0 {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		ph := t[i : i+j+1]
		b.WriteString(regexp.QuoteMeta(t[:i]))
		if p, ok := placeholders[ph]; ok {
			b.WriteString("(?:" + p + ")")
		} else {
			b.WriteString(regexp.QuoteMeta(ph))
		}
		t = t[i+j+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// Match finds the relation and statement template a sent statement (or
// "GET URL" request) was made from; ok=false for a statement the contract
// does not document.
func Match(sent string) (*Relation, Statement, bool) {
	compileOnce.Do(func() {
		for _, r := range All() {
			for _, st := range r.Statements {
				compiled = append(compiled, stmtRE{rel: r, st: st, re: templateRE(st.Template)})
				// A server logs a request by its path alone.
				if rest, ok := strings.CutPrefix(st.Template, "GET http://{host}:{port}"); ok {
					compiled = append(compiled, stmtRE{rel: r, st: st, re: templateRE("GET " + rest)})
				}
			}
		}
	})
	s := strings.TrimSpace(sent)
	if i := strings.IndexAny(s, "?"); i >= 0 && strings.HasPrefix(s, "GET ") {
		s = s[:i] // a query string (?type=json) does not change the endpoint
	}
	for _, c := range compiled {
		if c.re.MatchString(s) {
			return c.rel, c.st, true
		}
	}
	return nil, Statement{}, false
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
		if _, ok := placeholders[t[i:i+j+1]]; !ok {
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
