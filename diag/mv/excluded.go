package mv

import (
	"sort"

	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// excluded_trigger_tables as Doris matches it
// (docs/notes-realbuilds-evidence.md "excluded_trigger_tables: matched as
// written"; MTMVPartitionUtil.isTableNamelike): a bare name excludes a base
// table of that name in ANY database, "db.t" that table in any catalog
// (snapshot.MvProperties.MatchesExcluded). Doris compares names exactly.

// excludedTables are the MV's excluded base tables: each name as written,
// resolved to the base tables of that name the MV's internal streams or the
// snapshot's tables know (in any database for a bare name); a name no known
// table matches stays as written (no database is made up for it).
func (a *mvAnalyzer) excludedTables(mv *snapshot.MVInfo, props MvProperties, ivm []*streams.Stream) []TableRef {
	known := map[TableRef]bool{}
	for _, sr := range ivm {
		if sr.BaseTableName != "" {
			known[TableRef{DB: sr.BaseTableDB, Name: sr.BaseTableName}] = true
		}
	}
	for _, e := range mv.BaseTableStreams.Entries {
		known[TableRef{DB: e.BaseTable.DB, Name: e.BaseTable.Name}] = true
	}
	for _, t := range a.snap.Tables {
		known[TableRef{DB: t.DB, Name: t.Name}] = true
	}
	var out []TableRef
	seen := map[TableRef]bool{}
	for _, ex := range props.ExcludedAsWritten {
		matched := false
		for t := range known {
			one := MvProperties{ExcludedAsWritten: []TableRef{ex}}
			if one.MatchesExcluded("", t.DB, t.Name) {
				matched = true
				if !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
		if !matched {
			ref := TableRef{DB: ex.DB, Name: ex.Name}
			if !seen[ref] {
				seen[ref] = true
				out = append(out, ref)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].DB != out[j].DB {
			return out[i].DB < out[j].DB
		}
		return out[i].Name < out[j].Name
	})
	return out
}
