package diag

import (
	"github.com/dorisdiag/dorisdiag/doris"
	"strings"
	"time"
)

func timeText(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

// headline is the one-line answer of `mv explain`: the state and delay with
// the dependency that holds the MV back, then the true cause (the first
// finding in cause order), then the next step.
func (a *mvAnalyzer) headline(r *MVResult, fs []Finding) string {
	var parts []string
	w := r.worstTrigger()
	switch r.FreshnessState {
	case FreshFresh:
		if r.Server == nil && !a.caps.IvmMVStatus {
			// A dirty partition is invisible without the server's table: say
			// so rather than claim more than this build shows.
			parts = append(parts, "fresh as far as this build shows (a dirty partition needs ivm_mv_status to be seen)")
		} else {
			parts = append(parts, "fresh")
		}
	case FreshLagging:
		s := valueText(r.DataDelay) + " behind"
		if w != nil && w.Delay.Get(0) > 0 {
			s += " because base table " + w.BaseTableDB + "." + w.BaseTableName
			if w.WorstPartition != "" {
				s += " partition " + w.WorstPartition
			}
			if w.worstOffsetState() == OffsetNone {
				s += " has data its internal stream has no offset for"
			} else {
				s += " has changes its internal stream has not consumed"
			}
		} else if r.LaggingReason == ReasonPublishing {
			s += ": a refresh is committed and not visible yet"
		}
		parts = append(parts, s)
	case FreshRebuildRequired:
		s := "needs a rebuild"
		if d := r.dirtyText(); d != "" {
			s += " of dirty partition(s) " + d
		}
		parts = append(parts, s+"; "+valueText(r.DataDelay)+" behind")
	case FreshInitializing:
		parts = append(parts, "never refreshed successfully")
	default:
		parts = append(parts, "freshness "+r.FreshnessState+": "+r.StateReason)
	}
	var cause *Finding
	for i := range fs {
		if fs[i].Code != CodeMVDelayHigh && fs[i].Code != CodeMVStateUnknown && fs[i].Code != CodeMVInitializing {
			cause = &fs[i]
			break
		}
	}
	switch {
	case cause != nil:
		parts = append(parts, cause.Summary)
	case r.FreshnessState == FreshLagging:
		parts = append(parts, "lagging reason "+r.LaggingReason)
	}
	if len(fs) > 0 && fs[0].Next != "" {
		first := fs[0].Next
		if cause != nil && cause.Next != "" {
			first = cause.Next
		}
		for _, line := range SplitNext(first) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "--") {
				parts = append(parts, "next: "+line)
				break
			}
		}
	}
	return strings.Join(parts, "; ")
}

// nextSQL is what to paste: the fix of the true cause first, then the
// seed's section 2 queries filled in for this MV (only those the build has).
func (a *mvAnalyzer) nextSQL(r *MVResult, fs []Finding) []string {
	var out []string
	seen := map[string]bool{}
	push := func(s string) {
		for _, line := range SplitNext(s) {
			line = strings.TrimSpace(line)
			if line != "" && !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
		}
	}
	for i := range fs {
		if fs[i].Next != "" && !strings.HasPrefix(fs[i].Next, "dorisdiag ") {
			push(fs[i].Next)
			break
		}
	}
	if a.caps.IvmMVStatus {
		push("SELECT DB_NAME, MV_NAME, FRESHNESS_STATE, DATA_DELAY_SECONDS, DELAY_PRECISION, LAGGING_REASON, CONSECUTIVE_FAILURES, LAST_FAILURE_REASON, SAMPLE_TIME " +
			"FROM information_schema.ivm_mv_status WHERE DB_NAME = " + doris.QuoteLiteral(r.DB) + " AND MV_NAME = " + doris.QuoteLiteral(r.Name) + ";")
	} else {
		// The database as a single-quoted literal, as the collector sends it
		// (doris.MVInfosRel): QuoteLiteral's escapes hold for any name.
		push("SELECT Name, State, RefreshState, RefreshInfo, SyncWithBaseTables FROM mv_infos('database' = " + doris.QuoteLiteral(r.DB) + ") WHERE Name = " + doris.QuoteLiteral(r.Name) + ";")
	}
	if a.caps.IvmDependencies {
		push("SELECT BASE_TABLE_DB, BASE_TABLE_NAME, IS_EXCLUDED_TRIGGER, DEPENDENCY_STATE, DELAY_SECONDS, LAGGING_PARTITIONS, WORST_PARTITION, STREAM_ID " +
			"FROM information_schema.ivm_dependencies WHERE DB_NAME = " + doris.QuoteLiteral(r.DB) + " AND MV_NAME = " + doris.QuoteLiteral(r.Name) + " ORDER BY DELAY_SECONDS DESC;")
	} else {
		push("SELECT STREAM_NAME, STREAM_ID, BASE_TABLE_DB, BASE_TABLE_NAME, ENABLED, IS_STALE FROM information_schema.table_streams WHERE " +
			ivmStreamsWhere(r.DB, r.Name, a.mvNamesIn(r.DB)) + ";")
	}
	if w := r.worstTrigger(); w != nil && w.StreamID != nil {
		push(consumptionSQL(*w.StreamID, a.caps.ConsumptionT2))
	}
	push(tasksSQL(r, a.caps.IvmRefreshMethod))
	return out
}

// mvNamesIn lists the MV names of database db in the snapshot.
func (a *mvAnalyzer) mvNamesIn(db string) []string {
	var out []string
	for i := range a.snap.MVs {
		if a.snap.MVs[i].DB == db {
			out = append(out, a.snap.MVs[i].Name)
		}
	}
	return out
}

// worstOffsetState is the offset state of the dependency's worst partition.
func (d *DependencyResult) worstOffsetState() string {
	if d.stream == nil {
		return ""
	}
	for i := range d.stream.Partitions {
		if d.stream.Partitions[i].Unit == d.WorstPartition {
			return d.stream.Partitions[i].OffsetState
		}
	}
	return ""
}
