package mv

import (
	"regexp"
	"strings"
	"sync"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// An MV invalidated by DDL (docs/notes-realbuilds-evidence.md "An MV
// invalidated by DDL"). Doris sets mv_infos().State SCHEMA_CHANGE with
// SchemaChangeDetail when a base table is dropped or altered, a base view is
// altered, or (on IVM builds) an alter touches what the MV's query reads
// (MTMVRelationManager dropTable/alterTable/alterView; MTMV.invalidateWholeMv).
// Until a refresh succeeds the MV is not used for transparent rewriting
// (direct queries are not affected); a successful refresh sets NORMAL, and
// an IVM MV's next refresh recomputes its baseline. SCHEMA_CHANGE proves a
// whole-MV invalidation; its absence does not prove that no partition must
// be rebuilt (a narrowed barrier shows in no mv_infos() column).

// CodeSchemaChange: A base-table change invalidated the MV (State SCHEMA_CHANGE)
var CodeSchemaChange = diag.Declare(diag.Declaration{
	Code:     "MV_SCHEMA_CHANGE",
	Action:   "refresh the MV COMPLETE at a quiet time",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactFreshness,
	Place:    9,
	Title:    "A base-table change invalidated the MV (State SCHEMA_CHANGE)",
	Spec:     "docs/notes-realbuilds-evidence.md \"An MV invalidated by DDL\" (Doris MTMVRelationManager, IvmBaselineRebuildTest); the materialized-view docs (\"If the state changes to SCHEMA_CHANGE ...\")",
	Meaning: "mv_infos() reports State SCHEMA_CHANGE: a base table was dropped or altered, a base view altered, or an alter touched a column the MV's query reads " +
		"(TRUNCATE, DROP/REPLACE PARTITION, dropping or retyping a used column on a self-managed IVM MV). SchemaChangeDetail says which, as Doris wrote it. " +
		"Until a refresh succeeds the MV is not used for transparent rewriting (querying it directly still works); a successful refresh sets NORMAL, and on an IVM MV it " +
		"recomputes the baseline instead of applying a delta. A dropped base table makes every refresh fail until it is recovered or the MV recreated.",
	Matters: "Queries that were rewritten onto the MV go to the base tables (slower) and, for an IVM MV, the next refresh is a full recompute. Such DDL writes no row binlog: stream consumers of the same table must resync too.",
	Confirm: "SELECT Name, State, SchemaChangeDetail, RefreshState FROM mv_infos(\"database\" = \"<db>\") WHERE State = 'SCHEMA_CHANGE';",
	Fix:     "REFRESH MATERIALIZED VIEW <db>.<mv> COMPLETE at a quiet time; if the detail says the base table has been deleted, RECOVER TABLE it while it is in the recycle bin, or recreate the MV.",
	Related: []string{"MV_REBUILD_REQUIRED", "MV_IVM_BASELINE_BROKEN", "STREAM_PARTITION_ID_CHANGED"},
})

// baseTableInfo reads BaseTableInfo{tableName='t', dbName='d', ctlName='c'}
// (the toString of Doris's BaseTableInfo) out of SchemaChangeDetail.
var baseTableInfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`BaseTableInfo\{tableName='([^']*)', dbName='([^']*)'`)
}) // compiled at the first use, not at every start

func checkMVSchemaChange(_ *mvAnalyzer, m *mvFacts) []diag.Finding {
	r := m.r
	if !strings.EqualFold(strings.TrimSpace(r.State), "SCHEMA_CHANGE") {
		return nil
	}
	detail := strings.TrimSpace(r.SchemaChangeDetail)
	next := doris.Note(doris.RefreshMV(r.DB, r.Name, "COMPLETE"), "at a quiet time: a successful refresh sets State NORMAL")
	what := "Its next successful refresh sets State NORMAL"
	if r.Refresh.IsIncremental() {
		what += " and recomputes the MV (an IVM baseline rebuild), not a delta"
	}
	what += "; until then it is not used for transparent rewriting (querying it directly still works)."
	ev := m.ev("mv_state", r.State, "schema_change_detail", detail)
	if mt := baseTableInfo().FindStringSubmatch(detail); mt != nil {
		ev["base_table"] = mt[2] + "." + mt[1]
		if strings.Contains(strings.ToLower(detail), "has been deleted") {
			what = "The base table is dropped: every refresh fails until it is back. RECOVER TABLE restores it while it is in the recycle bin; then a successful refresh sets State NORMAL."
			next = doris.Note(doris.RecoverTable(mt[2], mt[1])+";", "while it is in the recycle bin; then "+doris.RefreshMV(r.DB, r.Name, "COMPLETE"))
		}
	}
	summary := "invalidated by a base-table change (State SCHEMA_CHANGE)"
	if detail != "" {
		summary += ": " + truncateText(detail, 160)
	}
	return m.one(CodeSchemaChange, summary, ifText(detail != "", "SchemaChangeDetail: "+detail+". ")+what, ev, next)
}
