package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// SnapshotSummaryDoc is `snapshot --summary` (kind "snapshot_summary").
type SnapshotSummaryDoc struct{ *sources.Summary }

// Kind implements Doc.
func (SnapshotSummaryDoc) Kind() string { return "snapshot_summary" }

func init() {
	Register("snapshot_summary", FormatTable, renderSummaryTable)
	Register("snapshot_summary", FormatMarkdown, renderSummaryMarkdown)
}

func (sum SnapshotSummaryDoc) header() []string {
	lines := []string{
		fmt.Sprintf("source: %s%s", sum.Source.Kind, sourceDetail(sum.Source)),
		fmt.Sprintf("cluster time: %s (current TSO %s, from %s)", sum.ClusterNow, sum.CurrentTSO, orDash(sum.ClockSource)),
	}
	var facts []string
	if sum.DorisVersion != "" {
		facts = append(facts, "Doris "+sum.DorisVersion)
	}
	if sum.Naming != "" {
		facts = append(facts, "property naming "+sum.Naming+".*")
	}
	if sum.CloudMode {
		facts = append(facts, "cloud mode")
	}
	if sum.Source.Queries > 0 {
		facts = append(facts, fmt.Sprintf("%d statements in %d ms", sum.Source.Queries, sum.Source.DurationMs))
	}
	if len(facts) > 0 {
		lines = append(lines, strings.Join(facts, ", "))
	}
	return lines
}

func sourceDetail(s snapshot.Source) string {
	switch s.Kind {
	case "live":
		return fmt.Sprintf(" %s:%d as %s", s.Host, s.Port, s.User)
	case "demo":
		return " scenario " + s.Scenario
	case "file":
		return " " + s.File
	}
	return ""
}

func (sum SnapshotSummaryDoc) tableRows() [][]string {
	var rows [][]string
	for _, s := range sum.Sources {
		present := "?"
		if s.Present != nil {
			present = "no"
			if *s.Present {
				present = "yes"
			}
		}
		cols := "-"
		if len(s.Columns) > 0 {
			cols = strconv.Itoa(len(s.Columns))
		}
		n := "-"
		if s.Rows != nil {
			n = strconv.Itoa(*s.Rows)
		}
		rows = append(rows, []string{s.Source, present, n, cols})
	}
	return rows
}

func (sum SnapshotSummaryDoc) gapRows() [][]string {
	var rows [][]string
	for _, g := range sum.CouldNotRead {
		e := g.Error
		if g.Superseded != "" {
			e = "superseded by " + g.Superseded + ": " + e
		}
		rows = append(rows, []string{g.Source, e})
	}
	return rows
}

// gapCount is "N", or "N (M superseded by a fallback)".
func (sum SnapshotSummaryDoc) gapCount() string {
	n := 0
	for _, g := range sum.CouldNotRead {
		if g.Superseded != "" {
			n++
		}
	}
	if n == 0 {
		return strconv.Itoa(len(sum.CouldNotRead))
	}
	return fmt.Sprintf("%d (%d superseded by a fallback: no finding)", len(sum.CouldNotRead), n)
}

var summaryHeaders = []string{"SOURCE", "PRESENT", "ROWS", "COLUMNS"}

func renderSummaryTable(w io.Writer, st Style, d Doc) error {
	sum := d.(SnapshotSummaryDoc)
	for _, l := range sum.header() {
		st.Para(w, "", "  ", l)
	}
	fmt.Fprintln(w)
	if err := st.Table(w, summaryHeaders, sum.tableRows()); err != nil {
		return err
	}
	if len(sum.CouldNotRead) == 0 {
		fmt.Fprintln(w, "could not read: nothing")
	} else {
		fmt.Fprintln(w, st.Severity("warning", "could not read: "+sum.gapCount()))
		if err := st.Table(w, []string{"SOURCE", "ERROR"}, sum.gapRows()); err != nil {
			return err
		}
	}
	if sum.Malformed > 0 {
		fmt.Fprintf(w, "malformed values: %d (see \"malformed\" in the snapshot JSON)\n", sum.Malformed)
	}
	return nil
}

func renderSummaryMarkdown(w io.Writer, _ Style, d Doc) error {
	sum := d.(SnapshotSummaryDoc)
	for _, l := range sum.header() {
		fmt.Fprintf(w, "%s  \n", l)
	}
	fmt.Fprintln(w)
	if err := Markdown(w, summaryHeaders, sum.tableRows()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(sum.CouldNotRead) == 0 {
		fmt.Fprintln(w, "Could not read: nothing.")
		return nil
	}
	fmt.Fprintf(w, "Could not read: %s\n\n", sum.gapCount())
	return Markdown(w, []string{"SOURCE", "ERROR"}, sum.gapRows())
}
