package diag

import (
	"fmt"
	"math"
	"sort"

	"github.com/dorisdiag/dorisdiag/tso"
)

// Change points across rounds: the sampler of apache/doris#69907 §3
// "Definitions" → "Pending age", run client-side by `dorisdiag exporter`.
//
// Whenever the visible end of a tracked partition has advanced since the
// previous round, a point records the new end and the window in which the
// changes up to it became visible: after the previous round, no later than
// this one. For a consumer at offset C, the first point beyond C bounds the
// age of the oldest pending change — PRECISE within one interval, exact when
// one new version arrived and its visible time is known — provided the end
// before that point was at or below C (the change was seen arrive). Before
// any such point the one-snapshot UPPER_BOUND rule stays. A partition keeps
// only the points beyond its offset, so a caught-up one keeps none; beyond
// MaxPerPartition the two oldest adjacent points merge, which only widens
// the bound; beyond MaxTotal the partitions with the most points merge
// first. Points are kept per consumer partition (stream ID and partition
// name): every stream of a base partition sees the same end, and one
// consumer per key makes "beyond the smallest offset" the offset itself.
//
// The tracker is pure: time is the cluster time of each snapshot (the
// physical part of its current TSO), never the wall clock.

// Default caps of the design's FE configs
// changelog_ivm_monitor_max_points_per_partition and
// changelog_ivm_monitor_max_points.
const (
	DefaultMaxPointsPerPartition = 64
	DefaultMaxPoints             = 1_000_000
)

// ChangePoint is one observed advance of a partition's visible end.
type ChangePoint struct {
	PrevEnd tso.TSO // the end before the advance (at or below it nothing is pending from this point)
	End     tso.TSO // the new end
	// FromMs, ToMs: the changes in (PrevEnd, End] became visible in
	// (FromMs, ToMs], cluster time in Unix ms. Equal when exact.
	FromMs, ToMs int64
	Exact        bool
}

type trackedPartition struct {
	end     tso.TSO
	version int64 // the partition's visible version, when hasVer
	hasVer  bool  // by value: a pointer cost one allocation per partition per round
	seen    int64 // the round that last saw it
	points  []ChangePoint
}

// ChangePoints is the change-point memory of a long-running exporter. Not
// safe for concurrent use: one round at a time.
type ChangePoints struct {
	MaxPerPartition int
	MaxTotal        int

	parts   map[seriesKey]*trackedPartition
	total   int
	round   int64
	prevMs  int64 // cluster time of the previous round; 0 before the first
	nowMs   int64
	merges  int64
	dropped int64
}

// NewChangePoints returns an empty tracker with the given caps (0: the
// design's defaults).
func NewChangePoints(maxPerPartition, maxTotal int) *ChangePoints {
	if maxPerPartition <= 1 {
		maxPerPartition = DefaultMaxPointsPerPartition
	}
	if maxTotal <= 0 {
		maxTotal = DefaultMaxPoints
	}
	return &ChangePoints{MaxPerPartition: maxPerPartition, MaxTotal: maxTotal, parts: map[seriesKey]*trackedPartition{}}
}

// Total is the number of points kept.
func (c *ChangePoints) Total() int { return c.total }

// Partitions is the number of partitions tracked.
func (c *ChangePoints) Partitions() int { return len(c.parts) }

// Merges is how many merges the caps forced since the start; Dropped how
// many points the total cap dropped (their partitions fall back to
// UPPER_BOUND).
func (c *ChangePoints) Merges() int64  { return c.merges }
func (c *ChangePoints) Dropped() int64 { return c.dropped }

// Points returns a copy of one partition's points, oldest first (tests, docs).
func (c *ChangePoints) Points(streamID int64, unit string) []ChangePoint {
	if tp := c.parts[seriesKey{streamID, unit}]; tp != nil {
		return append([]ChangePoint(nil), tp.points...)
	}
	return nil
}

// Begin starts a round at cluster time nowMs.
func (c *ChangePoints) Begin(nowMs int64) {
	c.round++
	c.nowMs = nowMs
}

// End closes a round: partitions no longer listed (a dropped stream or
// partition) are forgotten, and the total cap is applied.
func (c *ChangePoints) End() {
	for k, tp := range c.parts {
		if tp.seen != c.round {
			c.total -= len(tp.points)
			delete(c.parts, k)
		}
	}
	c.capTotal()
	c.prevMs = c.nowMs
}

// observe records one partition's end and offset in the current round and
// returns its points beyond the offset (nil when none).
func (c *ChangePoints) observe(key seriesKey, end, offset *tso.TSO, version, visibleMs *int64) []ChangePoint {
	tp := c.parts[key]
	if tp == nil {
		if end == nil {
			return nil
		}
		// First sight: no window yet, so no point (the UPPER_BOUND rule).
		tp := &trackedPartition{end: *end, seen: c.round}
		if version != nil {
			tp.version, tp.hasVer = *version, true
		}
		c.parts[key] = tp
		return nil
	}
	tp.seen = c.round
	if end != nil && *end > tp.end && c.prevMs > 0 {
		p := ChangePoint{PrevEnd: tp.end, End: *end, FromMs: c.prevMs, ToMs: c.nowMs}
		// One new version whose visible time falls in the window: exact.
		if version != nil && tp.hasVer && *version == tp.version+1 && visibleMs != nil &&
			*visibleMs > c.prevMs && *visibleMs <= c.nowMs {
			p.FromMs, p.ToMs, p.Exact = *visibleMs, *visibleMs, true
		}
		tp.points = append(tp.points, p)
		c.total++
	}
	if end != nil && *end > tp.end {
		tp.end = *end
	}
	if version != nil {
		tp.version, tp.hasVer = *version, true
	}
	// Keep only the points beyond the offset: the consumer covers the others.
	if offset != nil {
		i := 0
		for i < len(tp.points) && tp.points[i].End <= *offset {
			i++
		}
		if i > 0 {
			tp.points = append(tp.points[:0], tp.points[i:]...)
			c.total -= i
		}
	}
	for len(tp.points) > c.MaxPerPartition {
		c.mergeOldest(tp)
	}
	return tp.points
}

// mergeOldest merges a partition's two oldest points: the merged window
// spans both, so the bound only widens.
func (c *ChangePoints) mergeOldest(tp *trackedPartition) {
	if len(tp.points) < 2 {
		return
	}
	a, b := tp.points[0], tp.points[1]
	tp.points[1] = ChangePoint{PrevEnd: a.PrevEnd, End: b.End, FromMs: a.FromMs, ToMs: b.ToMs}
	tp.points = append(tp.points[:0], tp.points[1:]...)
	c.total--
	c.merges++
}

// capTotal enforces MaxTotal: the partitions with the most points merge
// first; when every partition is down to one point, the oldest points go.
func (c *ChangePoints) capTotal() {
	if c.total <= c.MaxTotal {
		return
	}
	keys := make([]*trackedPartition, 0, len(c.parts))
	for _, tp := range c.parts {
		if len(tp.points) > 0 {
			keys = append(keys, tp)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i].points) > len(keys[j].points) })
	for c.total > c.MaxTotal {
		progressed := false
		for _, tp := range keys {
			if c.total <= c.MaxTotal {
				break
			}
			if len(tp.points) > 1 {
				c.mergeOldest(tp)
				progressed = true
			}
		}
		if progressed {
			continue
		}
		for _, tp := range keys {
			if c.total <= c.MaxTotal {
				break
			}
			if len(tp.points) > 0 {
				tp.points = tp.points[:0]
				c.total--
				c.dropped++
			}
		}
	}
}

// narrowPoints applies the tracker to every partition of a stream, as
// narrowSeries does for a series of snapshots.
func (a *streamAnalyzer) narrowPoints(sr *StreamResult) {
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
		points := cp.observe(seriesKey{sr.ID, p.Unit}, p.SourceEndTSO, offset, version, visible)
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
		if v.Source == SourceServer && p.ClientPendingAge != nil {
			v = *p.ClientPendingAge
		}
		if v.Seconds == nil || upper < *v.Seconds {
			v.Seconds = f64(upper)
		}
		if lower > *v.Seconds {
			lower = *v.Seconds
		}
		v.Lower = f64(lower)
		v.Precision = PrecisionPrecise
		v.Source = SourceClient
		if first.Exact {
			v.Note = "change point: one new version, its visible time known (exact)"
		} else {
			v.Note = "change point: the source end moved past the offset between two rounds " + tso.FormatDuration(first.ToMs-first.FromMs) + " apart"
		}
		if p.PendingAge.Source == SourceServer {
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
