package sources

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// What a snapshot could not read, what replaced it, and what it did read.

// SupersededBy says which source took over from an unreadable one: the
// collector's mark (ReadGap.Superseded), or what the snapshot itself shows
// for snapshots written before that field: a clock gap is superseded by the
// clock the snapshot has, and the capability probe always by the SELECT *
// reads. "" when nothing took over.
func SupersededBy(s *snapshot.Snapshot, g snapshot.ReadGap) string {
	switch {
	case g.Superseded != "":
		return g.Superseded
	case clockSources[g.Source] && s.Cluster.ClockSource != "" && s.Cluster.ClockSource != g.Source && s.Cluster.CurrentTSO > 0:
		return s.Cluster.ClockSource
	case g.Source == snapshot.SourceColumns:
		return "SELECT * of each information_schema table"
	}
	return ""
}

// Unreadable returns why source could not be read, when it could not and
// nothing took over ("" when it was read, or a fallback replaced it).
func Unreadable(s *snapshot.Snapshot, source string) string {
	var why []string
	for _, g := range s.CouldNotRead {
		if g.Source == source && SupersededBy(s, g) == "" {
			why = append(why, g.Error)
		}
	}
	return strings.Join(why, "; ")
}

// Present looks for a capability whose source name contains name.
func Present(s *snapshot.Snapshot, name string) bool {
	for k, v := range s.Capabilities.Sources {
		if strings.Contains(strings.ToLower(k), name) && v.Present {
			return true
		}
	}
	return false
}

func HasColumn(s *snapshot.Snapshot, rel *doris.Relation, col doris.Column) bool {
	v, ok := s.Capabilities.Sources[rel.Source]
	if !ok || !v.Present {
		return false
	}
	for _, c := range v.Columns {
		if strings.EqualFold(c, col.Name) {
			return true
		}
	}
	return false
}
