package exposition

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

// Sample lines: expfmt readingMetricName .. startTimestamp, and the strict
// label value reader.

// parseSample ports readingMetricName .. startTimestamp.
func (e *engine) parseSample(i int, braces bool) status {
	e.labels = e.labels[:0]
	metricNil := true
	namePresent := false
	var nameTok []byte
	nameOff := i
	spaceBefore := false
	inOrder := true // every label so far at its place in the family's list
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
			if i = e.skipBlanks(i); e.atEnd(i) {
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
				if i = e.skipBlanks(i + 1); e.atEnd(i) {
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
				if i = e.skipBlanks(i); e.atEnd(i) {
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
						// the labels before were matched against another family's
						inOrder = inOrder && len(e.labels) == 0
						e.ensureTyped()
						metricNil = false
						namePresent = true
						nameTok = tok
						nameOff = ns
						if b == ',' {
							i++
							continue
						}
						if i = e.skipBlanks(i + 1); e.atEnd(i) {
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
			if len(e.labels) >= e.opts.MaxLabels {
				e.fail(RuleLabelLimit, ns, tok, nil, "sample of %q has more than %d labels, the limit; the rest of the line is not checked", e.curName(), e.opts.MaxLabels)
				return stFail
			}
			// A line that names its labels in the order of the family's
			// distinct label names (nearly every line) has no duplicate.
			k := len(e.labels)
			inOrder = inOrder && e.cur >= 0 && k < len(e.fams[e.cur].labels) && e.fams[e.cur].labels[k] == string(tok)
			if !special && !inOrder && e.dupLabel(tok) {
				// One duplicate per line is listed, the others counted:
				// per-line state stays O(1) in the number of duplicates.
				if !e.strict && e.dupSeen {
					e.dropped = append(e.dropped, RuleLabelNameDuplicate)
				} else {
					e.dupSeen = !e.strict
					e.fail(RuleLabelNameDuplicate, ns, tok, nil, "duplicate label name %q for metric %q", tok, e.curName())
				}
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
				if i = e.skipBlanks(i + 1); e.atEnd(i) {
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
	e.labelsInOrder = inOrder
	return stOK
}

// readValueStrict ports readTokenAsLabelValue. vs is just after the quote.
func (e *engine) readValueStrict(vs int, lbl []byte) (ve, next int, value []byte, st status) {
	rec := e.rec
	i := skipPlainASCII(rec, vs)
	var or byte
	for k, c := range rec[i:] {
		or |= c
		switch c {
		case '"':
			e.valueASCII = or < 0x80
			return i + k, i + k + 1, rec[vs : i+k], stOK
		case '\\':
			return e.readValueStrictEscaped(vs, lbl)
		case '\n':
			i += k
			e.fail(RuleLabelValueRawNewline, i, lbl, rec[vs:i], "label value %q contains unescaped new-line", rec[vs:i])
			return 0, 0, nil, stFail
		}
	}
	i = len(rec)
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

// skipPlainASCII skips, 8 bytes at a time, the bytes from i that need no
// look in a label value: ASCII other than '"', '\\' and line feed. It
// stops at the word that holds one (or fewer than 8 bytes before the end);
// the caller reads on from there byte by byte.
func skipPlainASCII(rec []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(rec); i += 8 {
		w := binary.LittleEndian.Uint64(rec[i:])
		q, b, n := w^('"'*lo), w^('\\'*lo), w^('\n'*lo)
		if (w|(q-lo)&^q|(b-lo)&^b|(n-lo)&^n)&hi != 0 {
			break
		}
	}
	return i
}
