package consumers

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ServerOutcome is what a Prometheus server's scrape does with a payload
// served as Prometheus text (Content-Type text/plain, with or without
// version=0.0.4).
type ServerOutcome struct {
	// Verdict is ServerKept or ServerDropped.
	Verdict string `json:"prometheus_server"`
	// Line is the line the server stops at (1-based) when it drops the
	// scrape; 0 when it keeps it.
	Line int `json:"line,omitempty"`
	// Reason is the server's reason for dropping, in its parser's terms.
	Reason string `json:"reason,omitempty"`
	// DuplicateSamples counts the samples of a series already seen in the
	// payload: the server keeps the scrape and stores the first only.
	DuplicateSamples int `json:"duplicate_samples,omitempty"`
}

// PrometheusServer tells whether a Prometheus server keeps or drops a scrape
// of this payload. It follows the server's own parser
// (prometheus/prometheus model/textparse PromParser: its lexer promlex.l and
// PromParser.Next) and the checks its scrape loop and TSDB head make on every
// series (scrape/scrape.go scrapeLoopAppender.append, tsdb/head_append.go),
// at prometheus/prometheus v0.316.0. Any parser error drops the whole scrape
// (the appender is rolled back and `up` is 0), as do a series whose name,
// label names or label values the default UTF-8 validation refuses and
// duplicate label names; the same series twice is tolerated (the second
// sample is not stored). A differential test and a fuzz target hold this to
// the real parser (server_ref_test.go).
//
// It differs from expfmt, which the linter's error rules follow: the server
// keeps payloads expfmt rejects (a backslash escape other than \\ \" \n, a raw
// line feed inside a label value, a missing final line feed, a repeated HELP
// or TYPE, le="bla", negative histogram counts) and drops payloads expfmt
// accepts (a negative timestamp, TYPE gaugehistogram, HELP text that is not
// UTF-8, an unquoted metric name inside braces).
func PrometheusServer(data []byte) ServerOutcome {
	if len(data) == 0 {
		return ServerOutcome{Verdict: ServerKept}
	}
	p := &promServer{l: promLexer{b: data}, seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}
	if data[len(data)-1] != '\n' {
		// ensureEndsWithNewline copies; only the bounds matter here.
		p.l.b = append(append(make([]byte, 0, len(data)+1), data...), '\n')
	}
	err := p.run()
	if err == nil {
		return ServerOutcome{Verdict: ServerKept, DuplicateSamples: p.dups}
	}
	reason := err.Error()
	if len(reason) > maxReason { // the parser quotes from the entry's start: a value can span lines
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut] + "…"
	}
	return ServerOutcome{Verdict: ServerDropped, Line: 1 + bytes.Count(p.l.b[:min(p.start, len(p.l.b))], []byte{'\n'}),
		Reason: reason, DuplicateSamples: p.dups}
}

// maxReason bounds ServerOutcome.Reason.
const maxReason = 240

// Tokens and lexer states of promlex.l.
type promTok int

const (
	ptInvalid promTok = iota
	ptEOF
	ptLinebreak
	ptWhitespace
	ptHelp
	ptType
	ptText
	ptComment
	ptMName
	ptBraceOpen
	ptBraceClose
	ptLName
	ptQString
	ptEqual
	ptComma
	ptLValue
	ptValue
	ptTimestamp
)

var promTokNames = [...]string{"INVALID", "EOF", "LINEBREAK", "WHITESPACE", "HELP", "TYPE", "TEXT", "COMMENT",
	"MNAME", "BOPEN", "BCLOSE", "LNAME", "QSTRING", "EQUAL", "COMMA", "LVALUE", "VALUE", "TIMESTAMP"}

func (t promTok) String() string { return promTokNames[t] }

type promState int

const (
	psInit promState = iota
	psComment
	psMeta1
	psMeta2
	psLabels
	psLValue
	psValue
	psTimestamp
)

type promLexer struct {
	b     []byte
	i     int
	start int
	state promState
}

func isM(c byte) bool { return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isL(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isD(c byte) bool { return '0' <= c && c <= '9' }

// skipsNUL: in these states the lexer's advance steps over NUL bytes
// (promlexer.next), so a token's second and later bytes never include one.
func (l *promLexer) skipsNUL() bool {
	return l.state == psLValue || l.state == psMeta2 || l.state == psComment
}

// adv is the index after j, as promlexer.next moves.
func (l *promLexer) adv(j int) int {
	j++
	if l.skipsNUL() {
		for j < len(l.b) && l.b[j] == 0 {
			j++
		}
	}
	return j
}

// quoted matches "(\\.|[^\\"])*" at i: the end after the closing quote, or
// -1. `.` is any byte but a line feed, so a backslash cannot escape one.
func (l *promLexer) quoted(i int) int {
	b := l.b
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	skip := l.skipsNUL()
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			k := j + 1
			for skip && k < len(b) && b[k] == 0 {
				k++
			}
			if k >= len(b) || b[k] == '\n' {
				return -1
			}
			j = k
		case 0:
			// golex's classes never match NUL (its end-of-input byte);
			// only the NUL-skipping states get past one.
			if !skip {
				return -1
			}
		}
	}
	return -1
}

// span is the end of the run of bytes matching f from i (i itself unchecked
// when first is false).
func (l *promLexer) span(i int, f func(byte) bool) int {
	if i >= len(l.b) || !f(l.b[i]) {
		return i
	}
	if !l.skipsNUL() {
		for i++; i < len(l.b) && f(l.b[i]); i++ {
		}
		return i
	}
	j := l.adv(i)
	for j < len(l.b) && f(l.b[j]) {
		j = l.adv(j)
	}
	return j
}

// lex is promlexer.Lex: the longest match among the rules of the current
// state (the first rule on a tie), as golex generates it.
func (l *promLexer) lex() promTok {
	for {
		if l.i >= len(l.b) {
			return ptEOF
		}
		l.start = l.i
		c := l.b[l.i]
		// <*>[ \t]+ (listed before the state rules, so it wins ties)
		ws := l.span(l.i, func(c byte) bool { return c == ' ' || c == '\t' })
		switch l.state {
		case psInit:
			switch {
			case c == 0:
				return ptEOF
			case c == '\n':
				l.i++
				l.state = psInit
				return ptLinebreak
			case ws > l.i:
				l.i = ws
				return ptWhitespace
			case c == '#':
				j := l.span(l.i+1, func(c byte) bool { return c == ' ' || c == '\t' })
				if j > l.i+1 {
					l.i = j
					l.state = psComment
					continue // the rule has no return: lexing goes on
				}
				return l.comment()
			case isM(c):
				l.i = l.span(l.i+1, func(c byte) bool { return isM(c) || isD(c) })
				l.state = psValue
				return ptMName
			case c == '{':
				l.i++
				l.state = psLabels
				return ptBraceOpen
			}
		case psComment:
			if ws > l.i {
				l.i = ws
				return ptWhitespace
			}
			for _, kw := range [...]struct {
				w string
				t promTok
			}{{"HELP", ptHelp}, {"TYPE", ptType}} {
				if j, ok := l.word(kw.w); ok {
					if k := l.span(j, func(c byte) bool { return c == ' ' || c == '\t' }); k > j {
						l.i = k
						l.state = psMeta1
						return kw.t
					}
				}
			}
			return l.comment()
		case psMeta1:
			if ws > l.i {
				l.i = ws
				return ptWhitespace
			}
			if j := l.quoted(l.i); j > 0 {
				l.i = j
				l.state = psMeta2
				return ptMName
			}
			if isM(c) {
				l.i = l.span(l.i+1, func(c byte) bool { return isM(c) || isD(c) })
				l.state = psMeta2
				return ptMName
			}
		case psMeta2:
			// {C}* (any bytes up to a line feed) against [ \t]+: the longer
			// wins, whitespace on a tie.
			j := l.i
			if c != 0 { // a first NUL is not skipped, and {C} never matches NUL
				j = l.span(l.i, func(c byte) bool { return c != '\n' })
			}
			if ws > l.i && ws >= j {
				l.i = ws
				return ptWhitespace
			}
			l.i = j
			l.state = psInit
			return ptText
		case psLabels:
			switch {
			case ws > l.i:
				l.i = ws
				return ptWhitespace
			case isL(c):
				l.i = l.span(l.i+1, func(c byte) bool { return isL(c) || isD(c) })
				return ptLName
			case c == '"':
				if j := l.quoted(l.i); j > 0 {
					l.i = j
					return ptQString
				}
			case c == '}':
				l.i++
				l.state = psValue
				return ptBraceClose
			case c == '=':
				l.i++
				l.state = psLValue
				return ptEqual
			case c == ',':
				l.i++
				return ptComma
			}
		case psLValue:
			if ws > l.i {
				l.i = ws
				return ptWhitespace
			}
			if j := l.quoted(l.i); j > 0 {
				l.i = j
				l.state = psLabels
				return ptLValue
			}
		case psValue:
			switch {
			case ws > l.i:
				l.i = ws
				return ptWhitespace
			case c == '{':
				l.i++
				l.state = psLabels
				return ptBraceOpen
			case c != '\n' && c != 0:
				l.i = l.span(l.i, func(c byte) bool { return c != '{' && c != ' ' && c != '\t' && c != '\n' && c != 0 })
				l.state = psTimestamp
				return ptValue
			}
		case psTimestamp:
			switch {
			case ws > l.i:
				l.i = ws
				return ptWhitespace
			case isD(c):
				l.i = l.span(l.i, isD)
				return ptTimestamp
			case c == '\n':
				l.i++
				l.state = psInit
				return ptLinebreak
			}
		}
		// No rule matched: one byte is consumed as INVALID (a comment in
		// the sComment state).
		if l.state == psComment {
			return l.comment()
		}
		l.i++
		return ptInvalid
	}
}

// word matches w at l.i as the lexer reads it; it returns the index after.
func (l *promLexer) word(w string) (int, bool) {
	j := l.i
	for k := 0; k < len(w); k++ {
		if j >= len(l.b) || l.b[j] != w[k] {
			return j, false
		}
		j = l.adv(j)
	}
	return j, true
}

// comment is promlexer.consumeComment: up to the line feed. A NUL byte ends
// the payload there (the lexer reads it as EOF), except in the sComment
// state, whose advance skips NUL bytes (promlexer.next).
func (l *promLexer) comment() promTok {
	for j := l.i; j < len(l.b); j++ {
		switch l.b[j] {
		case '\n':
			l.i = j
			l.state = psInit
			return ptComment
		case 0:
			if j == l.i || l.state != psComment {
				l.i = j
				return ptEOF
			}
		}
	}
	l.i = len(l.b)
	return ptEOF
}

func (l *promLexer) buf() []byte { return l.b[l.start:l.i] }

type promServer struct {
	l     promLexer
	start int
	seen  map[uint64]struct{} // series seen, by hash (a collision only miscounts DuplicateSamples)
	seed  maphash.Seed
	dups  int

	name      []byte      // raw, as in the payload (escapes not yet read)
	labels    [][2][]byte // raw name, raw value
	seriesEnd int         // where PromParser.series ends: after the name or the '}'
}

func (p *promServer) next() promTok {
	for {
		if t := p.l.lex(); t != ptWhitespace {
			return t
		}
	}
}

func (p *promServer) parseError(exp string, got promTok) error {
	e := min(len(p.l.b), p.l.i+1)
	return fmt.Errorf("%s, got %q (%q) while parsing: %q", exp, p.l.b[p.l.start:e], got, p.l.b[p.start:e])
}

var errPromEOF = errors.New("EOF")

// run is PromParser.Next over the whole payload, with the scrape loop's
// checks on each series.
func (p *promServer) run() error {
	for {
		err := p.entry()
		if err == errPromEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *promServer) entry() error {
	for {
		p.start = p.l.i
		p.name, p.labels = nil, p.labels[:0]
		switch t := p.next(); t {
		case ptEOF:
			return errPromEOF
		case ptLinebreak:
			continue
		case ptHelp, ptType:
			if t2 := p.next(); t2 != ptMName {
				return p.parseError("expected metric name after "+t.String(), t2)
			}
			if t2 := p.next(); t2 != ptText {
				return fmt.Errorf("expected text in %s, got %v", t, t2)
			}
			var text []byte
			if b := p.l.buf(); len(b) > 1 {
				text = b[1:]
			}
			if t == ptType {
				switch string(text) {
				case "counter", "gauge", "histogram", "summary", "untyped":
				default:
					return fmt.Errorf("invalid metric type %q", text)
				}
			} else if !utf8.Valid(text) {
				return fmt.Errorf("help text %q is not a valid utf8 string", text)
			}
			if t3 := p.next(); t3 != ptLinebreak {
				return p.parseError("linebreak expected after metadata", t3)
			}
			return nil
		case ptComment:
			if t2 := p.next(); t2 != ptLinebreak {
				return p.parseError("linebreak expected after comment", t2)
			}
			return nil
		case ptBraceOpen:
			nameSet := false
			if err := p.labelSet(&nameSet); err != nil {
				return err
			}
			if !nameSet {
				return fmt.Errorf("metric name not set while parsing: %q", p.l.b[p.start:p.l.i])
			}
			p.seriesEnd = p.l.i
			return p.suffix(p.next())
		case ptMName:
			p.name = p.l.buf()
			p.seriesEnd = p.l.i
			nameSet := true
			t2 := p.next()
			if t2 == ptBraceOpen {
				if err := p.labelSet(&nameSet); err != nil {
					return err
				}
				p.seriesEnd = p.l.i
				t2 = p.next()
			}
			return p.suffix(t2)
		default:
			return p.parseError("expected a valid start token", t)
		}
	}
}

// labelSet is PromParser.parseLVals.
func (p *promServer) labelSet(nameSet *bool) error {
	t := p.next()
	for {
		tok := p.l.buf()
		var isQ bool
		switch t {
		case ptBraceClose:
			return nil
		case ptLName:
		case ptQString:
			isQ = true
		default:
			return p.parseError("expected label name", t)
		}
		t = p.next()
		if isQ && (t == ptComma || t == ptBraceClose) {
			if *nameSet {
				return fmt.Errorf("metric name already set while parsing: %q", p.l.b[p.start:p.l.i])
			}
			*nameSet = true
			p.name = tok[1 : len(tok)-1]
			if t == ptBraceClose {
				return nil
			}
			t = p.next()
			continue
		}
		name := tok
		if name[0] == '"' {
			name = name[1 : len(name)-1]
		}
		if t != ptEqual {
			return p.parseError("expected equal", t)
		}
		if t2 := p.next(); t2 != ptLValue {
			return p.parseError("expected label value", t2)
		}
		v := p.l.buf()
		if !utf8.Valid(v) {
			return fmt.Errorf("invalid UTF-8 label value: %q", v)
		}
		p.labels = append(p.labels, [2][]byte{name, v[1 : len(v)-1]})
		if t = p.next(); t == ptComma {
			t = p.next()
		}
	}
}

// suffix is PromParser.parseMetricSuffix, then the scrape loop's checks.
func (p *promServer) suffix(t promTok) error {
	if t != ptValue {
		return p.parseError("expected value after metric", t)
	}
	series := p.l.b[p.start:p.seriesEnd]
	v := string(p.l.buf())
	if strings.ContainsAny(v, "pP_") {
		return fmt.Errorf("unsupported character in float while parsing: %q", p.l.b[p.start:p.l.i])
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		return fmt.Errorf("%w while parsing: %q", err, p.l.b[p.start:p.l.i])
	}
	hasTS := false
	switch t2 := p.next(); t2 {
	case ptLinebreak:
	case ptTimestamp:
		hasTS = true
		if _, err := strconv.ParseInt(string(p.l.buf()), 10, 64); err != nil {
			return fmt.Errorf("%w while parsing: %q", err, p.l.b[p.start:p.l.i])
		}
		if t3 := p.next(); t3 != ptLinebreak {
			return p.parseError("expected next entry after timestamp", t3)
		}
	default:
		return p.parseError("expected timestamp or new record", t2)
	}
	return p.series(series, hasTS)
}

// lvalReplacer is PromParser's unescaping of names and label values: only
// \" \\ and \n; any other backslash stays as it is.
var lvalReplacer = strings.NewReplacer(`\"`, "\"", `\\`, "\\", `\n`, "\n")

func unreplace(s string) string {
	if strings.IndexByte(s, '\\') >= 0 {
		return lvalReplacer.Replace(s)
	}
	return s
}

// series applies the scrape loop's checks on one series (UTF-8 validation,
// duplicate label names as the TSDB head refuses them) and counts a series
// seen before (tolerated).
func (p *promServer) series(key []byte, hasTS bool) error {
	name := unreplaceBytes(p.name)
	if len(name) == 0 || !utf8.Valid(name) {
		return fmt.Errorf("invalid metric name or label names: %q", name)
	}
	for i, lv := range p.labels {
		n := unreplaceBytes(lv[0])
		if len(n) == 0 || !utf8.Valid(n) || !utf8.Valid(unreplaceBytes(lv[1])) {
			return fmt.Errorf("invalid metric name or label names: label %q", n)
		}
		if string(n) == "__name__" {
			return fmt.Errorf(`label name %q is not unique: invalid sample`, n)
		}
		for _, prev := range p.labels[:i] {
			if bytes.Equal(unreplaceBytes(prev[0]), n) {
				return fmt.Errorf(`label name %q is not unique: invalid sample`, n)
			}
		}
	}
	k := maphash.Bytes(p.seed, key)
	if _, ok := p.seen[k]; ok && !hasTS {
		p.dups++
		return nil
	}
	p.seen[k] = struct{}{}
	return nil
}

// unreplaceBytes is unreplace without a copy when there is nothing to read.
func unreplaceBytes(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	return []byte(unreplace(string(b)))
}
