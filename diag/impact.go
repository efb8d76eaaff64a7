package diag

import (
	"fmt"
	"strconv"
)

// Impact is what a finding costs the user, worst first (issue 13, "Worst
// first, by what it costs the user"): findings are ordered by impact class,
// then severity, then the code's place in its class, then by how bad (the
// code's magnitude: the largest delay, the most negative headroom), so that
// silent data loss is read before a /metrics escaping problem.
type Impact int

// The impact classes, worst first.
const (
	// ImpactLoss: changes already lost or about to be (clipped reads, rows
	// skipped, an offset that cannot resume, headroom running out).
	ImpactLoss Impact = iota + 1
	// ImpactBroken: refreshes or reads that no longer work (failing,
	// stuck, paused, stale, a refresh that can only recompute).
	ImpactBroken
	// ImpactFreshness: data behind its target, recomputation, space.
	ImpactFreshness
	// ImpactVisibility: what dorisdiag or the FE monitor cannot see (a
	// source unreadable, a /metrics payload that does not parse, a stale
	// monitor, server and client disagreeing).
	ImpactVisibility
	// ImpactHygiene: disabled streams, /metrics style.
	ImpactHygiene
)

func (i Impact) String() string {
	switch i {
	case ImpactLoss:
		return "loss"
	case ImpactBroken:
		return "broken"
	case ImpactFreshness:
		return "freshness"
	case ImpactVisibility:
		return "visibility"
	case ImpactHygiene:
		return "hygiene"
	}
	return fmt.Sprintf("impact(%d)", int(i))
}

// impactEntry ranks one code: its class and the evidence key that says how
// bad one finding of it is (larger is worse; negate for values where smaller
// is worse, such as a headroom).
type impactEntry struct {
	code   Code
	class  Impact
	key    string // evidence key of the magnitude ("" when none)
	negate bool
}

// impactTable is every registered code, worst first: the order within a class
// is the order here (TestEveryCodeHasAnImpact keeps it complete). It is the
// one place the ranking lives; renderers only follow the order SortFindings
// leaves.
var impactTable = []impactEntry{
	// Changes lost, silently first.
	{CodeStreamCannotResumeClipped, ImpactLoss, "headroom_seconds", true},
	{CodeStreamNoOffsetRowsSkipped, ImpactLoss, "data_age_lower_seconds", false},
	{CodeMVRowsMayBeMissed, ImpactLoss, "", false},
	{CodeTSOOffsetExpired, ImpactLoss, "headroom_seconds", true},
	{CodeStreamCannotResumeRejected, ImpactLoss, "headroom_seconds", true},
	{CodeStreamHeadroomLow, ImpactLoss, "headroom_seconds", true},
	{CodeTSOHeadroomLow, ImpactLoss, "headroom_seconds", true},

	// Refreshes and reads broken.
	{CodeMVChangelogBroken, ImpactBroken, "headroom_seconds", true},
	{CodeMVInternalStreamMissing, ImpactBroken, "", false},
	{CodeMVRebuildRequired, ImpactBroken, "", false},
	{CodeMVConsecutiveFailures, ImpactBroken, "consecutive_failures", false},
	{CodeStreamBaseTableDropped, ImpactBroken, "", false},
	{CodeStreamStale, ImpactBroken, "", false},
	{CodeMVJobPaused, ImpactBroken, "", false},
	{CodeMVTaskStuckRunning, ImpactBroken, "running_seconds", false},
	{CodeMVTaskQueuedLong, ImpactBroken, "queued_seconds", false},
	{CodeMVNextRefreshRecomputes, ImpactBroken, "headroom_seconds", true},
	{CodeIVMStreamRecomputeOnly, ImpactBroken, "headroom_seconds", true},
	{CodeStreamIdleOutOfRetention, ImpactBroken, "headroom_seconds", true},

	// Freshness, recomputation and space.
	{CodeMVDelayHigh, ImpactFreshness, "data_delay_seconds", false},
	{CodeStreamPendingAgeHigh, ImpactFreshness, "pending_age_seconds", false},
	{CodeMVFallbacksRepeated, ImpactFreshness, "fallbacks_in_window", false},
	{CodeStreamLagInVersions, ImpactFreshness, "", false},
	{CodeChangelogTTLCleanupFailed, ImpactFreshness, "", false},
	{CodeMVExcludedDependencyOutdated, ImpactFreshness, "", false},
	{CodeMVInitializing, ImpactFreshness, "", false},

	// What cannot be seen.
	{CodeSourceUnreachable, ImpactVisibility, "", false},
	{CodeSourceMalformedValue, ImpactVisibility, "", false},
	{CodeMetricsUnparseable, ImpactVisibility, "count", false},
	{CodeMetricsTargetUnreachable, ImpactVisibility, "", false},
	{CodeMVStateUnknown, ImpactVisibility, "", false},
	{CodeStreamStateUnknown, ImpactVisibility, "", false},
	{CodeMonitorStale, ImpactVisibility, "", false},
	{CodeMetricsMonitorStale, ImpactVisibility, "", false},
	{CodeServerClientMismatch, ImpactVisibility, "", false},

	// Hygiene.
	{CodeStreamDisabled, ImpactHygiene, "", false},
	{CodeMetricsStateOnFollower, ImpactHygiene, "", false},
	{CodeMetricsNonconforming, ImpactHygiene, "count", false},
	{CodeMetricsLint, ImpactHygiene, "count", false},
}

// impactIndex maps a code name to its position in impactTable.
var impactIndex = func() map[string]int {
	m := make(map[string]int, len(impactTable))
	for i, e := range impactTable {
		if _, dup := m[e.code.String()]; dup {
			panic("diag: impactTable lists " + e.code.String() + " twice")
		}
		m[e.code.String()] = i
	}
	return m
}()

// ImpactOf is the impact class of a code (ImpactHygiene for a code missing
// from the table, which TestEveryCodeHasAnImpact forbids).
func ImpactOf(c Code) Impact {
	if i, ok := impactIndex[c.String()]; ok {
		return impactTable[i].class
	}
	return ImpactHygiene
}

// impactRank is the code's position in impactTable (worst first).
func impactRank(c Code) int {
	if i, ok := impactIndex[c.String()]; ok {
		return i
	}
	return len(impactTable)
}

// magnitude is how bad one finding of its code is, from its evidence:
// larger is worse; ok=false when the code has no magnitude or the finding
// does not carry it.
func magnitude(f *Finding) (float64, bool) {
	i, ok := impactIndex[f.Code.String()]
	if !ok || impactTable[i].key == "" {
		return 0, false
	}
	e := impactTable[i]
	v, err := strconv.ParseFloat(f.Evidence[e.key], 64)
	if err != nil {
		return 0, false
	}
	if e.negate {
		v = -v
	}
	return v, true
}

// worse reports whether a should be read before b: impact class, severity,
// the code's rank in its class, magnitude (a finding with one before one
// without), then code, object and summary so that the order is
// deterministic.
func worse(a, b *Finding) bool {
	if ca, cb := ImpactOf(a.Code), ImpactOf(b.Code); ca != cb {
		return ca < cb
	}
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if ra, rb := impactRank(a.Code), impactRank(b.Code); ra != rb {
		return ra < rb
	}
	ma, oka := magnitude(a)
	mb, okb := magnitude(b)
	if oka != okb {
		return oka
	}
	if oka && ma != mb {
		return ma > mb
	}
	if a.Code != b.Code {
		return a.Code.String() < b.Code.String()
	}
	if as, bs := a.Object.String(), b.Object.String(); as != bs {
		return as < bs
	}
	return a.Summary < b.Summary
}
