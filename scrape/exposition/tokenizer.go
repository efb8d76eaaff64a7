package exposition

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
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
//     each label value is, for Fix.

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

// valSpan is a label value or HELP text that Fix rewrites.
type valSpan struct {
	s, e  int
	help  bool
	bad   bool
	label []byte
	// closeBS: the value's closing quote was preceded by a backslash that
	// belongs to the value (Doris user "a\").
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

func nameStart(b byte, metric bool) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || b == '"' || (metric && b == ':')
}

func nameCont(b byte, metric, quoted bool) bool {
	return quoted || nameStart(b, metric) || (b >= '0' && b <= '9')
}

// unsafeString views b as a string without copying; only for calls that do
// not keep the string (strconv copies it into its errors).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseFloat is expfmt's parseFloat: strconv.ParseFloat without 'p', 'P', '_'.
func parseFloat(b []byte) (float64, bool) {
	if bytes.IndexByte(b, '_') >= 0 || bytes.IndexByte(b, 'p') >= 0 || bytes.IndexByte(b, 'P') >= 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(unsafeString(b), 64)
	return v, err == nil
}

// at returns the byte at i: the record's bytes, then '\n' when a line feed
// ends it; false at the end of the input.
func (e *engine) at(i int) (byte, bool) {
	if i < e.n {
		return e.rec[i], true
	}
	if e.hasLF && i == e.n {
		return '\n', true
	}
	return 0, false
}

func (e *engine) skipBlanks(i int) int {
	for i < e.n && isBlank(e.rec[i]) {
		i++
	}
	return i
}

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
	simple := true
	quoted, escaped := false, false
	mark := len(e.arena)
	e.quotedName = false
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
	if idx, ok := e.famIdx[string(tok)]; ok {
		e.cur, e.recFam = idx, idx
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
	if base != nil {
		if idx, ok := e.famIdx[string(base)]; ok && e.fams[idx].typ == typeSummary {
			e.cur, e.recFam = idx, idx
			return stOK
		}
	}
	if isBucket {
		base = tok[:n-7]
	}
	if base != nil {
		if idx, ok := e.famIdx[string(base)]; ok && e.fams[idx].typ.isHist() {
			e.cur, e.recFam = idx, idx
			e.isHistCount, e.isHistSum = isCount, isSum
			return stOK
		}
	}
	if e.noMutate {
		e.cur = phantom
		e.phantomName = tok
		return stOK
	}
	name := string(tok)
	e.famIdx[name] = int32(len(e.fams))
	e.cur = int32(len(e.fams))
	e.recFam = e.cur
	e.fams = append(e.fams, famState{name: name, firstLine: e.lineOf(pos)})
	return stOK
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
	i = e.skipBlanks(i)
	if _, ok := e.at(i); !ok {
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
		e.fail(RuleHelpDuplicate, ns, nil, nil, "second HELP line for metric name %q (first on line %d)", e.curName(), e.fams[e.cur].helpLine)
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
		e.spans = append(e.spans, valSpan{s: hs, e: e.n, help: true, bad: bad})
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
			e.fail(RuleTypeAfterSamples, ns, nil, nil, "TYPE line for %q after its samples (first sample on line %d)", f.name, f.firstSample)
		} else {
			e.fail(RuleTypeDuplicate, ns, nil, nil, "second TYPE line for metric name %q (first on line %d)", f.name, f.typeLine)
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

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
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

// parseSample ports readingMetricName .. startTimestamp.
func (e *engine) parseSample(i int, braces bool) status {
	e.labels = e.labels[:0]
	metricNil := true
	namePresent := false
	var nameTok []byte
	nameOff := i
	spaceBefore := false
	if !braces {
		tok, j, st := e.readName(i, true)
		if st != stOK {
			return st
		}
		if len(tok) == 0 {
			e.fail(RuleMetricNameInvalid, i, nil, nil, "invalid metric name: a sample line must start with a name, '{' or '#'")
			return stFail
		}
		if st := e.setOrCreate(tok, i); st != stOK {
			return st
		}
		e.ensureTyped()
		nameTok = tok
		metricNil = false
		i = j
		if b, _ := e.at(i); isBlank(b) {
			i = e.skipBlanks(i)
			if _, ok := e.at(i); !ok {
				return e.eof(i)
			}
			spaceBefore = true
		}
	}
	// readingLabels: a summary or histogram resets quantile and bucket.
	if t := e.curType(); t == typeSummary || t.isHist() {
		e.labelsInit = true
		e.curQuantile = math.NaN()
		e.curBucket = math.NaN()
	}
	b, _ := e.at(i)
	if b == '{' {
		if spaceBefore {
			e.sawSpaceBefore = true
		}
		i++
	labels:
		for {
			i = e.skipBlanks(i)
			b, ok := e.at(i)
			if !ok {
				return e.eof(i)
			}
			if b == '}' {
				if metricNil {
					e.fail(RuleMetricNameInvalid, i, nil, nil, "invalid metric name: a label set without a metric name")
					return stFail
				}
				i = e.skipBlanks(i + 1)
				if _, ok := e.at(i); !ok {
					return e.eof(i)
				}
				break labels
			}
			ns := i
			tok, j, st := e.readName(i, false)
			if st != stOK {
				return st
			}
			quoted := e.quotedName
			if len(tok) == 0 {
				e.fail(RuleLabelNameInvalid, i, nil, nil, "invalid label name for metric %q", e.curName())
				return stFail
			}
			i = j
			if b, _ := e.at(i); isBlank(b) {
				i = e.skipBlanks(i)
				if _, ok := e.at(i); !ok {
					return e.eof(i)
				}
			}
			b, _ = e.at(i)
			if b != '=' {
				if braces {
					if namePresent {
						e.fail(RuleLabelSetSyntax, ns, tok, nil, "multiple metric names for metric %q", e.curName())
						return stFail
					}
					switch b {
					case ',', '}':
						if st := e.setOrCreate(tok, ns); st != stOK {
							return st
						}
						e.ensureTyped()
						metricNil = false
						namePresent = true
						nameTok = tok
						nameOff = ns
						if b == ',' {
							i++
							continue
						}
						i = e.skipBlanks(i + 1)
						if _, ok := e.at(i); !ok {
							return e.eof(i)
						}
						break labels
					default:
						e.fail(RuleLabelSetSyntax, i, tok, nil, "unexpected %q after metric name %q inside braces", b, tok)
						return stFail
					}
				}
				e.fail(RuleLabelNameInvalid, i, tok, nil, "expected '=' after label name %q, found %q", tok, b)
				return stFail
			}
			if string(tok) == "__name__" {
				e.fail(RuleLabelNameInvalid, ns, tok, nil, "label name %q is reserved", tok)
				return stFail
			}
			if quoted && !utf8.Valid(tok) {
				e.fail(RuleLabelNameInvalid, ns, tok, nil, "invalid label name %q", tok)
				return stFail
			}
			t := e.curType()
			special := (t == typeSummary && string(tok) == "quantile") || (t.isHist() && string(tok) == "le")
			if !special && e.dupLabel(tok) {
				e.fail(RuleLabelNameDuplicate, ns, tok, nil, "duplicate label name %q for metric %q", tok, e.curName())
				if e.strict {
					return stFail
				}
			}
			i = e.skipBlanks(i + 1)
			b, ok = e.at(i)
			if !ok {
				return e.eof(i)
			}
			if b != '"' {
				e.fail(RuleLabelValueNotQuoted, i, tok, nil, "expected '\"' at start of label value, found %q", b)
				return stFail
			}
			vs := i + 1
			var ve, next int
			var value []byte
			if e.strict {
				ve, next, value, st = e.readValueStrict(vs, tok)
			} else {
				ve, next, value, st = e.readValueLenient(vs, tok)
			}
			if st != stOK {
				return st
			}
			e.labels = append(e.labels, label{name: tok, vs: vs, ve: ve, value: value, special: special, nameOffset: ns})
			if len(e.labelSet) > 0 && !special {
				e.labelSet[string(tok)] = struct{}{}
			}
			if !e.valueASCII && !utf8.Valid(value) {
				e.fail(RuleLabelValueInvalidUTF8, firstInvalid(e.rec[:ve], vs), tok, e.rec[vs:ve], "label value is not valid UTF-8")
				if e.strict {
					return stFail
				}
			}
			switch {
			case t == typeSummary:
				if special {
					v, ok := parseFloat(value)
					if !ok {
						e.fail(RuleQuantileInvalid, vs, tok, e.rec[vs:ve], "expected float as value for 'quantile' label, got %q", value)
						if e.strict {
							return stFail
						}
					}
					e.curQuantile = v
				} else if !e.labelsInit {
					e.fail(RuleParserCrash, vs, tok, e.rec[vs:ve], "expfmt panics on this line (assignment to entry in nil map): a summary named inside braces before any summary or histogram line")
					if e.strict {
						return stFail
					}
				}
			case t.isHist():
				if special {
					v, ok := parseFloat(value)
					if !ok {
						e.fail(RuleBucketInvalid, vs, tok, e.rec[vs:ve], "expected float as value for 'le' label, got %q", value)
						if e.strict {
							return stFail
						}
					}
					e.curBucket = v
				} else if !e.labelsInit {
					e.fail(RuleParserCrash, vs, tok, e.rec[vs:ve], "expfmt panics on this line (assignment to entry in nil map): a histogram named inside braces before any summary or histogram line")
					if e.strict {
						return stFail
					}
				}
			}
			i = e.skipBlanks(next)
			b, ok = e.at(i)
			if !ok {
				return e.eof(i)
			}
			switch b {
			case ',':
				i++
			case '}':
				if metricNil {
					e.fail(RuleMetricNameInvalid, i, nil, nil, "invalid metric name: a label set without a metric name")
					return stFail
				}
				i = e.skipBlanks(i + 1)
				if _, ok := e.at(i); !ok {
					return e.eof(i)
				}
				break labels
			default:
				e.fail(RuleLabelValueRawQuote, ve, tok, e.rec[vs:e.n], "unexpected end of label value %q: a raw '\"' inside the value, or no ',' or '}' after it", value)
				return stFail
			}
		}
	}
	// readingValue
	vs := i
	for {
		b, ok := e.at(i)
		if !ok {
			return e.eof(i)
		}
		if isBlank(b) || b == '\n' {
			break
		}
		i++
	}
	v, ok := parseFloat(e.rec[vs:i])
	if !ok {
		e.fail(RuleSampleValueInvalid, vs, nil, e.rec[vs:i], "expected float as value, got %q", e.rec[vs:i])
		return stFail
	}
	if t := e.curType(); t.isHist() {
		check := false
		what := "bucket population"
		switch {
		case e.isHistCount:
			check, what = true, "count"
		case e.isHistSum:
		case !math.IsNaN(e.curBucket):
			check = true
		}
		if check {
			if u := uint64(v); v != float64(u) && v < 0 {
				e.fail(RuleHistogramNegative, vs, nil, e.rec[vs:i], "negative %s for histogram %q", what, e.curName())
				return stFail
			}
		}
	}
	b, _ = e.at(i)
	if b != '\n' {
		// startTimestamp
		i = e.skipBlanks(i)
		ts := i
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
		if ts == i {
			e.fail(RuleTrailingText, vs, nil, e.rec[vs:], "blank after the value and no timestamp: expected integer as timestamp, got \"\"")
			return stFail
		}
		if _, err := strconv.ParseInt(unsafeString(e.rec[ts:i]), 10, 64); err != nil {
			e.fail(RuleTimestampInvalid, ts, nil, e.rec[ts:i], "expected integer as timestamp, got %q", e.rec[ts:i])
			return stFail
		}
		if b != '\n' {
			if !e.hasLF {
				return e.eof(e.n)
			}
			e.fail(RuleTrailingText, i, nil, e.rec[i:], "spurious string after timestamp: %q", e.rec[i:])
			return stFail
		}
	}
	if i != e.n {
		// A raw line feed outside a label value in a joined record.
		e.fail(RuleLabelValueRawNewline, i, nil, nil, "raw line feed")
		return stFail
	}
	e.sample = sampleInfo{name: nameTok, nameOff: nameOff, value: v, valueOff: vs}
	return stOK
}

// readValueStrict ports readTokenAsLabelValue. vs is just after the quote.
func (e *engine) readValueStrict(vs int, lbl []byte) (ve, next int, value []byte, st status) {
	i := vs
	var or byte
	for i < e.n {
		c := e.rec[i]
		or |= c
		switch c {
		case '"':
			e.valueASCII = or < 0x80
			return i, i + 1, e.rec[vs:i], stOK
		case '\\':
			return e.readValueStrictEscaped(vs, lbl)
		case '\n':
			e.fail(RuleLabelValueRawNewline, i, lbl, e.rec[vs:i], "label value %q contains unescaped new-line", e.rec[vs:i])
			return 0, 0, nil, stFail
		}
		i++
	}
	if e.hasLF {
		e.fail(RuleLabelValueRawNewline, i, lbl, e.rec[vs:i], "label value %q contains unescaped new-line", e.rec[vs:i])
		return 0, 0, nil, stFail
	}
	return 0, 0, nil, e.eof(i)
}

func (e *engine) readValueStrictEscaped(vs int, lbl []byte) (ve, next int, value []byte, st status) {
	e.valueASCII = false
	mark := len(e.arena)
	escaped := false
	for i := vs; ; i++ {
		b, ok := e.at(i)
		if !ok {
			return 0, 0, nil, e.eof(i)
		}
		if escaped {
			switch b {
			case '"', '\\':
				e.arena = append(e.arena, b)
			case 'n':
				e.arena = append(e.arena, '\n')
			default:
				e.fail(RuleLabelValueBadEscape, i-1, lbl, e.rec[vs:], "invalid escape sequence '\\%c'", b)
				return 0, 0, nil, stFail
			}
			escaped = false
			continue
		}
		switch b {
		case '"':
			return i, i + 1, e.arena[mark:], stOK
		case '\n':
			e.fail(RuleLabelValueRawNewline, i, lbl, e.rec[vs:i], "label value contains unescaped new-line")
			return 0, 0, nil, stFail
		case '\\':
			escaped = true
		default:
			e.arena = append(e.arena, b)
		}
	}
}

func firstInvalid(b []byte, from int) int {
	for i := from; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return from
}

func escDisplay(rec []byte, i int) string {
	if i+1 < len(rec) {
		if c := rec[i+1]; c > 0x20 && c < 0x7f {
			return "'\\" + string(c) + "'"
		}
		return "'\\" + DisplayValue(rec[i+1:i+2]) + "'"
	}
	return `'\' at the end of the line`
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
