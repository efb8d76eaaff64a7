package exposition

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// This file is the tokenizer: a line-at-a-time port of the state machine of
// github.com/prometheus/common/expfmt v0.73.1 (text_parse.go) with
// model.UTF8Validation, so that its verdict agrees with expfmt's exactly,
// including the state expfmt carries from one line to the next (the current
// family, the current quantile and bucket). It runs in two modes:
//
//   - strict: stop at the first error, as expfmt does. This is the fast path;
//     a line that passes it is accepted by expfmt too.
//   - lenient: used only on a line that failed strict; it reports every
//     problem of the line, recovers from escaping mistakes (a bad escape is a
//     literal backslash, a raw quote is found by a heuristic) and records where
//     each label value is, for a Rewriter (exposition/fix).

type mtype uint8

const (
	typeNone mtype = iota // no TYPE and no sample yet (expfmt: Type == nil)
	typeCounter
	typeGauge
	typeSummary
	typeUntyped
	typeHistogram
	typeGaugeHistogram
)

func (t mtype) String() string {
	switch t {
	case typeCounter:
		return "counter"
	case typeGauge:
		return "gauge"
	case typeSummary:
		return "summary"
	case typeUntyped:
		return "untyped"
	case typeHistogram:
		return "histogram"
	case typeGaugeHistogram:
		return "gauge_histogram"
	}
	return ""
}

func (t mtype) isHist() bool { return t == typeHistogram || t == typeGaugeHistogram }

type status uint8

const (
	stOK        status = iota
	stFail             // an error; the rest of the line is not parsed
	stOpenValue        // lenient: a label value runs to the end of the record
)

// label is one label of the current sample, as offsets into the record
// (raw, between the quotes for a value) plus decoded text when escapes or
// quotes made decoding necessary.
type label struct {
	name       []byte // decoded
	vs, ve     int    // raw value span in the record
	value      []byte // decoded value (lenient: literal reading of bad escapes)
	special    bool   // quantile of a summary, le of a histogram (expfmt keeps them apart)
	nameOffset int
}

// nameClass marks the bytes that continue an unquoted name: nameLabel for
// a label name, nameMetric for a metric name (which also allows ':').
var nameClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if b != '"' && nameCont(b, false, false) {
			t[c] |= nameLabel | nameMetric
		}
		if b == ':' {
			t[c] |= nameMetric
		}
	}
	return t
}()

const (
	nameLabel  = 1
	nameMetric = 2
)

// atEnd: there is no byte at i, not even the line feed that ends the record.
func (e *engine) atEnd(i int) bool { return i > e.n || i == e.n && !e.hasLF }

// at returns the byte at i: the record's bytes, then '\n' when a line feed
// ends it; false at the end of the input.
func (e *engine) at(i int) (byte, bool) {
	if rec := e.rec; uint(i) < uint(len(rec)) { // e.n is len(e.rec); this form needs no bounds check
		return rec[i], true
	}
	if e.hasLF && i == e.n {
		return '\n', true
	}
	return 0, false
}

func (e *engine) skipBlanks(i int) int { return skipBlanksAt(e.rec, i) }

// eof is expfmt's "unexpected end of input stream".
func (e *engine) eof(i int) status {
	e.fail(RuleMissingFinalNewline, i, nil, nil, "unexpected end of input stream: the last line does not end in a line feed")
	return stFail
}

// fail records an error. In strict mode only the first is kept.
func (e *engine) fail(rule string, pos int, lbl, value []byte, format string, args ...any) {
	if e.strict {
		if !e.failed {
			e.failed = true
			e.sRule, e.sPos = rule, pos
			e.sMsg = fmt.Sprintf(format, args...)
		}
		return
	}
	e.problem(rule, pos, lbl, value, fmt.Sprintf(format, args...), "")
}

// parseRecord parses one record: one line, or in lenient mode a line with the
// continuation lines that a raw line feed split off.
func (e *engine) parseRecord() status {
	i := e.skipBlanks(0)
	b, ok := e.at(i)
	if !ok {
		return stOK // a last line of blanks: expfmt accepts it
	}
	switch b {
	case '\n':
		return stOK
	case '#':
		return e.parseComment(i)
	case '{':
		return e.parseSample(i, true)
	}
	return e.parseSample(i, false)
}

// readName ports readTokenAsMetricName / readTokenAsLabelName. It returns
// the decoded token (empty when b is no name start) and the index of the
// first byte after it.
func (e *engine) readName(i int, metric bool) ([]byte, int, status) {
	b, ok := e.at(i)
	if !ok || !nameStart(b, metric) {
		return nil, i, stOK
	}
	start := i
	e.quotedName = false
	if b != '"' {
		// The usual name: ASCII name bytes up to a blank, '=', '{', ','
		// or '}'; anything else (a quote inside it, the end of the input)
		// takes the loop below.
		cls := uint8(nameLabel)
		if metric {
			cls = nameMetric
		}
		rec := e.rec
		j := i + 1
		for _, c := range rec[j:] {
			if nameClass[c]&cls == 0 {
				break
			}
			j++
		}
		if j < len(rec) && rec[j] != '"' || j == len(rec) && e.hasLF {
			return rec[start:j], j, stOK
		}
	}
	simple := true
	quoted, escaped := false, false
	mark := len(e.arena)
	for {
		if escaped {
			switch b {
			case '\\', '"':
				e.arena = append(e.arena, b)
			case 'n':
				e.arena = append(e.arena, '\n')
			default:
				e.fail(RuleNameBadEscape, i-1, nil, nil, "invalid escape sequence '\\%c' in a quoted name", b)
				return nil, i, stFail
			}
			escaped = false
		} else {
			switch b {
			case '"':
				if simple {
					e.arena = append(e.arena, e.rec[start:i]...)
					simple = false
					e.quotedName = true
				}
				quoted = !quoted
				if !quoted {
					i++
					if _, ok := e.at(i); !ok {
						return nil, i, e.eof(i)
					}
					return e.arena[mark:], i, stOK
				}
			case '\n':
				e.fail(RuleNameBadEscape, i, nil, nil, "quoted name %q contains an unescaped line feed", e.arena[mark:])
				return nil, i, stFail
			case '\\':
				escaped = true
			default:
				if !simple {
					e.arena = append(e.arena, b)
				}
			}
		}
		i++
		b, ok = e.at(i)
		if !ok {
			return nil, i, e.eof(i)
		}
		if !nameCont(b, metric, quoted) {
			break
		}
	}
	if simple {
		return e.rec[start:i], i, stOK
	}
	return e.arena[mark:], i, stOK
}

// setOrCreate ports setOrCreateCurrentMF: exact name, then the summary of a
// _sum/_count, then the histogram of a _sum/_count/_bucket, else a new family.
func (e *engine) setOrCreate(tok []byte, pos int) status {
	e.isHistCount, e.isHistSum = false, false
	if len(tok) == 0 || (e.quotedName && !utf8.Valid(tok)) {
		e.fail(RuleMetricNameInvalid, pos, nil, nil, "invalid metric name %q", tok)
		return stFail
	}
	if e.lastTokFam >= 0 && string(tok) == string(e.lastTok) && (e.lastTokFam != e.spare || e.spareH == e.lastTokH) {
		// the family of the line before: resolved the same way again (a
		// family is never removed, nor its TYPE changed once set)
		e.cur, e.recFam = e.lastTokFam, e.lastTokFam
		e.isHistCount, e.isHistSum = e.lastTokHC, e.lastTokHS
		return stOK
	}
	if e.use(tok, tok, func(mtype) bool { return true }) {
		return stOK
	}
	n := len(tok)
	isCount := n > 6 && string(tok[n-6:]) == "_count"
	isSum := n > 4 && string(tok[n-4:]) == "_sum"
	isBucket := n > 7 && string(tok[n-7:]) == "_bucket"
	var base []byte
	switch {
	case isCount:
		base = tok[:n-6]
	case isSum:
		base = tok[:n-4]
	}
	if base != nil && e.use(tok, base, func(t mtype) bool { return t == typeSummary }) {
		return stOK
	}
	if isBucket {
		base = tok[:n-7]
	}
	if base != nil {
		e.isHistCount, e.isHistSum = isCount, isSum
		if e.use(tok, base, mtype.isHist) {
			return stOK
		}
		e.isHistCount, e.isHistSum = false, false
	}
	if e.noMutate {
		e.cur = phantom
		e.phantomName = tok
		return stOK
	}
	if len(e.famIdx) >= e.opts.MaxFamilies {
		e.newUntracked(tok, e.lineOf(pos))
		e.resolved(tok, e.spare)
		return stOK
	}
	name := string(tok)
	e.famIdx[name] = int32(len(e.fams))
	e.fams = append(e.fams, famState{name: name, firstLine: e.lineOf(pos)})
	e.resolved(tok, int32(len(e.fams)-1))
	return stOK
}

// use makes family name current for tok when it exists and its type
// passes ok: a tracked family, or an untracked one unpacked into the spare.
func (e *engine) use(tok, name []byte, ok func(mtype) bool) bool {
	if idx, found := e.famIdx[string(name)]; found {
		if !ok(e.fams[idx].typ) {
			return false
		}
		e.resolved(tok, idx)
		return true
	}
	h, st, found := e.findUntracked(name)
	if !found || !ok(mtype(st&fsType)) {
		return false
	}
	e.loadSpare(h, e.names.Intern(name), st)
	e.resolved(tok, e.spare)
	return true
}

// resolved makes idx the current family and remembers that tok names it.
func (e *engine) resolved(tok []byte, idx int32) {
	e.cur, e.recFam = idx, idx
	e.lastTok = append(e.lastTok[:0], tok...)
	e.lastTokFam, e.lastTokH = idx, e.spareH
	e.lastTokHC, e.lastTokHS = e.isHistCount, e.isHistSum
}

const phantom = -2 // a family the no-mutation pass would have created

func (e *engine) curType() mtype {
	if e.cur < 0 {
		return typeNone
	}
	return e.fams[e.cur].typ
}

func (e *engine) curName() string {
	switch {
	case e.cur >= 0:
		return e.fams[e.cur].name
	case e.cur == phantom:
		return string(e.phantomName)
	}
	return ""
}

// ensureTyped: a family's first sample makes it untyped when it has no TYPE.
func (e *engine) ensureTyped() {
	if e.cur >= 0 && !e.noMutate && e.fams[e.cur].typ == typeNone {
		e.fams[e.cur].typ = typeUntyped
	}
}

// dupLabel reports whether tok is already a (non-special) label name of the
// current sample: a scan for the usual handful, a set beyond, so a line with
// thousands of labels stays linear.
func (e *engine) dupLabel(tok []byte) bool {
	if len(e.labels) <= 32 {
		for k := range e.labels {
			if !e.labels[k].special && bytes.Equal(e.labels[k].name, tok) {
				return true
			}
		}
		return false
	}
	if e.labelSet == nil {
		e.labelSet = make(map[string]struct{}, 64)
	}
	if len(e.labelSet) == 0 {
		for k := range e.labels {
			if !e.labels[k].special {
				e.labelSet[string(e.labels[k].name)] = struct{}{}
			}
		}
	}
	_, dup := e.labelSet[string(tok)]
	return dup
}
