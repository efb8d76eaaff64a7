package demo

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/report/mv"
	"io"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
)

// DemoDoc is the document of `demo` (kind "demo"): a guided tour of check on
// a bundled scenario, then mv explain of the worst MV and streams show of the
// worst stream. It is not data (the JSON is check's), so it has no JSON.
type DemoDoc struct {
	Check *check.Result
	Width int // cut finding lines to this many columns (0: never)
}

// Kind implements Doc.
func (DemoDoc) Kind() string { return "demo" }

func init() {
	report.NoJSON("demo")
	report.Register("demo", report.FormatTable, demoTable)
}

func demoTable(w io.Writer, st report.Style, d report.Doc) error {
	res := d.(DemoDoc).Check
	// demo has no other format: the whole next steps are check's -o wide.
	st = st.WithHint("check -o wide")
	if err := report.CheckOverview(w, st, res); err != nil {
		return err
	}
	width := d.(DemoDoc).Width
	if st.Width() > 0 && (width <= 0 || st.Width() < width) {
		width = st.Width() // on a terminal, its width
	}
	if st.Width() > 0 && st.Width() < 120 {
		// Too narrow for one line per finding: heading and summary.
		if err := report.FindingsFit(w, st, res.Findings); err != nil {
			return err
		}
	} else if err := report.FindingsCompact(w, st, res.Findings, width); err != nil {
		return err
	}
	if err := report.CheckSources(w, st, res); err != nil {
		return err
	}
	if m := res.WorstMV(); m != nil {
		fmt.Fprintf(w, "\n%s\n\n", st.Bold("── "+report.Sanitize(diag.MVExplainCommand(m.DB, m.Name))+" ──"))
		doc := mv.MVExplainDoc{Now: res.Now, MV: m, Findings: res.MVs.FindingsFor(m.DB, m.Name)}
		if err := mv.MVExplain(w, st, doc, mv.TextBlocks(st), true); err != nil {
			return err
		}
	}
	if s := res.WorstStream(); s != nil {
		fmt.Fprintf(w, "\n%s\n\n", st.Bold("── "+report.Sanitize(diag.StreamShowCommand(s.DB, s.Name))+" ──"))
		if err := report.StreamShow(w, st, report.StreamDoc{Stream: s, Findings: res.Streams.FindingsFor(s.DB, s.Name)}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n%s\n", st.Bold("Against a real cluster (password in DORISDIAG_PASSWORD):"))
	for _, c := range [][2]string{
		{"dorisdiag check --host FE_HOST --user USER", "this overview; exit 1 on a critical finding"},
		{"dorisdiag mv explain DB.MV --host FE_HOST", "why one MV lags, with the SQL to confirm"},
		{"dorisdiag streams show DB.STREAM --host FE_HOST", "what the next read does, per partition"},
		{"dorisdiag explain CODE", "what a finding means and how to fix it"},
	} {
		if line := fmt.Sprintf("  %-50s# %s", c[0], c[1]); st.Width() <= 0 || report.TextWidth(line) <= st.Width() {
			fmt.Fprintln(w, line)
			continue
		}
		fmt.Fprintf(w, "  %s\n      # %s\n", c[0], c[1]) // narrow: the comment under its command
	}
	return nil
}
