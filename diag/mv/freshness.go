package mv

import (
	"fmt"
	"math"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// An MV's freshness state, data delay and lagging reason, computed
// client-side and taken from ivm_mv_status when the build has it.

// clientFreshness computes state, delay and lagging reason from the raw
// sources (seed §3 "States", "MV data delay", LAGGING_REASON).
func (a *mvAnalyzer) clientFreshness(r *MV, mv *snapshot.MVInfo) {
	r.StateSource, r.LaggingReasonSource = diag.SourceClient, diag.SourceClient
	var triggers, missing, unknown []string
	delay := diag.Value{Seconds: f64(0), Precision: diag.PrecisionPrecise, Source: diag.SourceClient}
	var knownMax float64
	behind := false
	for i := range r.Dependencies {
		d := &r.Dependencies[i]
		if d.Excluded {
			if d.Covered != nil && !*d.Covered {
				r.ExcludedOutdated = append(r.ExcludedOutdated, d.BaseTableDB+"."+d.BaseTableName)
				if r.MaxExcludedDelay == nil || d.Delay.Get(0) > r.MaxExcludedDelay.Get(0) {
					v := d.Delay
					r.MaxExcludedDelay = &v
				}
			}
			continue
		}
		name := d.BaseTableDB + "." + d.BaseTableName
		triggers = append(triggers, name)
		if d.HeadroomSeconds != nil && (r.MinHeadroomSeconds == nil || *d.HeadroomSeconds < *r.MinHeadroomSeconds) {
			r.MinHeadroomSeconds = f64(*d.HeadroomSeconds)
		}
		v := d.Delay
		if d.ClientDelay != nil {
			v = *d.ClientDelay
		}
		switch {
		case d.DependencyState == DepMissing:
			missing = append(missing, name)
			continue
		case v.Seconds == nil:
			unknown = append(unknown, name)
			if v.Lower != nil && *v.Lower > knownMax {
				knownMax = *v.Lower
			}
			continue
		}
		if *v.Seconds > 0 || (d.Covered != nil && !*d.Covered) {
			behind = true
		}
		if *v.Seconds > *delay.Seconds {
			delay.Seconds, delay.Lower, delay.Note = f64(*v.Seconds), v.Lower, v.Note
		}
		if *v.Seconds > knownMax {
			knownMax = *v.Seconds
		}
		if *v.Seconds > 0 {
			delay.Precision = diag.WorstPrecision(delay.Precision, v.Precision)
		}
	}
	switch {
	case a.mvInfosUnreadable != "":
		r.FreshnessState = FreshUnknown
		r.StateReason = mvInfosUnreadableReason(a.mvInfosUnreadable)
	case a.streamsUnreadable != "":
		// Missing internal streams and offsets mean nothing then.
		r.FreshnessState = FreshUnknown
		r.StateReason = streams.StreamsUnreadableReason(a.streamsUnreadable)
	case len(missing) > 0:
		r.FreshnessState = FreshUnknown
		r.StateReason = "internal stream missing for " + strings.Join(missing, ", ")
	case len(triggers) == 0 && len(r.Dependencies) == 0:
		r.FreshnessState = FreshUnknown
		r.StateReason = "no internal stream of this MV was found, and no source lists its base tables"
	case len(unknown) > 0:
		r.FreshnessState = FreshUnknown
		r.StateReason = "an offset of the internal stream on " + strings.Join(unknown, ", ") + " cannot be read"
	case strings.EqualFold(mv.RefreshState, "INIT") || (r.History.LastSuccess == nil && strings.EqualFold(mv.State, "INIT")):
		r.FreshnessState = FreshInitializing
		r.StateReason = "never refreshed successfully (mv_infos RefreshState " + mvOrNone(mv.RefreshState) + ")"
	case behind:
		r.FreshnessState = FreshLagging
		r.StateReason = "trigger dependencies have changes the MV does not cover"
	default:
		r.FreshnessState = FreshFresh
		r.StateReason = "every trigger dependency is covered"
		if len(triggers) == 0 {
			r.StateReason = "no trigger dependency (every base table is excluded)"
		}
	}
	switch r.FreshnessState {
	case FreshUnknown:
		r.DataDelay = diag.Value{Precision: diag.PrecisionUnknown, Source: diag.SourceClient, Note: r.StateReason}
		if knownMax > 0 {
			r.DataDelay.Lower = f64(knownMax)
		}
	case FreshInitializing:
		r.DataDelay = diag.UnknownValue(diag.SourceClient, "no delay before the first successful refresh")
	default:
		r.DataDelay = delay
	}
	r.LaggingReason = a.clientLaggingReason(r)
}

// clientLaggingReason is the first that matches of the seed's list; the
// client cannot see REBUILD_REQUIRED or PUBLISHING.
func (a *mvAnalyzer) clientLaggingReason(r *MV) LaggingReason {
	if r.FreshnessState == FreshFresh {
		return ReasonNone
	}
	h := &r.History
	switch {
	case r.FreshnessState == FreshRebuildRequired:
		return ReasonRebuildRequired
	case h.Running != nil:
		return ReasonRunning
	case h.OldestPending != nil:
		return ReasonQueued
	case h.ConsecutiveFailures > 0:
		// The latest task that succeeded or failed failed. A canceled task
		// after it changes nothing: consecutive failures "stay on canceled"
		// and the refresh summary ignores it (seed §3).
		return ReasonRefreshFailed
	case strings.EqualFold(r.JobStatus, "PAUSED"):
		return ReasonJobPaused
	case strings.EqualFold(r.Refresh.Trigger, "SCHEDULE"):
		return ReasonWaitingSchedule
	}
	return ReasonWaitingTrigger
}

// serverFreshness takes ivm_mv_status as the answer and keeps the client's
// computation beside it for the cross-check.
func (a *mvAnalyzer) serverFreshness(r *MV, st *snapshot.MVStatus) {
	r.Server = st
	clientState, clientDelay := r.FreshnessState, r.DataDelay
	state := FreshnessState(strings.ToLower(strings.TrimSpace(st.FreshnessState)))
	if state == "" {
		return // the server has no value: keep the client's
	}
	r.ClientState, r.ClientDelay = clientState, &clientDelay
	r.FreshnessState, r.StateSource = state, diag.SourceServer
	r.StateReason = "information_schema.ivm_mv_status FRESHNESS_STATE " + st.FreshnessState
	prec := diag.Precision(strings.ToUpper(strings.TrimSpace(st.DelayPrecision)))
	if prec == "" || st.DataDelaySeconds == nil {
		prec = diag.PrecisionUnknown
	}
	r.DataDelay = diag.Value{Seconds: st.DataDelaySeconds, Precision: prec, Source: diag.SourceServer}
	if reason := LaggingReason(strings.ToUpper(strings.TrimSpace(st.LaggingReason))); reason != "" {
		r.LaggingReason, r.LaggingReasonSource = reason, diag.SourceServer
	} else if state == FreshFresh {
		r.LaggingReason, r.LaggingReasonSource = ReasonNone, diag.SourceServer
	}
	// DIRTY_PARTITIONS and EXCLUDED_OUTDATED_DEPENDENCIES are a count or a
	// list (the seed does not fix their type; snapshot.ParseCountOrList): a
	// count of 0 is none, a count names no table.
	switch {
	case st.Dirty.None():
	case st.Dirty.Shape == snapshot.ShapeList:
		r.DirtyPartitions = strings.Join(st.Dirty.Names, ",")
	default:
		r.DirtyPartitionCount = st.Dirty.Count
	}
	if st.MinRetentionHeadroomSeconds != nil {
		r.MinHeadroomSeconds = st.MinRetentionHeadroomSeconds
	}
	if !st.ExcludedOutdated.None() && len(r.ExcludedOutdated) == 0 {
		if st.ExcludedOutdated.Shape == snapshot.ShapeList {
			r.ExcludedOutdated = append(r.ExcludedOutdated, st.ExcludedOutdated.Names...)
		} else {
			r.ExcludedOutdatedCount = st.ExcludedOutdated.Count
		}
		if st.MaxExcludedDelaySeconds != nil {
			r.MaxExcludedDelay = &diag.Value{Seconds: st.MaxExcludedDelaySeconds, Precision: diag.PrecisionPrecise, Source: diag.SourceServer}
		}
	}
	if st.JobStatus != "" && r.JobStatus == "" {
		r.JobStatus = st.JobStatus
	}
}

// delayMismatch compares a server delay with the client's bound (design.md:
// "compare them and raise a finding when they disagree"). The tolerance is
// two sampling intervals plus how old the server's sample is.
//
// refreshedSince says a refresh finished after the server's round: the
// delay may have dropped by any amount since, so a server value above the
// client's bound is then expected and only the lower side is compared.
func delayMismatch(server, client diag.Value, sampleAgeSeconds float64, refreshedSince bool) (bool, string) {
	if server.Seconds == nil || client.Precision == diag.PrecisionUnknown {
		return false, ""
	}
	tol := 2*streams.MonitorInterval.Seconds() + math.Max(0, sampleAgeSeconds)
	s := *server.Seconds
	if !refreshedSince && client.Seconds != nil && client.Precision != diag.PrecisionUnknown && s > *client.Seconds+tol {
		return true, fmt.Sprintf("the server reports %s, above the client's upper bound %s", diag.DurationText(s), diag.DurationText(*client.Seconds))
	}
	lower := client.Lower
	if client.Precision == diag.PrecisionPrecise && client.Seconds != nil {
		lower = client.Seconds
	}
	if lower != nil && s+tol < *lower {
		return true, fmt.Sprintf("the server reports %s, below the client's lower bound %s", diag.DurationText(s), diag.DurationText(*lower))
	}
	return false, ""
}
