package streams

import (
	"fmt"
	"math"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/changepoints"
	"github.com/dorisdiag/dorisdiag/tso"
)

// seriesPoint is one partition of one stream as one snapshot of the series saw it.
type seriesPoint struct {
	offset *tso.TSO // consumed offset, nil when none
	end    *tso.TSO // visible end of the source partition, nil when unknown
}

// seriesIndex maps stream id + unit to its point, per snapshot of the series.
func (a *streamAnalyzer) seriesIndex() []map[seriesKey]seriesPoint {
	if a.index != nil || len(a.series) < 2 {
		return a.index
	}
	a.index = make([]map[seriesKey]seriesPoint, len(a.series))
	for i, s := range a.series {
		m := make(map[seriesKey]seriesPoint, len(s.Consumption))
		for j := range s.Consumption {
			c := &s.Consumption[j]
			var pt seriesPoint
			if c.Offset != nil && *c.Offset > 0 {
				pt.offset = ptrTSO(*c.Offset)
			} else if c.ConsumedTSO != nil && *c.ConsumedTSO > 0 {
				pt.offset = ptrTSO(*c.ConsumedTSO)
			}
			// LAG as analyzePartition reads it: the parsed value, else the text
			// (a snapshot may carry only the text), so that the series sees the
			// same source end as the partition it narrows.
			lag, lagOK := int64(0), false
			if c.LagValue != nil {
				lag, lagOK = *c.LagValue, true
			} else if v, ok, err := tso.ParseLag(c.Lag); err == nil && ok {
				lag, lagOK = v, true
			}
			switch {
			case c.SourceEndTSO != nil && *c.SourceEndTSO > 0:
				pt.end = ptrTSO(*c.SourceEndTSO)
			case pt.offset != nil && lagOK && lag >= 0 && int64(*pt.offset) <= int64(tso.MaxReal)-lag && !tso.LooksLikeVersionCount(lag, *pt.offset):
				pt.end = ptrTSO(*pt.offset + tso.TSO(lag))
			}
			m[seriesKey{c.StreamID, c.Unit}] = pt
		}
		a.index[i] = m
	}
	return a.index
}

type seriesKey struct {
	stream int64
	unit   string
}

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
	times := make([]int64, len(a.series))
	for i, s := range a.series {
		times[i] = s.Cluster.CurrentTSO.Physical()
	}
	lastI := len(a.series) - 1
	for k := range sr.Partitions {
		p := &sr.Partitions[k]
		key := seriesKey{sr.ID, p.Unit}
		p.Rates = rates(idx, times, key, p.HeadroomSeconds)
		if p.ConsumedTSO == nil || p.CaughtUp == nil || *p.CaughtUp {
			continue
		}
		// A server value (even PRECISE, from change points the client cannot
		// see) stays the reported one below; the client's bound is still
		// narrowed, because it is what the server's value is checked against.
		c := *p.ConsumedTSO
		first := -1
		for i := 0; i <= lastI; i++ {
			if pt, ok := idx[i][key]; ok && pt.end != nil && *pt.end > c {
				first = i
				break
			}
		}
		if first < 0 {
			continue
		}
		v := p.PendingAge
		if v.Source == diag.SourceServer && p.ClientPendingAge != nil {
			v = *p.ClientPendingAge
		}
		lower := secs(a.evalMs - times[first])
		if v.Lower == nil || *v.Lower < lower {
			v.Lower = f64(math.Max(0, lower))
		}
		if first > 0 {
			if pt, ok := idx[first-1][key]; ok && pt.end != nil && *pt.end <= c {
				upper := secs(a.evalMs - times[first-1])
				if v.Seconds == nil || upper < *v.Seconds {
					v.Seconds = f64(upper)
				}
				// The observed interval is the bound now: a change becomes
				// visible after its commit TSO, so the one-snapshot lower bound
				// (now − physical(end)) may exceed it.
				v.Lower = f64(math.Max(0, lower))
				v.Precision = diag.PrecisionPrecise
				v.Note = "change point: the source end moved past the offset between two snapshots " + tso.FormatDuration(times[first]-times[first-1]) + " apart"
			}
		} else {
			v.Note += "; the source end was already past the offset in the first snapshot of the series"
		}
		if v.Seconds != nil && v.Lower != nil && *v.Lower > *v.Seconds {
			v.Lower = f64(*v.Seconds) // never a lower bound above the value
		}
		v.Source = diag.SourceClient
		if p.PendingAge.Source == diag.SourceServer {
			// Keep the server's value reported; the narrowed client bound is what
			// it is compared with — unless the server's value is below what the
			// series proves: never report a delay too small (design.md).
			p.ClientPendingAge = &v
			if sv := p.PendingAge.Seconds; sv != nil && v.Lower != nil && *sv < *v.Lower-1 {
				shown := v
				shown.Note = fmt.Sprintf("the server's PENDING_AGE_SECONDS (%.3f) is below the lower bound the series proves (%.3f): the client's value is reported; %s", *sv, *v.Lower, v.Note)
				p.PendingAge = shown
			}
			continue
		}
		if p.ClientPendingAge != nil {
			// The client's value is the reported one (the server's was below its
			// proven bound): keep the comparison copy narrowed too.
			cp := v
			p.ClientPendingAge = &cp
		}
		p.PendingAge = v
	}
	// The stream's rates: of the partition the TTL reaches first, else the
	// one furthest behind.
	var best *Rates
	for k := range sr.Partitions {
		r := sr.Partitions[k].Rates
		if r == nil {
			continue
		}
		if best == nil || etaLess(r.TTLETASeconds, best.TTLETASeconds) {
			best = r
		}
	}
	sr.Rates = best
}

func etaLess(a, b *float64) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return *a < *b
}

// rates: how fast the offset and the source end move over the series, in
// seconds of TSO time per second (1.0 keeps pace with real time), and the
// ETA to catch up and to the TTL at that pace (item 4).
func rates(idx []map[seriesKey]seriesPoint, times []int64, key seriesKey, headroom *float64) *Rates {
	fi, li := -1, -1
	for i := range idx {
		if pt, ok := idx[i][key]; ok && pt.offset != nil {
			if fi < 0 {
				fi = i
			}
			li = i
		}
	}
	if fi < 0 || li <= fi || times[li] <= times[fi] {
		return nil
	}
	window := float64(times[li] - times[fi])
	f, l := idx[fi][key], idx[li][key]
	r := &Rates{WindowSeconds: window / 1000}
	cr := float64(l.offset.Physical()-f.offset.Physical()) / window
	r.ConsumerRate = f64(cr)
	if f.end != nil && l.end != nil {
		sRate := float64(l.end.Physical()-f.end.Physical()) / window
		r.SourceRate = f64(sRate)
		gap := float64(l.end.Physical()-l.offset.Physical()) / 1000
		switch {
		case gap <= 0:
			r.CatchUpETASeconds = f64(0)
		case cr > sRate:
			r.CatchUpETASeconds = f64(gap / (cr - sRate))
		}
	}
	if headroom != nil && cr < 1 {
		r.TTLETASeconds = f64(math.Max(0, *headroom) / (1 - cr))
	}
	return r
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
		v.Source = diag.SourceClient
		if first.Exact {
			v.Note = "change point: one new version, its visible time known (exact)"
		} else {
			v.Note = "change point: the source end moved past the offset between two rounds " + tso.FormatDuration(first.ToMs-first.FromMs) + " apart"
		}
		if p.PendingAge.Source == diag.SourceServer {
			// The server's value stays the reported one unless it is below what
			// the change points prove (never a delay too small).
			p.ClientPendingAge = &v
			if sv := p.PendingAge.Seconds; sv != nil && *sv < lower-1 {
				shown := v
				shown.Note = fmt.Sprintf("the server's PENDING_AGE_SECONDS (%.3f) is below the lower bound the change points prove (%.3f): the client's value is reported; %s", *sv, lower, v.Note)
				p.PendingAge = shown
			}
			continue
		}
		if p.ClientPendingAge != nil {
			cp := v
			p.ClientPendingAge = &cp
		}
		p.PendingAge = v
	}
}
