package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/tso"
)

func headroomRows(st Style, plan *diag.HeadroomPlan, all, wide bool) ([]string, [][]string) {
	h := []string{"STREAM", "PARTITION", "KIND", "MODE", "TTL", "HEADROOM NOW", "HEADROOM AT", "VERDICT", "NEXT READ AT"}
	if wide {
		h = append(h, "MV")
	}
	var rows [][]string
	for _, r := range plan.Rows {
		verdict := "safe"
		sev := "ok"
		switch {
		case r.Lost:
			verdict, sev = "LOST", "critical"
		case !r.CanResumeNow:
			verdict, sev = "expired already", "warning"
		}
		if !all && verdict == "safe" {
			continue
		}
		row := []string{r.DB + "." + r.Stream, r.Unit, r.Kind, orDash(r.ReadMode), tso.FormatDuration(r.TTL * 1000),
			Secs(r.HeadroomNowSeconds), headroomCell(st, r.HeadroomAtSeconds, r.FractionAt, sev), st.Severity(sev, verdict), r.NextReadAt}
		if wide {
			row = append(row, orDash(r.MVName))
		}
		rows = append(rows, row)
	}
	return h, rows
}

func headroomSummary(plan *diag.HeadroomPlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "If nobody consumes from %s until %s (+%s)", plan.Now.Format("2006-01-02T15:04:05Z"), plan.At.Format("2006-01-02T15:04:05Z"),
		tso.FormatDuration(plan.At.Sub(plan.Now).Milliseconds()))
	if plan.TTLOverride != nil {
		fmt.Fprintf(&b, " with a TTL of %d s (%s)", *plan.TTLOverride, tso.FormatDuration(*plan.TTLOverride*1000))
	}
	fmt.Fprintf(&b, ": %d partition(s) would be lost (cannot resume then), %d cannot resume already, %d stay safe.\n", plan.Lost, plan.Expired, plan.Safe)
	return b.String()
}

// Headroom writes the what-if plan of `headroom`.
func Headroom(w io.Writer, st Style, plan *diag.HeadroomPlan, all, wide bool) error {
	fmt.Fprint(w, headroomSummary(plan))
	h, rows := headroomRows(st, plan, all, wide)
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No partition with a TTL is at risk in that window.")
		return err
	}
	return Table(w, h, rows)
}

// HeadroomMarkdown is `headroom -o markdown`.
func HeadroomMarkdown(w io.Writer, plan *diag.HeadroomPlan, all bool) error {
	fmt.Fprint(w, headroomSummary(plan)+"\n")
	h, rows := headroomRows(Style{}, plan, all, true)
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No partition with a TTL is at risk in that window.")
		return err
	}
	return Markdown(w, h, rows)
}
