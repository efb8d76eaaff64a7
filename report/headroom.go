package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/streams/whatif"
	"github.com/dorisdiag/dorisdiag/tso"
)

// HeadroomDoc is the document of `headroom` (kind "headroom"): diag's
// what-if plan; All lists the safe partitions too (table formats only).
type HeadroomDoc struct {
	*whatif.HeadroomPlan
	All bool `json:"-"`
}

// Kind implements Doc.
func (HeadroomDoc) Kind() string { return "headroom" }

func init() {
	Register("headroom", FormatTable, func(w io.Writer, st Style, d Doc) error { return headroomTable(w, st, d.(HeadroomDoc), headroomNarrow) })
	Register("headroom", FormatWide, func(w io.Writer, st Style, d Doc) error { return headroomTable(w, st, d.(HeadroomDoc), 0) })
	Register("headroom", FormatMarkdown, func(w io.Writer, _ Style, d Doc) error { return headroomMarkdown(w, d.(HeadroomDoc)) })
}

// headroomNarrow is how many columns the table format keeps (wide and
// markdown add the MV).
const headroomNarrow = 9

func headroomRows(st Style, plan *whatif.HeadroomPlan, all bool) ([]string, [][]string) {
	// Columns by importance: a narrow terminal leaves the last ones to -o wide.
	h := []string{"STREAM", "PARTITION", "VERDICT", "HEADROOM AT", "HEADROOM NOW", "NEXT READ AT", "TTL", "MODE", "KIND", "MV"}
	var rows [][]string
	for _, r := range plan.Rows {
		verdict, sev := r.Verdict()
		if !all && sev == "ok" {
			continue
		}
		rows = append(rows, []string{r.DB + "." + r.Stream, r.Unit, st.Severity(sev, verdict), headroomCell(st, r.HeadroomAtSeconds, r.FractionAt, sev),
			Secs(r.HeadroomNowSeconds), r.NextReadAt, tso.FormatDuration(r.TTL * 1000), orDash(r.ReadMode), string(r.Kind), orDash(r.MVName)})
	}
	return h, rows
}

func headroomSummary(plan *whatif.HeadroomPlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "If nobody consumes from %s until %s (+%s)", plan.Now.Format("2006-01-02T15:04:05Z"), plan.At.Format("2006-01-02T15:04:05Z"),
		tso.FormatDuration(plan.At.Sub(plan.Now).Milliseconds()))
	if plan.TTLOverride != nil {
		fmt.Fprintf(&b, " with a TTL of %d s (%s)", *plan.TTLOverride, tso.FormatDuration(*plan.TTLOverride*1000))
	}
	fmt.Fprintf(&b, ": %d partition(s) would be lost (cannot resume then), %d cannot resume already, %d stay safe.\n", plan.Lost, plan.Expired, plan.Safe)
	return b.String()
}

// headroomTable writes the what-if plan (the first cols columns).
func headroomTable(w io.Writer, st Style, d HeadroomDoc, cols int) error {
	st.Para(w, "", "", strings.TrimSuffix(headroomSummary(d.HeadroomPlan), "\n"))
	h, rows := headroomRows(st, d.HeadroomPlan, d.All)
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No partition with a TTL is at risk in that window.")
		return err
	}
	h, rows = FirstColumns(cols, h, rows)
	return st.Table(w, h, rows)
}

// headroomMarkdown is `headroom -o markdown`, every column.
func headroomMarkdown(w io.Writer, d HeadroomDoc) error {
	fmt.Fprint(w, headroomSummary(d.HeadroomPlan)+"\n")
	h, rows := headroomRows(Style{}, d.HeadroomPlan, d.All)
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No partition with a TTL is at risk in that window.")
		return err
	}
	return Markdown(w, h, rows)
}
