package diag

import (
	"fmt"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// SourceFindings turns what the snapshot could not read or interpret into
// findings, so that a partial view takes part in --fail-on instead of passing
// silently (design.md "Partial failures", "nothing is silently dropped").
// The severity of an unreadable source follows what it costs (sourceCosts):
// critical for a source the diagnosis needs, a warning naming what is not
// diagnosed for an optional one, nothing for a superseded fallback.
func SourceFindings(s *snapshot.Snapshot) []Finding {
	var out []Finding
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
		case sev == SeverityCritical && cost.IfMVs != 0:
			detail += " (critical: MVs exist and the MV diagnosis needs this source)"
		case sev < CodeSourceUnreachable.Severity():
			detail += " (" + sev.String() + ": an optional source; the rest is diagnosed)"
		}
		out = append(out, Finding{
			Code:     CodeSourceUnreachable,
			Severity: sev,
			Object:   Object{Kind: "source", Name: g.Source},
			Summary:  fmt.Sprintf("%s could not be read: %s", g.Source, cost.NotDiagnosed),
			Detail:   detail,
			Evidence: nonEmpty(map[string]string{"query": g.Query, "error": g.Error, "not_diagnosed": cost.NotDiagnosed}),
			Next:     "dorisdiag snapshot --summary  # then fix access to " + ShellComment(g.Source) + " and re-run",
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
		out = append(out, Finding{
			Code:     CodeSourceMalformedValue,
			Severity: CodeSourceMalformedValue.Severity(),
			Object:   Object{Kind: "source", Name: k.source, Partition: ""},
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
