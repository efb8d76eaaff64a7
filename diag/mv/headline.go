package mv

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/doris"
)

// headline is the one-line answer of `mv explain`: the state and delay with
// the dependency that holds the MV back, then the true cause (the first
// finding in cause order), then the next step.
func (a *mvAnalyzer) headline(r *MV, fs []diag.Finding) string {
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
		s := diag.ValueText(r.DataDelay) + " behind"
		if w != nil && w.Delay.Get(0) > 0 {
			s += " because base table " + w.BaseTableDB + "." + w.BaseTableName
			if w.WorstPartition != "" {
				s += " partition " + w.WorstPartition
			}
			if w.worstOffsetState() == streams.OffsetNone {
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
		parts = append(parts, s+"; "+diag.ValueText(r.DataDelay)+" behind")
	case FreshInitializing:
		parts = append(parts, "never refreshed successfully")
	default:
		parts = append(parts, "freshness "+string(r.FreshnessState)+": "+r.StateReason)
	}
	var cause *diag.Finding
	for i := range fs {
		if fs[i].Code != CodeDelayHigh && fs[i].Code != CodeStateUnknown && fs[i].Code != CodeInitializing {
			cause = &fs[i]
			break
		}
	}
	switch {
	case cause != nil:
		parts = append(parts, cause.Summary)
	case r.FreshnessState == FreshLagging:
		parts = append(parts, "lagging reason "+string(r.LaggingReason))
	}
	if len(fs) > 0 && fs[0].Next != "" {
		first := fs[0].Next
		if cause != nil && cause.Next != "" {
			first = cause.Next
		}
		for _, line := range diag.SplitNext(first) {
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
func (a *mvAnalyzer) nextSQL(r *MV, fs []diag.Finding) []string {
	var out []string
	seen := map[string]bool{}
	push := func(s string) {
		for _, line := range diag.SplitNext(s) {
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
		push(doris.SuggestMVStatus(r.DB, r.Name, true))
	} else {
		push(doris.SuggestMVInfo(r.DB, r.Name))
	}
	if a.caps.IvmDependencies {
		push(doris.SuggestMVDependencies(r.DB, r.Name))
	} else {
		push(doris.SuggestInternalStreams(r.DB, r.Name, a.mvNamesIn(r.DB), true))
	}
	if w := r.worstTrigger(); w != nil && w.StreamID != nil {
		push(doris.SuggestStreamOffsets(*w.StreamID, a.caps.ConsumptionT2))
	}
	push(doris.SuggestMVTasks(r.DB, r.Name, a.caps.IvmRefreshMethod))
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
