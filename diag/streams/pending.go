package streams

import (
	"fmt"
	"math"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/changepoints"
	"github.com/dorisdiag/dorisdiag/tso"
)

// narrowSeries applies the seed's change-point rule (seed §3 "Pending age")
// over a series of snapshots: for a consumer at offset C, the first snapshot
// whose source end had moved past C bounds when the oldest pending change
// became visible — after the snapshot before it and no later than it. With
// the snapshot before it seen at or below C, the age is known within one
// interval (PRECISE); the upper end is reported, never too small. It also
// computes the consumer and source rates and their ETAs.
func (a *streamAnalyzer) narrowSeries(sr *Stream) {
	if a.opt.Points != nil {
		a.narrowPoints(sr)
	}
	idx := a.seriesIndex()
	if idx == nil {
		return
	}
	for k := range sr.Partitions {
		p := &sr.Partitions[k]
		key := changepoints.Key{Stream: sr.ID, Unit: p.Unit}
		p.Rates = idx.Rates(key, p.HeadroomSeconds)
		if p.ConsumedTSO == nil || p.CaughtUp == nil || *p.CaughtUp {
			continue
		}
		// A server value (even PRECISE, from change points the client cannot
		// see) stays the reported one below; the client's bound is still
		// narrowed, because it is what the server's value is checked against.
		cross, ok := idx.Cross(key, *p.ConsumedTSO)
		if !ok {
			continue
		}
		v := p.PendingAge
		if v.Source == diag.SourceServer && p.ClientPendingAge != nil {
			v = *p.ClientPendingAge
		}
		lower := secs(a.evalMs - cross.PastMs)
		if v.Lower == nil || *v.Lower < lower {
			v.Lower = f64(math.Max(0, lower))
		}
		if cross.Precise {
			upper := secs(a.evalMs - cross.BeforeMs)
			if v.Seconds == nil || upper < *v.Seconds {
				v.Seconds = f64(upper)
			}
			// The observed interval is the bound now: a change becomes
			// visible after its commit TSO, so the one-snapshot lower bound
			// (now − physical(end)) may exceed it.
			v.Lower = f64(math.Max(0, lower))
			v.Precision = diag.PrecisionPrecise
			v.Note = "change point: the source end moved past the offset between two snapshots " + tso.FormatDuration(cross.PastMs-cross.BeforeMs) + " apart"
		} else if cross.First {
			v.Note += "; the source end was already past the offset in the first snapshot of the series"
		}
		if v.Seconds != nil && v.Lower != nil && *v.Lower > *v.Seconds {
			v.Lower = f64(*v.Seconds) // never a lower bound above the value
		}
		settle(p, v, "the series proves")
	}
	// The stream's rates: of the partition the TTL reaches first, else the
	// one furthest behind.
	var best *Rates
	for k := range sr.Partitions {
		r := sr.Partitions[k].Rates
		if r == nil {
			continue
		}
		if best == nil || changepoints.SoonerTTL(r, best) {
			best = r
		}
	}
	sr.Rates = best
}

// seriesIndex is the series indexed once per analysis (nil for one snapshot).
func (a *streamAnalyzer) seriesIndex() *changepoints.Series {
	if a.index == nil && len(a.series) >= 2 {
		a.index = changepoints.NewSeries(a.series)
	}
	return a.index
}

// settle makes v, the client's narrowed bound, the partition's pending
// age. A server value stays the reported one, v kept beside it as what it
// is compared with — unless the server's value is below the lower bound v
// proves (by: "the series proves"): never report a delay too small
// (design.md).
func settle(p *Partition, v diag.Value, by string) {
	v.Source = diag.SourceClient
	if p.PendingAge.Source == diag.SourceServer {
		p.ClientPendingAge = &v
		if sv := p.PendingAge.Seconds; sv != nil && v.Lower != nil && *sv < *v.Lower-1 {
			shown := v
			shown.Note = fmt.Sprintf("the server's PENDING_AGE_SECONDS (%.3f) is below the lower bound %s (%.3f): the client's value is reported; %s", *sv, by, *v.Lower, v.Note)
			p.PendingAge = shown
		}
		return
	}
	if p.ClientPendingAge != nil {
		// The client's value is the reported one (the server's was below its
		// proven bound): keep the comparison copy narrowed too.
		cp := v
		p.ClientPendingAge = &cp
	}
	p.PendingAge = v
}

// narrowPoints applies the tracker to every partition of a stream, as
// narrowSeries does for a series of snapshots.
func (a *streamAnalyzer) narrowPoints(sr *Stream) {
	cp := a.opt.Points
	// The base partition's key, built in one buffer: the map lookup of
	// string(buf) does not allocate (one string per partition per round did).
	buf := make([]byte, 0, len(sr.BaseTableDB)+len(sr.BaseTableName)+66)
	buf = append(append(append(append(buf, sr.BaseTableDB...), 0), sr.BaseTableName...), 0)
	prefix := len(buf)
	for k := range sr.Partitions {
		p := &sr.Partitions[k]
		var version, visible *int64
		buf = append(buf[:prefix], p.Unit...)
		if bp := a.parts[string(buf)]; bp != nil {
			version, visible = bp.VisibleVersion, bp.VisibleTimeMs
		}
		var offset *tso.TSO
		if p.OffsetState == OffsetConsumed {
			offset = p.ConsumedTSO
		}
		points := cp.Observe(changepoints.Key{Stream: sr.ID, Unit: p.Unit}, p.SourceEndTSO, offset, version, visible)
		if p.ConsumedTSO == nil || p.CaughtUp == nil || *p.CaughtUp || len(points) == 0 {
			continue
		}
		first := points[0] // the first point beyond C (the others were pruned)
		if first.PrevEnd > *p.ConsumedTSO {
			// The end was already past the offset when the tracking began:
			// the oldest pending change was not seen arrive. UPPER_BOUND stays.
			continue
		}
		upper := secs(a.evalMs - first.FromMs)
		lower := math.Max(0, secs(a.evalMs-first.ToMs))
		v := p.PendingAge
		if v.Source == diag.SourceServer && p.ClientPendingAge != nil {
			v = *p.ClientPendingAge
		}
		if v.Seconds == nil || upper < *v.Seconds {
			v.Seconds = f64(upper)
		}
		if lower > *v.Seconds {
			lower = *v.Seconds
		}
		v.Lower = f64(lower)
		v.Precision = diag.PrecisionPrecise
		if first.Exact {
			v.Note = "change point: one new version, its visible time known (exact)"
		} else {
			v.Note = "change point: the source end moved past the offset between two rounds " + tso.FormatDuration(first.ToMs-first.FromMs) + " apart"
		}
		settle(p, v, "the change points prove")
	}
}
