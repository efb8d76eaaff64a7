// Package doristest matches sent statements against the wire contract's
// templates (tests only: the collector's end-to-end test checks that every
// statement it sent is one docs/snapshot.md lists). It is never linked into
// the dorisdiag binary.
package doristest

import (
	"regexp"
	"strings"
	"sync"

	"github.com/dorisdiag/dorisdiag/doris"
)

var (
	compileOnce sync.Once
	compiled    []stmtRE
)

type stmtRE struct {
	rel *doris.Relation
	st  doris.Statement
	re  *regexp.Regexp
}

// templateRE turns a Statement template into an anchored pattern, each
// placeholder replaced by what it matches (doris.Placeholders).
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
		if p, ok := doris.Placeholders[ph]; ok {
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
func Match(sent string) (*doris.Relation, doris.Statement, bool) {
	compileOnce.Do(func() {
		for _, r := range doris.All() {
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
	return nil, doris.Statement{}, false
}
