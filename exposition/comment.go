package exposition

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// HELP, TYPE and other comment lines (expfmt startComment, readingHelp,
// readingType).

func (e *engine) parseComment(i int) status {
	i = e.skipBlanks(i + 1)
	b, ok := e.at(i)
	if !ok {
		return e.eof(i)
	}
	if b == '\n' {
		return stOK
	}
	ks := i
	for {
		b, ok = e.at(i)
		if !ok {
			return e.eof(i)
		}
		if isBlank(b) || b == '\n' {
			break
		}
		i++
	}
	kw := e.rec[ks:i]
	isHelp := string(kw) == "HELP"
	isType := string(kw) == "TYPE"
	if !isHelp && !isType || b == '\n' {
		if !e.hasLF {
			return e.eof(e.n)
		}
		if !utf8.Valid(e.rec) {
			e.warn(RuleNonUTF8Text, firstInvalid(e.rec, 0), "", "", e.rec, "comment is not valid UTF-8", "")
		}
		return stOK
	}
	if i = e.skipBlanks(i); e.atEnd(i) {
		return e.eof(i)
	}
	ns := i
	tok, i, st := e.readName(i, true)
	if st != stOK {
		return st
	}
	b, _ = e.at(i)
	if b == '\n' {
		if isHelp && len(tok) > 0 {
			e.warn(RuleHelpEmpty, ns, string(tok), "", nil, "HELP line without text; expfmt ignores it", "write a one-line description after the name")
		}
		return stOK
	}
	if !isBlank(b) {
		e.fail(RuleMetricNameInvalid, i, nil, e.rec[ns:], "invalid metric name in comment")
		return stFail
	}
	if st := e.setOrCreate(tok, ns); st != stOK {
		return st
	}
	i = e.skipBlanks(i)
	b, ok = e.at(i)
	if !ok {
		return e.eof(i)
	}
	if b == '\n' {
		if isHelp {
			e.warn(RuleHelpEmpty, ns, e.curName(), "", nil, "HELP line without text; expfmt ignores it", "write a one-line description after the name")
			if e.cur >= 0 && !e.noMutate {
				e.fams[e.cur].helpEmpty = true
			}
		}
		return stOK
	}
	if isHelp {
		return e.readHelp(ns, i)
	}
	return e.readType(ns, i)
}

func (e *engine) readHelp(ns, i int) status {
	if e.cur >= 0 && e.fams[e.cur].hasHelp {
		e.fail(RuleHelpDuplicate, ns, nil, nil, "second HELP line for metric name %q%s", e.curName(), firstOn("first", e.fams[e.cur].helpLine))
		return stFail
	}
	hs := i
	bad := false
	for i < e.n {
		if e.rec[i] == '\\' {
			c, ok := e.at(i + 1)
			if !ok {
				break
			}
			if c == '\\' || c == 'n' || c == '"' {
				i += 2
				continue
			}
			bad = true
			if e.strict {
				e.fail(RuleHelpBadEscape, i, nil, e.rec[hs:], "invalid escape sequence '\\%c' in HELP", c)
				return stFail
			}
			e.problem(RuleHelpBadEscape, i, nil, e.rec[hs:], fmt.Sprintf("invalid escape sequence %s in HELP text", escDisplay(e.rec, i)),
				`write a backslash in HELP as \\ (only \\ and \n are escapes)`)
		}
		i++
	}
	if e.collectSpans {
		e.spans = append(e.spans, Span{Start: hs, End: e.n, Help: true})
	}
	if !e.hasLF {
		return e.eof(e.n)
	}
	if bad {
		return stFail
	}
	if !utf8.Valid(e.rec[hs:]) {
		e.warn(RuleNonUTF8Text, firstInvalid(e.rec, hs), e.curName(), "", e.rec[hs:], "HELP text is not valid UTF-8", "")
	}
	if e.cur >= 0 && !e.noMutate {
		f := &e.fams[e.cur]
		f.hasHelp = true
		f.helpLine = e.lineOf(ns)
	}
	return stOK
}

func (e *engine) readType(ns, i int) status {
	if e.cur >= 0 && e.fams[e.cur].typ != typeNone {
		f := &e.fams[e.cur]
		if f.samples > 0 {
			e.fail(RuleTypeAfterSamples, ns, nil, nil, "TYPE line for %q after its samples%s", f.name, firstOn("first sample", f.firstSample))
		} else {
			e.fail(RuleTypeDuplicate, ns, nil, nil, "second TYPE line for metric name %q%s", f.name, firstOn("first", f.typeLine))
		}
		return stFail
	}
	if !e.hasLF {
		return e.eof(e.n)
	}
	// expfmt reads the rest of the line, drops backslashes, upper-cases it
	// (Unicode-aware) and looks it up.
	raw := e.rec[i:e.n]
	var t mtype
	if bytes.IndexByte(raw, '\\') < 0 && len(raw) <= 16 && isASCII(raw) {
		t = lookupType(raw)
	} else {
		t = lookupType([]byte(strings.ToUpper(strings.ReplaceAll(string(raw), `\`, ""))))
	}
	if t == typeNone {
		e.fail(RuleTypeUnknown, i, nil, raw, "unknown metric type %q", raw)
		return stFail
	}
	if e.cur >= 0 && !e.noMutate {
		f := &e.fams[e.cur]
		f.typ = t
		f.typeLine = e.lineOf(ns)
	}
	return stOK
}

func lookupType(b []byte) mtype {
	var up [16]byte
	if len(b) > len(up) {
		return typeNone
	}
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	switch string(up[:len(b)]) {
	case "COUNTER":
		return typeCounter
	case "GAUGE":
		return typeGauge
	case "SUMMARY":
		return typeSummary
	case "UNTYPED":
		return typeUntyped
	case "HISTOGRAM":
		return typeHistogram
	case "GAUGE_HISTOGRAM", "GAUGEHISTOGRAM":
		return typeGaugeHistogram
	}
	return typeNone
}
