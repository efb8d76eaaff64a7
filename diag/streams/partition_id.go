package streams

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// A base partition whose PARTITION_ID changed between two snapshots of a
// series (docs/notes-realbuilds-evidence.md "An MV invalidated by DDL"):
// TRUNCATE and REPLACE PARTITION give the partition a new id and write no
// row binlog, so "unconsumed changes before the truncation disappear" and
// the data written afterwards is emitted as changes from the beginning
// (the table-stream docs, "Effect of base table changes"). A stream
// consumer of that table must resync the partition. The id is the trace,
// not a proof (a drop and re-add of a partition of the same name changes it
// too): a heuristic, and the finding says so. Only builds whose
// information_schema.partitions has PARTITION_ID show it.

// CodePartitionIDChanged: A base partition's id changed: the stream consumer must resync it (heuristic)
var CodePartitionIDChanged = diag.Declare(diag.Declaration{
	Code: "STREAM_PARTITION_ID_CHANGED", Severity: diag.SeverityWarning,
	Action: "re-sync the partition from the base table",
	Impact: diag.ImpactLoss, Place: 8,
	Title: "A base partition's id changed between two snapshots: the stream consumer must resync it (a heuristic)",
	Spec:  "docs/notes-realbuilds-evidence.md \"An MV invalidated by DDL\"; the table-stream docs, \"Effect of base table changes\"",
	Meaning: "information_schema.partitions.PARTITION_ID of a partition the stream reads differs between two snapshots of a series (--snapshot a --snapshot b, --watch, the exporter). " +
		"TRUNCATE and REPLACE PARTITION give a partition a new id and write no row binlog: the changes not yet consumed before it disappear and the rows written afterwards " +
		"come again as changes from the beginning. A heuristic: dropping and re-adding a partition of the same name changes the id too.",
	Matters: "The consumer's copy of the partition no longer matches the base table, and no change row tells it.",
	Confirm: "SELECT PARTITION_ID, PARTITION_NAME, UPDATE_TIME FROM information_schema.partitions WHERE TABLE_SCHEMA = '<db>' AND TABLE_NAME = '<table>';  -- and the base table's DDL history (fe.audit.log)",
	Fix:     "Resync the partition into the consumer from the base table (INSERT ... SELECT ... FROM db.table PARTITION (p)), deduplicating against what it already has.",
	Related: []string{"MV_SCHEMA_CHANGE", "STREAM_NO_OFFSET_ROWS_SKIPPED"},
})

// checkStreamPartitionIDChanged compares the PARTITION_ID of each partition
// the stream reads in the earliest snapshot of the series that has it with
// the last.
func checkStreamPartitionIDChanged(a *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if len(a.series) < 2 || sr.BaseTableName == "" {
		return nil
	}
	var changed []string
	ev := map[string]string{}
	for i := range sr.Partitions {
		unit := sr.Partitions[i].Unit
		now := a.parts[sr.BaseTableDB+"\x00"+sr.BaseTableName+"\x00"+unit]
		if now == nil || now.ID == nil {
			continue
		}
		for _, snap := range a.series[:len(a.series)-1] {
			var then *int64
			for j := range snap.Partitions {
				p := &snap.Partitions[j]
				if p.DB == sr.BaseTableDB && p.Table == sr.BaseTableName && p.Name == unit {
					then = p.ID
					break
				}
			}
			if then == nil {
				continue
			}
			if *then != *now.ID {
				changed = append(changed, unit)
				ev["partition_id."+unit] = strconv.FormatInt(*then, 10) + "->" + strconv.FormatInt(*now.ID, 10)
			}
			break
		}
	}
	if len(changed) == 0 {
		return nil
	}
	sort.Strings(changed)
	e := s.ev("partitions", strings.Join(changed, ","), "heuristic", "true")
	for k, v := range ev {
		e[k] = v
	}
	return s.finding(CodePartitionIDChanged, fmt.Sprintf("base partition %s of %s has a new PARTITION_ID since an earlier snapshot: the consumer must resync it (a heuristic)", strings.Join(first(changed, 3), ", "), doris.FormatName(sr.BaseTableDB, sr.BaseTableName)),
		"TRUNCATE or REPLACE PARTITION gives a partition a new id and writes no row binlog: changes not yet consumed before it are gone and the rows written since come again from the beginning. A heuristic: a dropped and re-added partition of the same name changes the id too.",
		e, "Resync the partition from the base table ("+doris.CopyPartition(sr.BaseTableDB, sr.BaseTableName, changed[0])+"), deduplicating against what the consumer has.")
}
