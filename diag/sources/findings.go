package sources

import (
	"fmt"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// CodeUnreachable: A source could not be read; the report is partial
var CodeUnreachable = diag.Declare(diag.Declaration{
	Code:     "SOURCE_UNREACHABLE",
	Action:   "fix the access named in the error, re-run",
	Severity: diag.SeverityCritical,
	Impact:   diag.ImpactVisibility,
	Place:    1,
	Series:   "dorisdiag_sources_unreadable",
	Alert:    "DorisdiagSourceUnreachable",
	Title:    "A source could not be read; the report is partial",
	Spec:     "docs/architecture.md \"Partial failures\"",
	Meaning:  "One system table, table-valued function, FE or BE could not be read while the snapshot was taken. Everything else was read and is reported. The severity follows what the source costs (see \"What an unreadable source costs\" below): critical for a source the diagnosis needs (table_streams, table_stream_consumption, the cluster clock; the MV sources when MVs exist), a warning naming what is not diagnosed for an optional one (SHOW DATA, partitions, SHOW FRONTENDS/BACKENDS, one node's /metrics). A fallback that another source superseded (SHOW TSO STATUS failed, GET /api/tso gave the clock) is no finding, only a line in the sources.",
	Matters:  "What was not read cannot be diagnosed: a problem there stays invisible. A CI gate must not pass on a partial view of what it needs without saying so, nor fail a healthy cluster because a least-privilege user may not run an optional statement.",
	Confirm:  "dorisdiag snapshot --summary  # lists could_not_read with the error of each source",
	Fix:      "Fix the access (privileges, network, timeout) named in the error, or raise --timeout. Re-run.",
	Related:  []string{"SOURCE_MALFORMED_VALUE"},
})

// CodeMalformedValue: A value in a system table could not be interpreted
var CodeMalformedValue = diag.Declare(diag.Declaration{
	Code:     "SOURCE_MALFORMED_VALUE",
	Action:   "check the Doris version and the column",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactVisibility,
	Place:    2,
	Title:    "A value in a system table could not be interpreted",
	Spec:     "docs/architecture.md \"Bad input never panics\"",
	Meaning:  "A column held text the tool could not parse (for example a TSO that is not a number). The value was left out of the computation, counted and reported here.",
	Matters:  "A diagnosis built without that value may be incomplete; the table, column and value say where to look.",
	Confirm:  "dorisdiag snapshot --summary  # lists malformed values with table, column and value",
	Fix:      "Check the Doris version and the column; report the value to the dorisdiag maintainers if it is legitimate Doris output.",
	Related:  []string{"SOURCE_UNREACHABLE"},
})

// Findings turns what the snapshot could not read or interpret into
// findings, so that a partial view takes part in --fail-on instead of passing
// silently (design.md "Partial failures", "nothing is silently dropped").
// The severity of an unreadable source follows what it costs (sourceCosts):
// critical for a source the diagnosis needs, a warning naming what is not
// diagnosed for an optional one, nothing for a superseded fallback.
func Findings(s *snapshot.Snapshot) []diag.Finding {
	var out []diag.Finding
	mvs := mvsKnown(s)
	for _, g := range s.CouldNotRead {
		// A fallback another source superseded costs nothing: it is listed
		// in the sources (check overview, snapshot --summary), no finding.
		if SupersededBy(s, g) != "" {
			continue
		}
		cost := lookupSourceCost(g.Source)
		sev := gapSeverity(cost, mvs)
		detail := g.Error
		switch {
		case sev == diag.SeverityCritical && cost.IfMVs != 0:
			detail += " (critical: MVs exist and the MV diagnosis needs this source)"
		case sev < CodeUnreachable.Severity():
			detail += " (" + sev.String() + ": an optional source; the rest is diagnosed)"
		}
		out = append(out, diag.Finding{
			Code:     CodeUnreachable,
			Severity: sev,
			Object:   diag.Object{Kind: "source", Name: g.Source},
			Summary:  fmt.Sprintf("%s could not be read: %s", g.Source, cost.NotDiagnosed),
			Detail:   detail,
			Evidence: nonEmpty(map[string]string{"query": g.Query, "error": g.Error, "not_diagnosed": cost.NotDiagnosed}),
			Next:     "dorisdiag snapshot --summary  # then fix access to " + diag.ShellComment(g.Source) + " and re-run",
		})
	}
	// One finding per source and column, with a count, so a table full of
	// one bad value does not bury everything else.
	type key struct{ source, column string }
	counts := map[key]int{}
	first := map[key]snapshot.Malformed{}
	var order []key
	for _, m := range s.Malformed {
		k := key{m.Source, m.Column}
		if counts[k] == 0 {
			first[k] = m
			order = append(order, k)
		}
		counts[k]++
	}
	for _, k := range order {
		m := first[k]
		out = append(out, diag.Finding{
			Code:     CodeMalformedValue,
			Severity: CodeMalformedValue.Severity(),
			Object:   diag.Object{Kind: "source", Name: k.source, Partition: ""},
			Summary:  fmt.Sprintf("%d value(s) of %s.%s could not be interpreted and were left out", counts[k], k.source, k.column),
			Detail:   fmt.Sprintf("first: row %s, value %q: %s", m.Row, m.Value, m.Error),
			Evidence: map[string]string{"column": k.column, "count": fmt.Sprint(counts[k]), "first_value": m.Value, "first_row": m.Row},
			Next:     "dorisdiag snapshot --summary",
		})
	}
	return out
}

func nonEmpty(m map[string]string) map[string]string {
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
