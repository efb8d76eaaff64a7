package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
)

// Findings writes findings for people, worst first (the caller sorts with
// diag.SortFindings): a heading line per finding, then its detail and the
// next step indented.
func Findings(w io.Writer, st Style, fs []diag.Finding) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, st.Severity("ok", "No findings."))
		return err
	}
	var b strings.Builder
	for _, f := range fs {
		sev := strings.ToUpper(f.Severity.String())
		fmt.Fprintf(&b, "%s %s %s\n", st.Severity(f.Severity.String(), fmt.Sprintf("%-8s", sev)), st.Bold(f.Code.String()), f.Object.String())
		fmt.Fprintf(&b, "         %s\n", f.Summary)
		if f.Detail != "" {
			for _, line := range strings.Split(f.Detail, "\n") {
				fmt.Fprintf(&b, "         %s\n", st.Dim(line))
			}
		}
		if f.Next != "" {
			lines := strings.Split(f.Next, "\n")
			fmt.Fprintf(&b, "         next: %s\n", lines[0])
			for _, line := range lines[1:] {
				fmt.Fprintf(&b, "               %s\n", line)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
		rows[i] = []string{f.Severity.String(), "`" + f.Code.String() + "`", f.Object.String(), f.Summary, next}
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
		obj := f.Object.String()
		line := fmt.Sprintf("%-30s %-36s %s", f.Code, obj, f.Summary)
		if width > 10 && len([]rune(line)) > width-6 {
			line = string([]rune(line)[:width-7]) + "…"
		}
		fmt.Fprintf(&b, "%s  %s\n", st.Severity(f.Severity.String(), sev), line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
