package changepoints

import (
	"math"

	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The same rule over a series of snapshots (`streams --series`): for a
// consumer at offset C, the first snapshot whose source end had moved past
// C bounds when the oldest pending change became visible — after the
// snapshot before it and no later than it. With the snapshot before it seen
// at or below C, the age is known within one interval (PRECISE).

// Series is a series of snapshots indexed by consumer partition: each
// snapshot's cluster time and, per Key, the offset and the visible end it saw.
type Series struct {
	times  []int64 // physical(current TSO) of each snapshot, Unix ms
	points []map[Key]seriesPoint
}

// seriesPoint is one partition of one stream as one snapshot of the series saw it.
type seriesPoint struct {
	offset *tso.TSO // consumed offset, nil when none
	end    *tso.TSO // visible end of the source partition, nil when unknown
}

// NewSeries indexes series; nil when it holds fewer than two snapshots.
func NewSeries(series []*snapshot.Snapshot) *Series {
	if len(series) < 2 {
		return nil
	}
	s := &Series{times: make([]int64, len(series)), points: make([]map[Key]seriesPoint, len(series))}
	for i, snap := range series {
		s.times[i] = snap.Cluster.CurrentTSO.Physical()
		m := make(map[Key]seriesPoint, len(snap.Consumption))
		for j := range snap.Consumption {
			c := &snap.Consumption[j]
			var pt seriesPoint
			if c.Offset != nil && *c.Offset > 0 {
				pt.offset = ptrTSO(*c.Offset)
			} else if c.ConsumedTSO != nil && *c.ConsumedTSO > 0 {
				pt.offset = ptrTSO(*c.ConsumedTSO)
			}
			// LAG as the streams analysis reads it: the parsed value, else the
			// text (a snapshot may carry only the text), so that the series
			// sees the same source end as the partition it narrows.
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
			m[Key{c.StreamID, c.Unit}] = pt
		}
		s.points[i] = m
	}
	return s
}

func ptrTSO(t tso.TSO) *tso.TSO { return &t }

// Crossing is where the source end of a partition moved past an offset in
// the series.
type Crossing struct {
	// PastMs is the cluster time of the first snapshot whose end was past
	// the offset: the oldest pending change was visible by then.
	PastMs int64
	// First: that snapshot is the series' first, so the change was not seen
	// arrive.
	First bool
	// Precise: the snapshot before it saw the end at or below the offset,
	// at BeforeMs: the change became visible in (BeforeMs, PastMs].
	Precise  bool
	BeforeMs int64
}

// Cross finds where the end of key's partition first moved past offset;
// false when no snapshot of the series saw it past.
func (s *Series) Cross(key Key, offset tso.TSO) (Crossing, bool) {
	first := -1
	for i := range s.points {
		if pt, ok := s.points[i][key]; ok && pt.end != nil && *pt.end > offset {
			first = i
			break
		}
	}
	if first < 0 {
		return Crossing{}, false
	}
	c := Crossing{PastMs: s.times[first], First: first == 0}
	if first > 0 {
		if pt, ok := s.points[first-1][key]; ok && pt.end != nil && *pt.end <= offset {
			c.Precise, c.BeforeMs = true, s.times[first-1]
		}
	}
	return c, true
}

// Rates are computed over a series of snapshots: how fast the consumer's
// offset and the source's end move, in seconds of TSO time per second of
// cluster time (1.0 = keeping pace with real time), and the ETAs at those
// rates.
type Rates struct {
	WindowSeconds float64  `json:"window_seconds"`
	ConsumerRate  *float64 `json:"consumer_rate,omitempty"`
	SourceRate    *float64 `json:"source_rate,omitempty"`
	// CatchUpETASeconds: when the consumer reaches the source end at these
	// rates; nil when it does not gain.
	CatchUpETASeconds *float64 `json:"catch_up_eta_seconds,omitempty"`
	// TTLETASeconds: when the TTL reaches the offset at this consumer rate;
	// nil when the consumer keeps pace or no TTL applies.
	TTLETASeconds *float64 `json:"ttl_eta_seconds,omitempty"`
}

// Rates of key's partition between the first and the last snapshot that
// saw its offset, with headroom (seconds, nil when no TTL applies) for the
// TTL's ETA; nil when fewer than two snapshots saw it.
func (s *Series) Rates(key Key, headroom *float64) *Rates {
	fi, li := -1, -1
	for i := range s.points {
		if pt, ok := s.points[i][key]; ok && pt.offset != nil {
			if fi < 0 {
				fi = i
			}
			li = i
		}
	}
	times := s.times
	if fi < 0 || li <= fi || times[li] <= times[fi] {
		return nil
	}
	window := float64(times[li] - times[fi])
	f, l := s.points[fi][key], s.points[li][key]
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

func f64(v float64) *float64 { return &v }

// SoonerTTL orders rates by the TTL's ETA, nil last: the stream's rates are
// those of the partition the TTL reaches first.
func SoonerTTL(a, b *Rates) bool {
	switch {
	case a.TTLETASeconds == nil:
		return false
	case b.TTLETASeconds == nil:
		return true
	}
	return *a.TTLETASeconds < *b.TTLETASeconds
}
