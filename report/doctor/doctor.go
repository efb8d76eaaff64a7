package doctor

import (
	"fmt"
	"io"
	"strings"

	diagdoctor "github.com/dorisdiag/dorisdiag/diag/doctor"
	"github.com/dorisdiag/dorisdiag/report"
)

// DoctorDoc is the document of `doctor` (kind "doctor"): diag's judgment of
// what doctor read, one line per check grouped by node, the worst group and
// the worst line first (flutter doctor's shape), and the findings the gate
// reads.
type DoctorDoc struct {
	*diagdoctor.Result
}

// Kind implements Doc.
func (DoctorDoc) Kind() string { return "doctor" }

func init() {
	report.Register("doctor", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return doctorTable(w, st, d.(DoctorDoc), false)
	})
	report.Register("doctor", report.FormatWide, func(w io.Writer, st report.Style, d report.Doc) error { return doctorTable(w, st, d.(DoctorDoc), true) })
	report.Register("doctor", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error { return doctorMarkdown(w, d.(DoctorDoc)) })
}

// doctorMark is a status's mark and the severity word that colours it.
func doctorMark(s diagdoctor.Status) (mark, sev string) {
	switch s {
	case diagdoctor.StatusFail:
		return "✗", "critical"
	case diagdoctor.StatusWarn:
		return "!", "warning"
	case diagdoctor.StatusUnknown:
		return "?", "unknown"
	case diagdoctor.StatusInfo:
		return "i", "info"
	}
	return "✓", "ok"
}

// doctorHeader is the run's one-line context.
func doctorHeader(r *diagdoctor.Result) string {
	var parts []string
	parts = append(parts, "doctor: "+strings.Join(r.Parts, ", "))
	if s := r.Session; s.Known {
		role := "a follower"
		if s.IsMaster {
			role = "the Master"
		}
		parts = append(parts, fmt.Sprintf("session on %s (%s, %s)", s.Host, s.Name, role))
	} else if s.Host != "" {
		parts = append(parts, "session "+s.Host)
	}
	for _, p := range r.Parts {
		if p == "net" {
			pol := r.EffectivePolicy
			if pol == "" {
				pol = "default"
			}
			if r.PolicySource == "unknown" {
				pol = "unknown (every candidate address probed)"
			} else if r.PolicySource != "" {
				pol += " from " + r.PolicySource
			}
			parts = append(parts, "Stream Load redirect policy "+pol)
			parts = append(parts, fmt.Sprintf("each hop bounded by %s, all hops in %s", msText(r.TimeoutMs), msText(r.NetElapsedMs)))
		}
	}
	return strings.Join(parts, "; ")
}

func msText(ms int64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	return fmt.Sprintf("%d ms", ms)
}

// doctorCounts is the closing line.
func doctorCounts(c diagdoctor.Counts) string {
	return fmt.Sprintf("%d fail, %d warn, %d unknown, %d info, %d pass", c.Fail, c.Warn, c.Unknown, c.Info, c.Pass)
}

// doctorTable writes one block per group: its worst mark and name, then one
// line per check; a line that is not a pass gives its next step. wide adds
// each line's finding code.
func doctorTable(w io.Writer, st report.Style, d DoctorDoc, wide bool) error {
	r := d.Result
	st.Para(w, "", "  ", doctorHeader(r))
	if len(r.Checks) == 0 {
		_, err := fmt.Fprintln(w, "\nNothing was checked.")
		return err
	}
	group := ""
	for _, c := range r.Checks {
		if c.Group != group {
			group = c.Group
			m, sev := doctorMark(c.Status) // the first line of a group is its worst
			fmt.Fprintf(w, "\n%s %s\n", st.Severity(sev, "["+m+"]"), st.Bold(report.Sanitize(c.Group)))
		}
		m, sev := doctorMark(c.Status)
		text := c.Name + ": " + c.Summary
		if wide && c.Code != "" {
			text += " [" + c.Code + "]"
		}
		for i, l := range report.Wrap(report.Sanitize(text), st.Width(), "      ", "      ") {
			l = strings.TrimRight(l, " ")
			if i == 0 {
				l = "    " + st.Severity(sev, m) + " " + strings.TrimPrefix(l, "      ")
			}
			fmt.Fprintln(w, l)
		}
		if c.Next != "" && c.Status != diagdoctor.StatusPass {
			st.Para(w, "      → ", "        ", c.Next)
		}
	}
	fmt.Fprintln(w)
	_, err := fmt.Fprintln(w, doctorCounts(r.Counts)+".")
	return err
}

// doctorMarkdown is `doctor -o markdown`: one row per check.
func doctorMarkdown(w io.Writer, d DoctorDoc) error {
	fmt.Fprintf(w, "%s\n\n", doctorHeader(d.Result))
	h := []string{"NODE", "CHECK", "STATUS", "SUMMARY", "CODE", "NEXT"}
	var rows [][]string
	for _, c := range d.Checks {
		rows = append(rows, []string{c.Group, c.Name, string(c.Status), c.Summary, dash(c.Code), dash(c.Next)})
	}
	if err := report.Markdown(w, h, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s.\n", doctorCounts(d.Counts))
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
