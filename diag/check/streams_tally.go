package check

import (
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// streamsTally is the overview's streams part, fed one stream at a time in
// any order: from Result.Streams, or, under Options.Lean, as each stream is
// diagnosed (streams.Options.Keep), so that a check of many streams does
// not hold every diagnosis (docs/performance.md "Bounded snapshots").
type streamsTally struct {
	o           StreamsOverview
	minHeadroom time.Duration
	// pending and headroom are the streams the extremes are from: of equal
	// values, the first in streams.Sort's order stands, in any feeding order.
	pending, headroom map[string]*streams.Stream
}

func newStreamsTally(opt Options) *streamsTally {
	t := &streamsTally{minHeadroom: opt.Streams.WithDefaults().MinHeadroom,
		pending: map[string]*streams.Stream{}, headroom: map[string]*streams.Stream{}}
	t.o.ByKind = map[string]map[streams.State]int{}
	t.o.MaxPendingAge = map[string]*ObjectValue{}
	t.o.MinHeadroom = map[string]*ObjectValue{}
	for _, kind := range streams.Kinds {
		t.o.ByKind[string(kind)] = map[streams.State]int{}
		for _, st := range streams.States {
			t.o.ByKind[string(kind)][st] = 0
		}
	}
	return t
}

func (t *streamsTally) add(s *streams.Stream) {
	t.o.Total++
	kind := string(s.Kind) // the overview's maps are keyed by the JSON's words
	if t.o.ByKind[kind] == nil {
		t.o.ByKind[kind] = map[streams.State]int{}
	}
	t.o.ByKind[kind][s.State]++
	owner := ""
	if s.Kind == streams.KindIVM && s.MVName != "" {
		owner = s.DB + "." + s.MVName
	}
	// A stream whose pending age has no upper bound counts with its
	// proven lower bound, marked so (never dropped as unknown while a
	// smaller known value stands for the kind).
	if v := s.MaxPendingAge; v.Known() || v.Lower != nil {
		sec, lb := v.Get(0), !v.Known()
		if lb {
			sec = *v.Lower
		}
		if cur := t.o.MaxPendingAge[kind]; cur == nil || sec > cur.Seconds || sec == cur.Seconds && streams.Less(s, t.pending[kind]) {
			t.o.MaxPendingAge[kind] = &ObjectValue{Object: s.DB + "." + s.Name, MV: owner, Seconds: sec, Precision: v.Precision, LowerBound: lb}
			t.pending[kind] = copyStream(s)
		}
	}
	if h := s.MinHeadroomSeconds; h != nil {
		if cur := t.o.MinHeadroom[kind]; cur == nil || *h < cur.Seconds || *h == cur.Seconds && streams.Less(s, t.headroom[kind]) {
			t.o.MinHeadroom[kind] = &ObjectValue{Object: s.DB + "." + s.Name, MV: owner, Partition: s.MinHeadroomPartition, Seconds: *h, Level: headroomLevel(*h, t.minHeadroom)}
			t.headroom[kind] = copyStream(s)
		}
	}
}

// copyStream keeps what streams.Less reads of a stream that Analyze may
// not keep.
func copyStream(s *streams.Stream) *streams.Stream {
	c := *s
	c.Partitions, c.Verdict = nil, nil
	return &c
}

// keeper is the streams.Options.Keep of a lean check: it tallies each
// stream and keeps those the MVs' analysis reads — the internal streams,
// and any a dependency row names.
func (t *streamsTally) keeper(last *snapshot.Snapshot) func(*streams.Stream) bool {
	named := map[string]bool{}
	for i := range last.Dependencies {
		d := &last.Dependencies[i]
		if d.StreamID != nil {
			named[strconv.FormatInt(*d.StreamID, 10)] = true
		}
		if d.StreamName != "" {
			named[d.DB+"."+d.StreamName] = true
		}
	}
	return func(s *streams.Stream) bool {
		t.add(s)
		return s.Kind == streams.KindIVM || len(named) > 0 && (named[strconv.FormatInt(s.ID, 10)] || named[s.DB+"."+s.Name])
	}
}
