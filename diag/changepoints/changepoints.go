package changepoints

import (
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

// Point is one observed advance of a partition's visible end.
type Point struct {
	PrevEnd tso.TSO // the end before the advance (at or below it nothing is pending from this point)
	End     tso.TSO // the new end
	// FromMs, ToMs: the changes in (PrevEnd, End] became visible in
	// (FromMs, ToMs], cluster time in Unix ms. Equal when exact.
	FromMs, ToMs int64
	Exact        bool
}

// Key names one consumer partition: the stream and the partition.
type Key struct {
	Stream int64
	Unit   string
}

type trackedPartition struct {
	end     tso.TSO
	version int64 // the partition's visible version, when hasVer
	hasVer  bool  // by value: a pointer cost one allocation per partition per round
	seen    int64 // the round that last saw it
	points  []Point
}

// Tracker is the change-point memory of a long-running exporter. Not
// safe for concurrent use: one round at a time.
type Tracker struct {
	MaxPerPartition int
	MaxTotal        int

	parts   map[Key]*trackedPartition
	total   int
	round   int64
	prevMs  int64 // cluster time of the previous round; 0 before the first
	nowMs   int64
	merges  int64
	dropped int64
}

// New returns an empty tracker with the given caps (0: the
// design's defaults).
func New(maxPerPartition, maxTotal int) *Tracker {
	if maxPerPartition <= 1 {
		maxPerPartition = DefaultMaxPointsPerPartition
	}
	if maxTotal <= 0 {
		maxTotal = DefaultMaxPoints
	}
	return &Tracker{MaxPerPartition: maxPerPartition, MaxTotal: maxTotal, parts: map[Key]*trackedPartition{}}
}

// Total is the number of points kept.
func (c *Tracker) Total() int { return c.total }

// Partitions is the number of partitions tracked.
func (c *Tracker) Partitions() int { return len(c.parts) }

// Merges is how many merges the caps forced since the start; Dropped how
// many points the total cap dropped (their partitions fall back to
// UPPER_BOUND).
func (c *Tracker) Merges() int64  { return c.merges }
func (c *Tracker) Dropped() int64 { return c.dropped }

// Points returns a copy of one partition's points, oldest first (tests, docs).
func (c *Tracker) Points(streamID int64, unit string) []Point {
	if tp := c.parts[Key{streamID, unit}]; tp != nil {
		return append([]Point(nil), tp.points...)
	}
	return nil
}

// Begin starts a round at cluster time nowMs.
func (c *Tracker) Begin(nowMs int64) {
	c.round++
	c.nowMs = nowMs
}

// End closes a round: partitions no longer listed (a dropped stream or
// partition) are forgotten, and the total cap is applied.
func (c *Tracker) End() {
	for k, tp := range c.parts {
		if tp.seen != c.round {
			c.total -= len(tp.points)
			delete(c.parts, k)
		}
	}
	c.capTotal()
	c.prevMs = c.nowMs
}

// Observe records one partition's end and offset in the current round and
// returns its points beyond the offset (nil when none).
func (c *Tracker) Observe(key Key, end, offset *tso.TSO, version, visibleMs *int64) []Point {
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
		p := Point{PrevEnd: tp.end, End: *end, FromMs: c.prevMs, ToMs: c.nowMs}
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
func (c *Tracker) mergeOldest(tp *trackedPartition) {
	if len(tp.points) < 2 {
		return
	}
	a, b := tp.points[0], tp.points[1]
	tp.points[1] = Point{PrevEnd: a.PrevEnd, End: b.End, FromMs: a.FromMs, ToMs: b.ToMs}
	tp.points = append(tp.points[:0], tp.points[1:]...)
	c.total--
	c.merges++
}

// capTotal enforces MaxTotal: the partitions with the most points merge
// first; when every partition is down to one point, the oldest points go.
func (c *Tracker) capTotal() {
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
