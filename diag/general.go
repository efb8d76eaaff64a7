package diag

import (
	"fmt"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// SourceFindings turns what the snapshot could not read or interpret into
// findings, so that a partial view takes part in --fail-on instead of passing
// silently (design.md "Partial failures", "nothing is silently dropped").
func SourceFindings(s *snapshot.Snapshot) []Finding {
	var out []Finding
	for _, g := range s.CouldNotRead {
		out = append(out, Finding{
			Code:     "SOURCE_UNREACHABLE",
			Severity: mustCode("SOURCE_UNREACHABLE").Severity,
			Object:   Object{Kind: "source", Name: g.Source},
			Summary:  fmt.Sprintf("%s could not be read; what it holds is not diagnosed", g.Source),
			Detail:   g.Error,
			Evidence: nonEmpty(map[string]string{"query": g.Query, "error": g.Error}),
			Next:     "dorisdiag snapshot --summary  # then fix access to " + g.Source + " and re-run",
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
			Code:     "SOURCE_MALFORMED_VALUE",
			Severity: mustCode("SOURCE_MALFORMED_VALUE").Severity,
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
