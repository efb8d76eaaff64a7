package exposition

import (
	"fmt"
)

// maxQuoteTries bounds the look-ahead of the raw-quote heuristic per value,
// so a hostile line with thousands of quotes stays linear-ish.
const maxQuoteTries = 64

// readValueLenient reads a label value after its opening quote, deciding
// which double quote closes it. expfmt takes the first one; a producer that
// writes values raw can put a quote inside the value, as in {a="x"y", b="z"}.
// The heuristic: an unescaped quote closes the value only when it is
// followed by optional blanks, then ',' or '}', and the rest of the line
// still parses (restParses). When no quote passes, the first one followed by
// ',' or '}' closes it; failing that, a quote right after a backslash that
// passes (user "a\" written raw as "a\"). With none of these, the
// value is open to the end of the record (stOpenValue), which may be a
// sample a raw line feed split.
func (e *engine) readValueLenient(vs int, lbl []byte) (ve, next int, value []byte, st status) {
	e.valueASCII = false
	rec, n := e.rec, e.n
	closeAt, first, tries := -1, -1, 0
	closeBS := false
	for j := vs; j < n; j++ {
		switch rec[j] {
		case '\\':
			if j+1 < n && (rec[j+1] == '\\' || rec[j+1] == 'n' || rec[j+1] == '"') {
				j++
			}
		case '"':
			k := e.skipBlanks(j + 1)
			if k < n && (rec[k] == ',' || rec[k] == '}') {
				if first < 0 {
					first = j
				}
				if tries >= maxQuoteTries || e.budget <= 0 {
					closeAt = first // out of look-ahead: expfmt's choice
					break
				}
				tries++
				if e.restParses(k) {
					closeAt = j
				}
			}
		}
		if closeAt >= 0 {
			break
		}
	}
	if closeAt < 0 {
		closeAt = first
	}
	if closeAt < 0 {
		tries = 0
		for j := vs; j+1 < n && tries < maxQuoteTries; j++ {
			if rec[j] == '\\' && rec[j+1] == '"' {
				k := e.skipBlanks(j + 2)
				if k < n && (rec[k] == ',' || rec[k] == '}') {
					tries++
					if e.restParses(k) {
						closeAt, closeBS = j+1, true
						break
					}
				}
			}
		}
	}
	if closeAt < 0 {
		e.openValueAt = vs
		e.openLabel = lbl
		return 0, 0, nil, stOpenValue
	}
	// Report each problem inside the value and decode it literally: a bad
	// escape is a backslash that belongs to the value.
	mark := len(e.arena)
	for j := vs; j < closeAt; j++ {
		b := rec[j]
		switch b {
		case '\\':
			if closeBS && j == closeAt-1 {
				e.problem(RuleLabelValueBadEscape, j, lbl, rec[vs:closeAt],
					`a backslash right before the closing quote: expfmt reads \" as an escaped quote and the value never ends`,
					`write the backslash as \\`)
				e.arena = append(e.arena, '\\')
				continue
			}
			if j+1 < closeAt {
				switch rec[j+1] {
				case '\\', '"':
					e.arena = append(e.arena, rec[j+1])
					j++
					continue
				case 'n':
					e.arena = append(e.arena, '\n')
					j++
					continue
				}
			}
			e.problem(RuleLabelValueBadEscape, j, lbl, rec[vs:closeAt],
				fmt.Sprintf("invalid escape sequence %s in label value; only \\\\, \\\" and \\n are escapes%s", escDisplay(rec[:closeAt], j), goQuoteHint(rec[:closeAt], j)),
				`write a backslash as \\ (the value is written raw: escape \ as \\, " as \" and line feed as \n)`)
			e.arena = append(e.arena, '\\')
		case '"':
			e.problem(RuleLabelValueRawQuote, j, lbl, rec[vs:closeAt], "unescaped '\"' inside the label value: expfmt ends the value here", `write the quote as \"`)
			e.arena = append(e.arena, '"')
		case '\n':
			e.problem(RuleLabelValueRawNewline, j, lbl, rec[vs:closeAt], "raw line feed inside the label value splits the sample over two lines", `write the line feed as \n`)
			e.arena = append(e.arena, '\n')
		default:
			e.arena = append(e.arena, b)
		}
	}
	if e.collectSpans {
		e.spans = append(e.spans, Span{Start: vs, End: closeAt, Label: lbl})
	}
	if closeBS {
		return closeAt - 1, closeAt + 1, e.arena[mark:], stOK
	}
	return closeAt, closeAt + 1, e.arena[mark:], stOK
}

// restParses checks, on syntax alone, that the rest of a sample line from k
// (a ',' or '}' after a candidate closing quote) parses: label pairs whose
// values end at their first unescaped quote, '}', a float, an optional
// integer timestamp.
func (e *engine) restParses(k int) bool {
	// A budget of scanned bytes per record keeps a hostile line (thousands
	// of quotes and commas) linear: once spent, the heuristic falls back
	// to expfmt's choice.
	if e.budget <= 0 {
		return false
	}
	n := len(e.rec)
	e.budget -= n - k
	return restSyntaxOK(e.rec, k)
}
