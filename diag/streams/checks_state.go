package streams

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// The checks of what table_streams says of a stream: enabled, stale, its
// base table, its state, how its build counts LAG. They run on every stream.

// CodeDisabled: The stream is disabled (ENABLED = 0)
var CodeDisabled = diag.Declare(diag.Declaration{
	Code: "STREAM_DISABLED", Severity: diag.SeverityWarning,
	Action: "enable the stream again, or drop it",
	Impact: diag.ImpactHygiene, Place: 1,
	Series:  "doris_fe_changelog_streams{state=\"disabled\"}",
	Title:   "The stream is disabled (ENABLED = 0)",
	Spec:    "apache/doris#69907 §3 States (disabled)",
	Meaning: "table_streams reports ENABLED = false.",
	Matters: "Nothing consumes it, while the TTL keeps expiring the changelog behind its offsets: when it is enabled again it may not be able to resume.",
	Confirm: "SELECT STREAM_NAME, ENABLED FROM information_schema.table_streams WHERE NOT ENABLED;",
	Fix:     "Enable it again if it is still needed (and check its headroom first: dorisdiag streams show DB.STREAM), or drop it.",
	Related: []string{"STREAM_HEADROOM_LOW"},
})

func checkStreamDisabled(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if s.sr.Enabled || s.sr.droppedNamed() { // a symptom of the drop (STREAM_BASE_TABLE_DROPPED)
		return nil
	}
	return s.finding(CodeDisabled, "stream is disabled (ENABLED = 0): nothing consumes it while the TTL keeps moving",
		"A disabled stream keeps its offsets, but the TTL still expires the changelog behind them.", s.ev(),
		doris.SuggestStreamColumns(s.sr.ID, doris.TableStreams.Enabled))
}

// CodeBaseTableDropped: The stream's base table is dropped
var CodeBaseTableDropped = diag.Declare(diag.Declaration{
	Code: "STREAM_BASE_TABLE_DROPPED", Severity: diag.SeverityCritical,
	Action: "recover the table, or drop the stream",
	Impact: diag.ImpactBroken, Place: 5,
	Title: "The stream's base table is dropped",
	Spec:  "docs/snapshot.md \"A dropped base table\" (both shapes of table_streams after DROP TABLE)",
	Meaning: "The table the stream reads is gone. Builds differ in how table_streams shows it: later builds keep BASE_TABLE_NAME, BASE_TABLE_DB and BASE_TABLE_CTL, " +
		"write N/A in BASE_TABLE_TYPE only, and set ENABLED false, IS_STALE true and STALE_REASON 'Base table does not exist'; earlier builds write N/A in all four BASE_TABLE_* columns. " +
		"The disabled and stale flags are symptoms of the drop, not separate problems.",
	Matters: "The stream cannot be read; a job that consumes it fails. While the table is in the recycle bin (a DROP TABLE without FORCE, within catalog_trash_expire_second), " +
		"RECOVER TABLE restores it and the stream reads again from its offsets; a new table of the same name does not restore the stream.",
	Confirm: "SELECT STREAM_NAME, BASE_TABLE_DB, BASE_TABLE_NAME, BASE_TABLE_TYPE, ENABLED, IS_STALE, STALE_REASON FROM information_schema.table_streams WHERE BASE_TABLE_TYPE = 'N/A';\n" +
		"SHOW CATALOG RECYCLE BIN WHERE NAME = '<table>';",
	Fix: "If the drop was a mistake and the table is in the recycle bin: RECOVER TABLE <db>.<table>. Otherwise (a FORCE drop, or the table is meant to be gone) " +
		"DROP STREAM <db>.<stream> after checking no job still reads it, and recreate it on the new table if the table was replaced.",
	Related: []string{"STREAM_STALE", "STREAM_DISABLED"},
})

// droppedNamed: the later builds' shape of a dropped base table, which keeps
// the table's name and disables the stream and marks it stale as symptoms
// (snapshot.DroppedTypeNA). What the earlier builds' flags held after a drop
// is not evidenced: their stale and disabled findings stay.
func (sr *Stream) droppedNamed() bool { return sr.BaseTableDropped && sr.BaseTableName != "" }

func checkStreamBaseTableDropped(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if !sr.BaseTableDropped {
		return nil
	}
	ev := s.ev("shape", sr.baseTableDroppedShape, "enabled", strconv.FormatBool(sr.Enabled), "is_stale", strconv.FormatBool(sr.IsStale), "stale_reason", sr.StaleReason)
	if sr.BaseTableName == "" {
		// The earlier shape: no column names the table.
		return s.finding(CodeBaseTableDropped, "the stream's base table is dropped (BASE_TABLE_* columns read N/A)",
			"The stream cannot be read; table_streams no longer names the table, so which table to recover is not known (SHOW CATALOG RECYCLE BIN lists dropped tables).", ev,
			doris.Note(doris.DropStream(sr.DB, sr.Name)+";", "after checking no job still reads it; or RECOVER TABLE the base table if it is still in the recycle bin"))
	}
	tbl := doris.FormatName(sr.BaseTableDB, sr.BaseTableName)
	ev["base_table"] = sr.BaseTableDB + "." + sr.BaseTableName
	symptoms := ""
	if !sr.Enabled || sr.IsStale {
		symptoms = " The stream is disabled and stale because of it (" + orNone(sr.StaleReason) + "): nothing else to fix."
	}
	return s.finding(CodeBaseTableDropped, "base table "+tbl+" is dropped: RECOVER TABLE while it is in the recycle bin",
		"table_streams keeps the table's name and writes N/A in BASE_TABLE_TYPE: the table was dropped. RECOVER TABLE restores it while it is in the recycle bin, and the stream reads again from its offsets; after DROP TABLE ... FORCE it cannot be recovered."+symptoms, ev,
		doris.Note(doris.RecoverTable(sr.BaseTableDB, sr.BaseTableName)+";", "while it is in the recycle bin; if it was dropped with FORCE: "+doris.DropStream(sr.DB, sr.Name)+" FORCE"))
}

// CodeStale: The stream is stale (IS_STALE)
var CodeStale = diag.Declare(diag.Declaration{
	Code: "STREAM_STALE", Severity: diag.SeverityCritical,
	Action: "recreate the stream, re-sync its consumer",
	Impact: diag.ImpactBroken, Place: 6,
	CausedBy: []diag.Cause{{Code: "STREAM_BASE_TABLE_DROPPED"}},
	Series:   "doris_fe_changelog_streams{state=\"stale\"}",
	Title:    "The stream is stale (IS_STALE)",
	Spec:     "apache/doris#69907 §3 States (stale), docs/snapshot.md",
	Meaning:  "table_streams reports IS_STALE = true (STALE_REASON says why), including when the base table was dropped. IS_STALE does not report TTL expiry.",
	Matters:  "A stale stream cannot be read; its consumer is stopped.",
	Confirm:  "SELECT STREAM_NAME, IS_STALE, STALE_REASON FROM information_schema.table_streams WHERE IS_STALE;",
	Fix:      "Recreate the stream (DROP STREAM, CREATE STREAM) and re-sync its consumer from the base table.",
	Related:  []string{"STREAM_BASE_TABLE_DROPPED"},
})

func checkStreamStale(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	sr := s.sr
	if !sr.IsStale && !sr.BaseTableDropped || sr.droppedNamed() { // the later builds' drop: a symptom (STREAM_BASE_TABLE_DROPPED)
		return nil
	}
	reason := sr.StaleReason
	if reason == "" && sr.BaseTableDropped {
		reason = "base table dropped"
	}
	return s.finding(CodeStale, "stream is stale (IS_STALE): "+orNone(reason),
		"A stale stream cannot be read; recreate it. Note IS_STALE does not report TTL expiry (docs/snapshot.md).", s.ev("stale_reason", reason),
		doris.SuggestStreamColumns(s.sr.ID, doris.TableStreams.IsStale, doris.TableStreams.StaleReason))
}

// CodeStateUnknown: The stream's state cannot be determined
var CodeStateUnknown = diag.Declare(diag.Declaration{
	Code: "STREAM_STATE_UNKNOWN", Severity: diag.SeverityWarning,
	Action: "fix the read (privileges, timeout)",
	Impact: diag.ImpactVisibility, Place: 6,
	Series:  "doris_fe_changelog_streams{state=\"unknown\"}",
	Title:   "The stream's state cannot be determined",
	Spec:    "apache/doris#69907 §3 States (unknown)",
	Meaning: "An offset could not be read (a malformed CONSUMPTION_STATUS, a cloud read state UNKNOWN), table_stream_consumption could not be read, or it has no row for the stream.",
	Matters: "Resume, headroom and pending age are unknown, so a stream about to lose changes would not be reported.",
	Confirm: "SELECT * FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;\ndorisdiag snapshot --summary",
	Fix:     "Fix the read (privileges, timeout), or report the value to the dorisdiag maintainers if it is legitimate Doris output.",
	Related: []string{"SOURCE_UNREACHABLE", "SOURCE_MALFORMED_VALUE"},
})

func checkStreamStateUnknown(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if s.sr.State != StateUnknown {
		return nil
	}
	return s.finding(CodeStateUnknown, "stream state unknown: "+s.sr.StateReason,
		"Without a readable offset the tool cannot tell resume, headroom or pending age.", s.ev(), s.consQ)
}

// CodeLagInVersions: The build counts LAG in partition versions, not TSO
var CodeLagInVersions = diag.Declare(diag.Declaration{
	Code: "STREAM_LAG_IN_VERSIONS", Severity: diag.SeverityInfo,
	Action: "nothing to fix, upgrade for TSO LAG",
	Impact: diag.ImpactFreshness, Place: 4,
	Title:   "The build counts LAG in partition versions, not TSO",
	Spec:    "docs/snapshot.md (older builds counted LAG in versions)",
	Meaning: "A LAG between 1 and 2^18 while the offset is a real TSO would be under one millisecond of TSO distance: the build probably counts LAG in partition versions. dorisdiag does not convert it to time; the pending age then uses the offset only (UPPER_BOUND) and the source end is unknown.",
	Matters: "Converting a version count to milliseconds would report nonsense delays; the position gap and lost window are unknown.",
	Confirm: "SELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption;  -- LAG small integers",
	Fix:     "Nothing to fix on the stream; upgrade Doris for TSO LAG and the SOURCE_END_TSO column of apache/doris#69907.",
	Related: []string{"STREAM_PENDING_AGE_HIGH"},
})

func checkStreamLagInVersions(_ *streamAnalyzer, s *streamFacts) []diag.Finding {
	if !s.sr.LagInVersions {
		return nil
	}
	var units []string
	for _, p := range s.sr.Partitions {
		if p.LagInVersions {
			units = append(units, p.Unit)
		}
	}
	return s.finding(CodeLagInVersions, "LAG probably counts partition versions (old build), not TSO: not converted to time",
		fmt.Sprintf("LAG is below 2^18 while the offset is a TSO on %d partition(s) (%s): older builds counted LAG in versions (docs/snapshot.md). Pending ages use the offset only (UPPER_BOUND).", len(units), strings.Join(first(units, 5), ", ")),
		s.ev("partitions", strconv.Itoa(len(units))), s.consQ)
}
