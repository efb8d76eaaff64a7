package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
)

// Findings writes findings for people, in the order diag.SortFindings left
// them (worst first, each symptom right after its cause). Without a width
// (wide, a pipe): a heading line per finding, then its detail and the next
// step indented, a symptom indented under its cause. With a width (the
// table format on a terminal) each finding is its heading (the object cut
// in the middle, as a name) and its summary wrapped to at most two lines
// (then cut at its end after a whole word), its next step when that fits
// whole (a command is never cut), a symptom one line under its cause (cut at
// its end; two when it names an object of its own); a critical finding
// whose next step does not fit shows its action in prose and where the
// whole step is (nextLines); the detail and every next step are in -o wide. Every untrusted string goes through Sanitize.
func Findings(w io.Writer, st Style, fs []diag.Finding) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, st.Severity("ok", "No findings."))
		return err
	}
	if st.width > 0 {
		return FindingsFit(w, st, fs)
	}
	return FindingsFull(w, st, fs)
}

// FindingsFull writes every finding with its detail and next step; with a
// width (mv explain --details) the summary and detail are wrapped to it (a
// next step is never broken: it is pasted).
func FindingsFull(w io.Writer, st Style, fs []diag.Finding) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, st.Severity("ok", "No findings."))
		return err
	}
	var b strings.Builder
	var err error
	for _, f := range fs {
		spill(w, &b, &err)
		pad := ""
		if f.Cause != nil {
			pad = "  ↳ "
		}
		sev := strings.ToUpper(f.Severity.String())
		fmt.Fprintf(&b, "%s%s %s %s\n", pad, st.Severity(f.Severity.String(), fmt.Sprintf("%-8s", sev)), st.Bold(f.Code.String()), Sanitize(f.Object.String()))
		ind := strings.Repeat(" ", len([]rune(pad))+9)
		st.Para(&b, ind, ind, f.Summary)
		if f.Detail != "" {
			// One paragraph: a line break in it comes from a name, and is
			// escaped like every other control character.
			for _, l := range Wrap(Sanitize(f.Detail), st.width, ind, ind) {
				b.WriteString(st.Dim(l) + "\n")
			}
		}
		if f.Next != "" {
			lines := diag.SplitNext(f.Next) // one entry per statement: a line break inside a quoted name stays in its statement
			fmt.Fprintf(&b, "%snext: %s\n", ind, Sanitize(lines[0]))
			for _, line := range lines[1:] {
				fmt.Fprintf(&b, "%s      %s\n", ind, Sanitize(line))
			}
		}
	}
	spillAll(w, &b, &err)
	return err
}

// spillAt is how much text the findings renderers gather before they write
// it: 800,000 findings are hundreds of megabytes of text, never held whole
// (docs/performance.md "Bounded snapshots").
const spillAt = 64 << 10

// spill writes what b holds to w once it holds spillAt bytes, and empties
// it; the first write error is kept in *err and nothing is written after it.
func spill(w io.Writer, b *strings.Builder, err *error) {
	if b.Len() >= spillAt {
		spillAll(w, b, err)
	}
}

// spillAll writes what b holds, at the end.
func spillAll(w io.Writer, b *strings.Builder, err *error) {
	if *err == nil && b.Len() > 0 {
		_, *err = io.WriteString(w, b.String())
	}
	b.Reset()
}

// summaryLines is how many lines a finding's summary takes at most on a
// terminal: wrapped, then cut at its end after a whole word; -o wide and
// JSON have it whole.
const summaryLines = 2

// FindingsFit is Findings on a terminal of st.width columns.
func FindingsFit(w io.Writer, st Style, fs []diag.Finding) error {
	width := st.width
	var b strings.Builder
	var err error
	line := func(s string) { b.WriteString(strings.TrimRight(s, " ") + "\n") }
	for _, f := range fs {
		spill(w, &b, &err)
		sev := strings.ToUpper(f.Severity.String())
		code := f.Code.String()
		if f.Cause != nil {
			// One line under its cause: the code, its object when not the
			// cause's, and what it says.
			head := "  ↳ " + st.Severity(f.Severity.String(), fmt.Sprintf("%-4s", sev[:4])) + " " + st.Bold(code) + " "
			if f.Object.Kind != f.Cause.Object.Kind || f.Object.DB != f.Cause.Object.DB || f.Object.Name != f.Cause.Object.Name {
				// Its own object, a name (cut in the middle only to fit the
				// line), then what it says on a second line at most.
				obj := Truncate(Sanitize(f.Object.String()), width-TextWidth(head)-1)
				for _, l := range WrapMax(obj+": "+Sanitize(f.Summary), width, 2, head, "      ") {
					line(l)
				}
				continue
			}
			line(head + TruncateEnd(Sanitize(f.Summary), width-TextWidth(head)))
			continue
		}
		head := st.Severity(f.Severity.String(), fmt.Sprintf("%-8s", sev)) + " " + st.Bold(code) + " "
		line(head + Truncate(Sanitize(f.Object.String()), width-TextWidth(head)))
		const ind = "         "
		for _, l := range WrapMax(Sanitize(f.Summary), width, summaryLines, ind, ind) {
			line(l)
		}
		for _, l := range nextLines(st, f, ind) {
			line(l)
		}
	}
	spillAll(w, &b, &err)
	return err
}

// nextLines is the next step of a top-level finding on a terminal: the
// whole step when it is one statement or command that fits the line (a
// step is never cut: it is pasted); otherwise, for a critical finding, its
// declaration's action in prose and where the whole step is ("next: refresh
// the MV COMPLETE (full step: -o wide)"), so that every critical finding
// says what to do on the first screen and nothing printed can be pasted as
// a different statement. A warning or info finding shows no next step then.
func nextLines(st Style, f diag.Finding, ind string) []string {
	width := st.width
	if next := Sanitize(f.Next); f.Next != "" && len(diag.SplitNext(f.Next)) == 1 && (width <= 0 || TextWidth(ind+"next: "+next) <= width) {
		return []string{ind + "next: " + next}
	}
	if f.Severity != diag.SeverityCritical || f.Next == "" {
		return nil // no step, or one the caller shows on its own (mv explain's Next section)
	}
	return WrapMax(ShortNext(st, f), width, 2, ind, ind+"      ")
}

// ShortNext is the shortened next step of a finding (without the indent):
// its code's action and where to read the whole step.
func ShortNext(st Style, f diag.Finding) string {
	action := f.Code.Declaration().Action
	if action == "" {
		action = "see the next step" // every declaration has one (TestDeclarationActions)
	}
	return "next: " + action + " " + Glue("(full step: "+st.hint()+")") // where stays whole on one line
}

// FindingsMarkdown writes findings as a markdown table (for CI comments).
func FindingsMarkdown(w io.Writer, fs []diag.Finding) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	rows := make([][]string, len(fs))
	for i, f := range fs {
		next := f.Next
		if next != "" {
			next = codeSpan(next)
		}
		code := "`" + f.Code.String() + "`"
		if f.Cause != nil {
			code = "↳ " + code // a symptom, in the row right under its cause
		}
		rows[i] = []string{f.Severity.String(), code, f.Object.String(), f.Summary, next}
	}
	return Markdown(w, []string{"severity", "code", "object", "summary", "next"}, rows)
}

// CountBySeverity summarises findings as "2 critical, 1 warning".
func CountBySeverity(fs []diag.Finding) string {
	var c, wa, in int
	for _, f := range fs {
		switch f.Severity {
		case diag.SeverityCritical:
			c++
		case diag.SeverityWarning:
			wa++
		case diag.SeverityInfo:
			in++
		}
	}
	return fmt.Sprintf("%d critical, %d warning, %d info", c, wa, in)
}

// codeSpan wraps s in a markdown code span that may itself contain
// backquotes (SQL identifiers): the fence is one backquote longer than the
// longest run inside, padded with spaces (CommonMark "code spans").
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest == 0 {
		return fence + s + fence
	}
	return fence + " " + s + " " + fence
}

// FindingsCompact writes one line per finding (severity, code, object,
// summary cut to fit), for an overview that must fit one screen.
func FindingsCompact(w io.Writer, st Style, fs []diag.Finding, width int) error {
	var b strings.Builder
	for _, f := range fs {
		sev := strings.ToUpper(f.Severity.String())
		if len(sev) > 4 {
			sev = sev[:4]
		}
		obj := Sanitize(f.Object.String())
		code := f.Code.String()
		if f.Cause != nil {
			code = "↳ " + code // a symptom, right under its cause
		}
		head := fmt.Sprintf("%-30s %-36s ", code, obj)
		summary := Sanitize(f.Summary)
		if width > 10 {
			summary = TruncateEnd(summary, width-6-TextWidth(head))
		}
		line := head + summary
		fmt.Fprintf(&b, "%s  %s\n", st.Severity(f.Severity.String(), sev), line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
