package mv

import (
	"fmt"
	"sort"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
)

// The checks of one IVM MV (apache/doris#69907 §1 S1–S3), in the shape of
// go/analysis passes: each hazard is one function, listed below with the
// code it raises. A check's function and its code's declaration sit
// together in the checks_*.go file of its concern; adding one is that
// function, that declaration and its entry here.

// mvCheck is one hazard of one MV: the code it raises and the function that
// raises it (no finding when the hazard is absent).
type mvCheck struct {
	code diag.Code
	run  func(a *mvAnalyzer, m *mvFacts) []diag.Finding
}

// mvChecks run in this order, which is also the order `mv explain` reads
// one MV's findings in (sortByCause): causes first, then what they explain —
// a failing refresh explains a delay, not the other way round.
var mvChecks = []mvCheck{
	{CodeChangelogBroken, checkMVChangelogBroken},
	{CodeIVMBaselineBroken, checkMVIVMBaselineBroken},
	{CodeSchemaChange, checkMVSchemaChange},
	{CodeIncrWindowNotReady, checkMVIncrWindowNotReady},
	{CodeInternalStreamMissing, checkMVInternalStreamMissing},
	{CodeRebuildRequired, checkMVRebuildRequired},
	{CodeJobPaused, checkMVJobPaused},
	{CodeTaskStuckRunning, checkMVTaskStuckRunning},
	{CodeTaskQueuedLong, checkMVTaskQueuedLong},
	{CodeConsecutiveFailures, checkMVConsecutiveFailures},
	{CodeRowsMayBeMissed, checkMVRowsMayBeMissed},
	{CodeNextRefreshRecomputes, checkMVNextRefreshRecomputes},
	{CodeFallbacksRepeated, checkMVFallbacksRepeated},
	{CodeExcludedDependencyOutdated, checkMVExcludedDependencyOutdated},
	{CodeStateUnknown, checkMVStateUnknown},
	{CodeInitializing, checkMVInitializing},
	{streams.CodeServerClientMismatch, checkMVServerClientMismatch},
	{CodeDelayHigh, checkMVDelayAtLeast},
	{CodeDelayHigh, checkMVDelayHigh},
}

// causeRank is the place of a code in mvChecks: the order of `mv explain`.
func causeRank(code diag.Code) int {
	for i, c := range mvChecks {
		if c.code == code {
			return i
		}
	}
	return len(mvChecks)
}

// sortByCause orders one MV's findings from cause to symptom.
func sortByCause(fs []diag.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if a, b := causeRank(fs[i].Code), causeRank(fs[j].Code); a != b {
			return a < b
		}
		return fs[i].Summary < fs[j].Summary
	})
}

func (a *mvAnalyzer) mvFindings(r *MV) []diag.Finding {
	m := newMVFacts(r)
	var fs []diag.Finding
	for _, check := range mvChecks {
		fs = append(fs, check.run(a, m)...)
	}
	return ttl.Qualify(a.snap.TTL(), a.ttlProperty(), fs, expiryCode)
}

// expiryCode: the MV findings whose conclusion rests on expiry (T9–T11),
// worded under the build's TTL enforcement (ttl.Qualify). A
// refresh that failed with the expired-offset error is itself the proof.
func expiryCode(c diag.Code) bool { return c == CodeRowsMayBeMissed || c == CodeNextRefreshRecomputes }

// ttlProperty is the TTL property of the cluster's naming.
func (a *mvAnalyzer) ttlProperty() string {
	if a.snap.Cluster.Naming != "" {
		return a.snap.Cluster.Naming + ".ttl_seconds"
	}
	return ""
}

// mvFacts is what the checks of one MV share.
type mvFacts struct {
	r        *MV
	h        *refresh.History
	obj      diag.Object
	worstDep *Dependency
	// The refreshes are still failing when the latest task that succeeded
	// or failed failed; canceled tasks in between change nothing (seed §3).
	stillFailing    bool
	changelogBroken bool // still failing on an expired offset (T0): CHANGELOG_BROKEN, or BINLOG_BROKEN with the expired-offset text
}

func newMVFacts(r *MV) *mvFacts {
	id := r.ID
	h := &r.History
	m := &mvFacts{r: r, h: h, obj: diag.Object{Kind: "mv", DB: r.DB, Name: r.Name, ID: &id}, worstDep: r.worstTrigger()}
	m.stillFailing = h.ConsecutiveFailures > 0 && h.LastFailure != nil
	// An expired offset, not a broken IVM baseline (baseline.go): BINLOG_BROKEN
	// counts only with the expired-offset text.
	m.changelogBroken = m.stillFailing && isExpiryBroken(string(h.LastFailure.FailureReason), h.LastFailure.ErrorMsg)
	if r.Server != nil && m.stillFailing && isExpiryBroken(r.Server.LastFailureReason, r.Server.LastErrorMessage+" "+h.LastFailure.ErrorMsg) {
		m.changelogBroken = true
	}
	return m
}

// finding is a finding about the MV at the code's default severity.
func (m *mvFacts) finding(code diag.Code, summary, detail string, ev map[string]string, next string) diag.Finding {
	return diag.Finding{Code: code, Severity: code.Severity(), Object: m.obj, Summary: summary, Detail: detail, Evidence: ev, Next: next}
}

func (m *mvFacts) one(code diag.Code, summary, detail string, ev map[string]string, next string) []diag.Finding {
	return []diag.Finding{m.finding(code, summary, detail, ev, next)}
}

// measured sets the magnitude (Declaration.Magnitude) of the findings: the
// number their evidence shows too.
func (m *mvFacts) measured(v *float64, fs []diag.Finding) []diag.Finding {
	for i := range fs {
		if v != nil {
			fs[i].Magnitude = f64(*v)
		}
	}
	return fs
}

// ev is the evidence every MV finding carries plus the non-empty pairs kv.
func (m *mvFacts) ev(kv ...string) map[string]string {
	out := map[string]string{"freshness_state": string(m.r.FreshnessState), "state_source": m.r.StateSource}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// criticalAt3x raises a delay finding to critical at 3× the target.
func (a *mvAnalyzer) criticalAt3x(f *diag.Finding, delay float64) {
	if delay >= 3*a.opt.MaxDelay.Seconds() {
		f.Severity = diag.SeverityCritical
		f.Detail += fmt.Sprintf(" Critical: at least 3× the %s target.", diag.DurationText(a.opt.MaxDelay.Seconds()))
	}
}
