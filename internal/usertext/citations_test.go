package usertext

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/internal/screentest"
)

// Issue 13, "Speak to the user, not to our notes": text a user reads cited
// notes the user does not have ("(doris.md §2)", "seed §1", "T9", "BRIEF").
// A citation names the public upstream design (apache/doris#69907, with its
// section names), the Doris documentation, or one of our docs/ pages.

// designRef is how every citation of the upstream design starts.
const designRef = "apache/doris#69907"

var (
	// A design sub task (T0…T12), one of the design's five questions
	// (S1…S5, also in ranges such as S1–S3) or a section sign is only
	// readable next to the design's name, in the same sentence. S takes one
	// digit as a whole word: "5s", "S3 bucket" and "s5" (a JSON key) pass
	// or fail on their own letters, not as a design question; any digit, so
	// a question the design does not have (S6) is flagged too.
	bareTask = regexp.MustCompile(`\bT[0-9]{1,2}\b|\bS[0-9]\b|§`)
	// Words of our own notes.
	internalWord = regexp.MustCompile(`(?i)\bseed\b|\bBRIEF\b|doris\.md|design\.md|wire-audit|go-libraries|style\.md`)
	// A pull request or issue number is readable only with its repository.
	prNumber = regexp.MustCompile(`(apache/doris)?#[0-9]{4,}\b`)
	// The start of a sentence: a full stop, a paragraph, or a new line that
	// starts a table row, a list item, a heading or a code fence.
	sentenceEnd = regexp.MustCompile(`[.!?]["')]?(\s|$)|\n\s*\n|\n\s*(\||[*-] |#|` + "```" + `)`)
)

// citationProblems lists, line by line, each citation in text the user
// cannot follow. prose says whether a line break continues the sentence
// (Markdown paragraphs) or ends it (terminal output, JSON).
func citationProblems(text string, prose bool) []string {
	return citationProblemsFrom(text, prose, 0)
}

// citationProblemsFrom is citationProblems for the citations that start at
// or after from; the text before it is the sentence's context only.
func citationProblemsFrom(text string, prose bool, from int) []string {
	var out []string
	context := func(i, j int) string {
		a, b := strings.LastIndex(text[:i], "\n")+1, strings.Index(text[j:], "\n")
		if b < 0 {
			b = len(text) - j
		}
		line := strings.TrimSpace(text[a : j+b])
		if len(line) > 160 {
			k := max(0, i-a-60)
			line = "…" + line[k:min(len(line), k+140)] + "…"
		}
		return line
	}
	var ends []int // where each sentence starts, in order
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		ends = append(ends, m[1])
	}
	sentenceStart := func(i int) int {
		start := 0
		if k := sort.SearchInts(ends, i+1); k > 0 {
			start = ends[k-1]
		}
		if !prose {
			// A line ends the sentence, unless the next is indented under
			// it: a paragraph wrapped to the terminal.
			ls := strings.LastIndex(text[:i], "\n") + 1
			for k := 0; k < 8 && ls >= 2 && text[ls] == ' ' && text[ls-2] != '\n'; k++ {
				ls = strings.LastIndex(text[:ls-1], "\n") + 1
			}
			start = max(start, ls)
		}
		return start
	}
	for _, m := range bareTask.FindAllStringIndex(text, -1) {
		if m[0] < from {
			continue
		}
		if !strings.Contains(text[sentenceStart(m[0]):m[0]], designRef) {
			out = append(out, "design reference "+strings.TrimSpace(text[m[0]:m[1]])+" without "+designRef+": "+context(m[0], m[1]))
		}
	}
	for _, m := range internalWord.FindAllStringIndex(text, -1) {
		if m[0] < from {
			continue
		}
		out = append(out, "internal note "+text[m[0]:m[1]]+": "+context(m[0], m[1]))
	}
	for _, m := range prNumber.FindAllStringSubmatchIndex(text, -1) {
		if m[0] < from {
			continue
		}
		if m[2] < 0 {
			out = append(out, "bare number "+text[m[0]:m[1]]+": "+context(m[0], m[1]))
		}
	}
	return out
}

func TestCitationProblemsRule(t *testing.T) {
	for _, tc := range []struct {
		text  string
		prose bool
		bad   bool
	}{
		{"refreshes fail: the internal stream expired (T0)", false, true},
		{"rows are skipped (seed T12)", false, true},
		{"see doris.md §2", false, true},
		{"a build with T11 (#69778)", false, true},
		{"cut-off (§3 Definitions)", false, true},
		{"apache/doris#69907 §1 T10, T11", false, false},
		{"the keep-alive TSO (apache/doris#69907 T9)", false, false},
		{"apache/doris#69907 \"Keep-alive TSO for idle IVM partitions\" says\nso (T9).", true, false},
		{"apache/doris#69907 says so\n(T9).", false, true},
		{"  apache/doris#69907 says so, wrapped\n  to the terminal (T9).", false, false},
		{"apache/doris#69907 says so. A build with T9.", false, true},
		{"now 2026-11-30T10:00:00Z, TSO 469067681628160003", false, false},
		{"fuzz targets have small seeds", true, false},
		{"fixed by apache/doris#69778", false, false},
		{"| `T12` |", true, true},
		// The design's questions S1…S5, as bare as the T numbers.
		{"window in which fallbacks are counted (S3)", false, true},
		{"stream state, resume, headroom, pending age (S4)", false, true},
		{"MV refresh history: failed, queued, stuck and fallback refreshes (S1–S3) not diagnosed", false, true},
		{"## S2 — Has my MV stopped refreshing?", true, true},
		{"every stream: retention and S6 stream state not diagnosed", false, true},
		{"apache/doris#69907 §1 S4 (\"succeeds and skips the expired changes\")", false, false},
		{"apache/doris#69907, question S4 (is a stream consumer falling behind?)", true, false},
		{"the five questions of apache/doris#69907, S1 to S5", true, false},
		{"apache/doris#69907 names five questions. S3 is one.", true, true},
		// Not a design question: units, JSON keys, longer words.
		{"5 s a run; timeout 5s; every 30s", false, false},
		{"`overview.s5`, the JSON key s5", false, false},
		{"an S3 bucket or S33", false, true}, // "S3" alone is a whole word: flagged, rewrite it
		{"S33 and S3A and MS3", false, false},
	} {
		if got := len(citationProblems(tc.text, tc.prose)) > 0; got != tc.bad {
			t.Errorf("%q: flagged %v, want %v (%q)", tc.text, got, tc.bad, citationProblems(tc.text, tc.prose))
		}
	}
}

// citationScanner checks terminal or JSON output (a line ends a sentence)
// as it is written, in one pass over it: the output is never held (the
// JSON of `streams --demo=scale` alone is over 100 MB). A line that may hold
// a citation (mayCite) is checked with the lines it continues — indented
// under a non-empty line, at most 8 back, as citationProblems reads a
// sentence when prose is false — which are the only lines kept.
type citationScanner struct {
	partial  []byte
	ring     [8][]byte // the last lines read, each with its newline
	head, n  int       // ring[head] is the oldest of n lines
	problems []string
	window   []byte
}

func (s *citationScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			break
		}
		if len(s.partial) > 0 {
			s.partial = append(s.partial, p[:i+1]...)
			s.line(s.partial)
			s.partial = s.partial[:0]
		} else {
			s.line(p[:i+1])
		}
		p = p[i+1:]
	}
	return n, nil
}

// WriteString is Write of a string (fmt.Fprint and io.WriteString use it).
func (s *citationScanner) WriteString(text string) (int, error) { return s.Write([]byte(text)) }

// done checks an unterminated last line and returns the problems found.
func (s *citationScanner) done() []string {
	if len(s.partial) > 0 {
		s.line(s.partial)
		s.partial = nil
	}
	return s.problems
}

// kept returns the i-th kept line, 0 the oldest.
func (s *citationScanner) kept(i int) []byte { return s.ring[(s.head+i)%len(s.ring)] }

func (s *citationScanner) line(l []byte) {
	if bytes.IndexByte(l, 0x1b) >= 0 {
		l = screentest.SGR.ReplaceAll(l, nil) // colour on a terminal: the text as it is read
	}
	if mayCite(l) {
		// The window: l, and the lines before it while the first one is
		// indented and the one above it is not empty (its newline aside).
		w, first := s.n, l
		for k := 0; k < 8 && w > 0 && len(first) > 0 && first[0] == ' ' && len(s.kept(w-1)) > 1; k++ {
			w--
			first = s.kept(w)
		}
		s.window = s.window[:0]
		for i := w; i < s.n; i++ {
			s.window = append(s.window, s.kept(i)...)
		}
		from := len(s.window)
		s.window = append(s.window, l...)
		s.problems = append(s.problems, citationProblemsFrom(string(s.window), false, from)...)
	}
	// Keep l, over the oldest line when the ring is full.
	slot := (s.head + s.n) % len(s.ring)
	if s.n == len(s.ring) {
		slot = s.head
		s.head = (s.head + 1) % len(s.ring)
	} else {
		s.n++
	}
	s.ring[slot] = append(s.ring[slot][:0], l...)
}

// mayCite reports whether line can hold a match of bareTask, internalWord or
// prNumber: a superset test on bytes, so that the regular expressions run on
// a few lines only. A line with non-ASCII bytes is always checked (case
// folding in internalWord is Unicode's).
func mayCite(line []byte) bool {
	for i := 0; i < len(line); i++ {
		b := line[i]
		if b >= 0x80 {
			return true
		}
		next := byte(0)
		if i+1 < len(line) {
			next = line[i+1]
		}
		switch b | 0x20 { // ASCII lower case (and '#' stays '#')
		case 't':
			if b == 'T' && next >= '0' && next <= '9' {
				return true
			}
		case 's':
			if b == 'S' && next >= '0' && next <= '9' {
				return true
			}
			if foldPrefix(line[i:], "seed") || foldPrefix(line[i:], "style.md") {
				return true
			}
		case '#':
			if next >= '0' && next <= '9' {
				return true
			}
		case 'b':
			if foldPrefix(line[i:], "brief") {
				return true
			}
		case 'd':
			if foldPrefix(line[i:], "doris.md") || foldPrefix(line[i:], "design.md") {
				return true
			}
		case 'w':
			if foldPrefix(line[i:], "wire-audit") {
				return true
			}
		case 'g':
			if foldPrefix(line[i:], "go-libraries") {
				return true
			}
		}
	}
	return false
}

// foldPrefix: b starts with the lower-case ASCII word w, in any case.
func foldPrefix(b []byte, w string) bool {
	if len(b) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// The streaming pass finds what citationProblems finds on the whole text:
// the rule's cases, and outputs wrapped to the terminal and indented JSON.
func TestCitationScannerAgreesWithWholeText(t *testing.T) {
	texts := []string{
		"  apache/doris#69907 says so, wrapped\n  to the terminal (T9).\n",
		"apache/doris#69907 says so\n  (T9), wrapped\n",
		"x\n\n  (T9) after an empty line\n",
		"{\n  \"detail\": \"apache/doris#69907 T9\",\n  \"next\": \"see S4\"\n}\n",
		"a\n b\n  c\n   d\n    e\n     f\n      g\n       h\n        i\n         j (T9) seed #12345\n",
		"no newline at the end: BRIEF",
		"Design.MD and ſeed and Wire-Audit and GO-LIBRARIES § 3\n",
	}
	for _, tc := range []struct {
		text  string
		prose bool
		bad   bool
	}{
		{"refreshes fail: the internal stream expired (T0)", false, true},
		{"apache/doris#69907 says so\n(T9).", false, true},
		{"  apache/doris#69907 says so, wrapped\n  to the terminal (T9).", false, false},
		{"fixed by apache/doris#69778", false, false},
	} {
		texts = append(texts, tc.text)
	}
	for _, text := range texts {
		want := citationProblems(text, false)
		for _, chunk := range []int{1, 3, len(text) + 1} {
			sc := &citationScanner{}
			for i := 0; i < len(text); i += chunk {
				sc.Write([]byte(text[i:min(len(text), i+chunk)]))
			}
			got := sc.done()
			sort.Strings(got)
			w := append([]string(nil), want...)
			sort.Strings(w)
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("%q in chunks of %d: streaming found %q, the whole text %q", text, chunk, got, w)
			}
		}
	}
}

// TestUserTextCitesOnlyPublicSources reads every command on every bundled
// scenario in every human and JSON format, every explain of every code and
// of every stream and MV, every fixture payload linted (the one generation,
// everyOutput), prints every --help, and reads docs/*.md and README.md: none
// of it may cite our notes. Each output is read once, as it is written
// (citationScanner).
func TestUserTextCitesOnlyPublicSources(t *testing.T) {
	t.Parallel() // reads the one generation (everyOutput)
	g := everyOutput(t)
	seen := map[string][]string{}
	for p, src := range g.citations {
		seen[p] = append([]string(nil), src...)
	}
	read := g.read
	add := func(source string, problems []string) {
		read++
		once := map[string]bool{}
		for _, p := range problems {
			if !once[p] {
				once[p] = true
				seen[p] = append(seen[p], source)
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		sc := &citationScanner{}
		io.WriteString(sc, c.Long+"\n"+c.Short+"\n"+c.Example+"\n"+c.UsageString())
		add(c.CommandPath()+" --help", sc.done())
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(cmd.NewRootCmd(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Getenv: func(string) string { return "" }}))

	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	for _, p := range append(docs, filepath.Join("..", "..", "README.md")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		add(p, citationProblems(string(b), true)) // prose: a paragraph is read whole
	}

	var problems []string
	for p := range seen {
		problems = append(problems, p)
	}
	sort.Strings(problems)
	for _, p := range problems {
		src := seen[p]
		more := ""
		if len(src) > 1 {
			more = " (and " + strconv.Itoa(len(src)-1) + " more)"
		}
		t.Errorf("%s\n    in %s%s", p, src[0], more)
	}
	if read < 200 {
		t.Errorf("only %d texts read: the walk missed commands", read)
	}
}
