package mv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/streams"

	"github.com/dorisdiag/dorisdiag/diag"

	"github.com/dorisdiag/dorisdiag/doris"
)

// causeOrder ranks MV codes from root cause to symptom, so that `mv explain`
// names the cause first and the delay it produces after (a failing refresh
// explains a delay, not the other way round).
var causeOrder = []diag.Code{
	CodeChangelogBroken, CodeInternalStreamMissing, CodeRebuildRequired, CodeJobPaused, CodeTaskStuckRunning,
	CodeTaskQueuedLong, CodeConsecutiveFailures, CodeRowsMayBeMissed, CodeNextRefreshRecomputes,
	CodeFallbacksRepeated, CodeExcludedDependencyOutdated, CodeStateUnknown, CodeInitializing,
	streams.CodeServerClientMismatch, CodeDelayHigh,
}

func causeRank(code diag.Code) int {
	for i, c := range causeOrder {
		if c == code {
			return i
		}
	}
	return len(causeOrder)
}

func sortByCause(fs []diag.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if a, b := causeRank(fs[i].Code), causeRank(fs[j].Code); a != b {
			return a < b
		}
		return fs[i].Summary < fs[j].Summary
	})
}

// worstTrigger is the trigger dependency with the largest delay.
func (r *MV) worstTrigger() *Dependency {
	var w *Dependency
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded {
			continue
		}
		if w == nil || d.Delay.Get(-1) > w.Delay.Get(-1) {
			w = d
		}
	}
	return w
}

// expiredTrigger is a trigger dependency whose internal stream cannot resume.
func (r *MV) expiredTrigger() *Dependency {
	d := r.lowestHeadroomTrigger()
	if d != nil && ((d.CanResume != nil && !*d.CanResume) || d.DependencyState == DepCannotResume) {
		return d
	}
	return nil
}

func (r *MV) lowestHeadroomTrigger() *Dependency {
	var w *Dependency
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded || d.HeadroomSeconds == nil {
			continue
		}
		if w == nil || *d.HeadroomSeconds < *w.HeadroomSeconds {
			w = d
		}
	}
	return w
}

func streamNext(d *Dependency, t2 bool) string {
	if d.StreamID == nil {
		return "dorisdiag streams"
	}
	return doris.SuggestStreamOffsets(*d.StreamID, t2)
}

func knownState(s string) bool {
	for _, k := range FreshnessStates {
		if s == k {
			return true
		}
	}
	return false
}

func depText(d *Dependency) string {
	if d == nil || d.Delay.Get(0) <= 0 {
		return ""
	}
	s := " on " + d.BaseTableDB + "." + d.BaseTableName
	if d.WorstPartition != "" {
		s += " partition " + d.WorstPartition
	}
	return s
}

func depName(d *Dependency) string {
	if d == nil {
		return ""
	}
	return d.BaseTableDB + "." + d.BaseTableName
}

func depPart(d *Dependency) string {
	if d == nil {
		return ""
	}
	return d.WorstPartition
}

func reasonsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func shareText(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%.0f%%", *p*100)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func ifText(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func mvTimeText(ms *int64) string {
	if ms == nil {
		return "an unknown time"
	}
	return timeText(*ms)
}
