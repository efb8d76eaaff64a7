package report

import (
	"crypto/rand"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
)

// Untrusted text on a terminal (issue 14, case 5). Every name, error message,
// label value and HELP text comes from a cluster or a file, and is printed in
// table, wide and markdown output. Two layers keep it inert:
//
//   - Sanitize, applied by every cell writer (Table, KeyValues, Markdown,
//     Findings), turns each control character into a visible escape, so a
//     newline in a name cannot break a table row;
//   - terminalSafe, applied by Emit to the whole output of every human
//     format, escapes whatever control character is left (a renderer that
//     printed a name with Fprintf), so no renderer can forget it.
//
// Colour is the one control sequence dorisdiag itself prints. Style does not
// write ESC: it writes a marker with a per-process random nonce, which
// terminalSafe turns into the SGR sequence (or drops, without colour). Text
// from a cluster cannot forge a marker it does not know the nonce of; a
// marker-like sequence without it is escaped like any other odd character.
// JSON is never touched: a program gets the bytes as the cluster sent them.

const (
	markOpen  = '\uE000' // private use: never meaningful in a name
	markClose = '\uE001'
)

var (
	// markNonce is drawn at the first marker, not at start: reading
	// crypto/rand seeds its generator, which no command without colour
	// needs (docs/performance.md "Start-up and binary size").
	markNonce = sync.OnceValue(newNonce)
	sgrMu     sync.Mutex
	sgrList   []string
	sgrIndex  = map[string]int{}
)

// newNonce is four random private-use runes (U+E100–U+E1FF).
func newNonce() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("report: no randomness for the colour marker: " + err.Error())
	}
	var s strings.Builder
	for _, x := range b {
		s.WriteRune(0xE100 + rune(x))
	}
	return s.String()
}

// mark is the marker standing for one SGR sequence.
func mark(sgr string) string {
	sgrMu.Lock()
	i, ok := sgrIndex[sgr]
	if !ok {
		i = len(sgrList)
		sgrList = append(sgrList, sgr)
		sgrIndex[sgr] = i
	}
	sgrMu.Unlock()
	return string(markOpen) + markNonce() + strconv.Itoa(i) + string(markClose)
}

// readMark reads a marker at the start of s: the SGR it stands for and its
// length in bytes; ok=false when s does not start with a genuine marker.
func readMark(s string) (sgr string, n int, ok bool) {
	open := string(markOpen) + markNonce()
	if !strings.HasPrefix(s, open) {
		return "", 0, false
	}
	rest := s[len(open):]
	end := strings.IndexRune(rest, markClose)
	if end <= 0 {
		return "", 0, false
	}
	i, err := strconv.Atoi(rest[:end])
	if err != nil {
		return "", 0, false
	}
	sgrMu.Lock()
	defer sgrMu.Unlock()
	if i < 0 || i >= len(sgrList) {
		return "", 0, false
	}
	return sgrList[i], len(open) + end + utf8.RuneLen(markClose), true
}

// escapeRune is the visible form of a character that must not reach a
// terminal raw, or "" when r may be printed as it is. \n is escaped too:
// callers that keep line breaks split on them first.
func escapeRune(r rune) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r == 0x1b:
		return `\e`
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf(`\x%02x`, r)
	case r >= 0x80 && r <= 0x9f: // C1, including CSI (U+009B)
		return fmt.Sprintf(`\u%04x`, r)
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		// bidi embeddings, overrides and isolates, and the marks
		return fmt.Sprintf(`\u%04x`, r)
	case r == markOpen || r == markClose:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return ""
}

// Sanitize returns s with every control character (C0 including newline and
// tab, DEL, C1), ESC and bidi control shown as a visible escape (\n, \e,
// \x07, \u202e), and invalid UTF-8 as \xNN. Genuine colour markers of Style
// are kept. It is the one escaping function of human output.
func Sanitize(s string) string {
	return escapeText(s, false)
}

func escapeText(s string, keepNewline bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if _, n, ok := readMark(s[i:]); ok {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		if keepNewline && r == '\n' {
			b.WriteByte('\n')
		} else if e := escapeRune(r); e != "" {
			b.WriteString(e)
		} else {
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// terminalSafe is what Emit does to the whole output of a human format:
// escape every control character but the line breaks, then turn the colour
// markers into SGR sequences (color) or drop them.
func terminalSafe(s string, color bool) string {
	s = escapeText(s, true)
	if !strings.ContainsRune(s, markOpen) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if sgr, n, ok := readMark(s[i:]); ok {
			if color {
				b.WriteString(sgr)
			}
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// stripMarks removes the colour markers (for measuring).
func stripMarks(s string) string {
	if !strings.ContainsRune(s, markOpen) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if _, n, ok := readMark(s[i:]); ok {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// TextWidth is the number of terminal columns s takes (colour markers and
// escape sequences take none; wide characters two).
func TextWidth(s string) int { return lipgloss.Width(stripMarks(s)) }

// Truncate cuts s to at most n columns by replacing its middle with "…", so
// that both the start and the end of a long name stay readable
// ("demo.__doris_ivm_st…144l_voa"). Text that must be cut loses its colour;
// n < 2 keeps s.
func Truncate(s string, n int) string {
	if n < 2 || TextWidth(s) <= n {
		return s
	}
	s = stripMarks(s)
	rs := []rune(s)
	budget := n - 1 // the ellipsis
	headW := (budget + 1) / 2
	tailW := budget - headW
	var head, tail []rune
	w := 0
	for _, r := range rs {
		rw := lipgloss.Width(string(r))
		if w+rw > headW {
			break
		}
		head = append(head, r)
		w += rw
	}
	w = 0
	for i := len(rs) - 1; i >= len(head); i-- {
		rw := lipgloss.Width(string(rs[i]))
		if w+rw > tailW {
			break
		}
		tail = append([]rune{rs[i]}, tail...)
		w += rw
	}
	return string(head) + "…" + string(tail)
}

// Wrap breaks prose at spaces into lines of at most width columns, the
// first prefixed by first and the others by indent (width <= 0: one line). A
// word longer than a line is kept whole on its own line: it is never cut.
func Wrap(text string, width int, first, indent string) []string {
	if width <= 0 || TextWidth(first+text) <= width {
		return []string{unglue(first + text)}
	}
	lines := wrapWords(text, width, first, indent)
	for i, l := range lines {
		lines[i] = unglue(l)
	}
	return lines
}

// glue is the non-breaking space: Wrap never breaks a line there ("4.8
// GiB", "×5" with its reason), and prints it as a plain space.
const glue = "\u00a0"

// Glue joins the words of s with non-breaking spaces (Wrap keeps them on
// one line).
func Glue(s string) string { return strings.ReplaceAll(s, " ", glue) }

func unglue(s string) string { return strings.ReplaceAll(s, glue, " ") }

// words splits prose at its spaces, not at a non-breaking one (glue).
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
}

func wrapWords(text string, width int, first, indent string) []string {
	var lines []string
	line, lw := first, TextWidth(first)
	empty := true
	for _, word := range words(text) {
		ww := TextWidth(word)
		if !empty && lw+1+ww > width {
			lines = append(lines, line)
			line, lw, empty = indent, TextWidth(indent), true
		}
		if !empty {
			line += " "
			lw++
		}
		line += word
		lw += ww
		empty = false
	}
	return append(lines, line)
}

// TruncateEnd cuts prose to at most n columns at its end, after a whole
// word, and marks the cut with "…" ("refreshes fail with CHANGELOG_BROKEN:
// the internal…"): a sentence keeps its beginning and never loses the middle
// of a word (Truncate is for identifiers). Punctuation left dangling before
// the cut is dropped. Text whose first word alone is too long is one token
// (an identifier): it is cut in the middle. n < 2 keeps s.
func TruncateEnd(s string, n int) string {
	if n < 2 || TextWidth(s) <= n {
		return unglue(s)
	}
	line := ""
	for _, w := range words(s) {
		next := w
		if line != "" {
			next = line + " " + w
		}
		if TextWidth(trimDangling(next))+1 > n {
			break
		}
		line = next
	}
	if line = trimDangling(line); line == "" {
		return Truncate(unglue(s), n)
	}
	return unglue(line) + "…"
}

// trimDangling drops the spaces and separating punctuation (",", ";", ":",
// a dash) a cut leaves at the end of a line.
// A last word of symbols only ("(>", "—") is dropped with them.
func trimDangling(s string) string {
	for {
		t := strings.TrimRight(s, " ,;:")
		if i := strings.LastIndexByte(t, ' '); i >= 0 && !strings.ContainsFunc(t[i+1:], isWordRune) {
			t = t[:i]
		}
		if t == s {
			return s
		}
		s = t
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// WrapMax is Wrap in at most maxLines lines: when the text needs more, the
// last line is cut at its end after a whole word (TruncateEnd). maxLines <= 0
// or width <= 0: Wrap.
func WrapMax(text string, width, maxLines int, first, indent string) []string {
	if maxLines <= 0 || width <= 0 || TextWidth(first+text) <= width {
		return Wrap(text, width, first, indent)
	}
	lines := wrapWords(text, width, first, indent)
	if len(lines) <= maxLines {
		return Wrap(text, width, first, indent)
	}
	// The lines kept, then the rest of the text on the last line, cut to
	// fit.
	kept := make([]string, 0, maxLines)
	used := 0
	for i, l := range lines[:maxLines-1] {
		p := indent
		if i == 0 {
			p = first
		}
		used += len(words(strings.TrimPrefix(l, p)))
		kept = append(kept, unglue(l))
	}
	rest := strings.Join(words(text)[used:], " ")
	p := indent
	if maxLines == 1 {
		p = first
	}
	return append(kept, p+TruncateEnd(rest, width-TextWidth(p)))
}

// Para writes text as prose that fits st's width (Wrap), the first line
// after first and the others after indent; the text is sanitized.
func (st Style) Para(w io.Writer, first, indent, text string) {
	for _, l := range Wrap(Sanitize(text), st.width, first, indent) {
		_, _ = io.WriteString(w, strings.TrimRight(l, " ")+"\n")
	}
}

// SQLLines lays one SQL statement out in lines of at most width columns,
// breaking only where SQL allows a line break: before FROM, WHERE, AND, OR,
// ORDER BY, GROUP BY and LIMIT, then after a comma, never inside a quoted
// literal or identifier and never after a "--" comment began (the rest of
// the line is the comment). Pasted into a MySQL client it is the same
// statement. A piece with no such place stays whole (width <= 0: one line).
func SQLLines(stmt string, width int) []string {
	if width <= 0 || TextWidth(stmt) <= width {
		return []string{stmt}
	}
	const indent = "  "
	var lines []string
	rest := stmt
	first := true
	for {
		avail := width
		if !first {
			avail -= len(indent)
		}
		if TextWidth(rest) <= avail {
			break
		}
		cut := sqlBreak(rest, avail)
		if cut <= 0 {
			break
		}
		line := strings.TrimRight(rest[:cut], " ")
		if !first {
			line = indent + line
		}
		lines = append(lines, line)
		rest = strings.TrimLeft(rest[cut:], " ")
		first = false
	}
	if !first {
		rest = indent + rest
	}
	return append(lines, rest)
}

// sqlBreak is the byte offset of the last place to break s within avail
// columns (a keyword break preferred to a comma), 0 when there is none.
func sqlBreak(s string, avail int) int {
	keywords := []string{" FROM ", " WHERE ", " AND ", " OR ", " ORDER BY ", " GROUP BY ", " LIMIT "}
	var quote byte
	bestKw, bestComma := 0, 0
	col := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 || c >= 0xC0 {
			col++
		}
		if col > avail {
			break
		}
		switch {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"' || c == '`':
			quote = c
			continue
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			// A comment runs to the end of the line: no break after it.
			return max(bestKw, bestComma)
		case c == ',' && i+1 < len(s) && s[i+1] == ' ':
			if i > 0 {
				bestComma = i + 1
			}
		case c == ' ':
			for _, k := range keywords {
				if strings.HasPrefix(s[i:], k) && i > 0 {
					bestKw = i
				}
			}
		}
	}
	if bestKw > 0 {
		return bestKw
	}
	return bestComma
}
