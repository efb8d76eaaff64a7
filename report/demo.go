package report

import (
	"fmt"
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
	NoJSON("demo")
	Register("demo", FormatTable, demoTable)
}

func demoTable(w io.Writer, st Style, d Doc) error {
	res := d.(DemoDoc).Check
	if err := checkOverview(w, st, res); err != nil {
		return err
	}
	width := d.(DemoDoc).Width
	if st.width > 0 && (width <= 0 || st.width < width) {
		width = st.width // on a terminal, its width
	}
	if st.width > 0 && st.width < 120 {
		// Too narrow for one line per finding: heading and summary.
		if err := findingsFit(w, st, res.Findings); err != nil {
			return err
		}
	} else if err := FindingsCompact(w, st, res.Findings, width); err != nil {
		return err
	}
	if m := res.WorstMV(); m != nil {
		fmt.Fprintf(w, "\n%s\n\n", st.Bold("── "+Sanitize(diag.MVExplainCommand(m.DB, m.Name))+" ──"))
		doc := MVExplainDoc{Now: res.Now, MV: m, Findings: res.MVs.FindingsFor(m.DB, m.Name)}
		if err := mvExplain(w, st, doc, textBlocks(st), true); err != nil {
			return err
		}
	}
	if s := res.WorstStream(); s != nil {
		fmt.Fprintf(w, "\n%s\n\n", st.Bold("── "+Sanitize(diag.StreamShowCommand(s.DB, s.Name))+" ──"))
		if err := streamShow(w, st, StreamDoc{Stream: s, Findings: res.Streams.FindingsFor(s.DB, s.Name)}); err != nil {
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
		if line := fmt.Sprintf("  %-50s# %s", c[0], c[1]); st.width <= 0 || TextWidth(line) <= st.width {
			fmt.Fprintln(w, line)
			continue
		}
		fmt.Fprintf(w, "  %s\n      # %s\n", c[0], c[1]) // narrow: the comment under its command
	}
	return nil
}
