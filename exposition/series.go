package exposition

import (
	"math"
	"strconv"
)

// Booking a parsed sample: cardinality, contiguity, duplicate series (by
// hash, never by text), NaN, and the samples kept for the caller.

// commit books a parsed record: series count, contiguity, duplicates, NaN,
// label names, kept samples.
func (e *engine) commit() {
	defer e.flushPending()
	if e.sample.name == nil || e.cur < 0 {
		if e.recFam >= 0 {
			e.touch(e.recFam)
		}
		return
	}
	f := &e.fams[e.cur]
	e.touch(e.cur)
	f.samples++
	if f.firstSample == 0 {
		f.firstSample = e.line
	}
	e.series++
	// label names, and the promlint label rules on first sight; a line
	// names them in the order the last one did, so one compare each
	labels := e.labels
	if e.labelsInOrder {
		labels = nil // parseSample found them the family's first, in its order
	}
	for k := range labels {
		l := &labels[k]
		if k < len(f.labels) && f.labels[k] == string(l.name) {
			continue
		}
		if string(l.name) == "le" {
			f.hasLe = true
		}
		known := false
		for _, s := range f.labels {
			if s == string(l.name) {
				known = true
				break
			}
		}
		if !known && len(f.labels) < 64 {
			name := string(l.name)
			f.labels = append(f.labels, name)
			e.labelNameRules(f, name, l.nameOffset)
		}
	}
	if e.sawSpaceBefore {
		e.sawSpaceBefore = false
		e.warnSpaceBefore(f)
	}
	// duplicate series: a hash of the name and of each label pair,
	// summed so that the order of the labels does not count
	var sum uint64
	for k := range e.labels {
		sum += e.pairHash(&e.labels[k])
	}
	h := mix(hashBytes(e.hseed, e.sample.name) ^ sum)
	if first, dup := e.seen.insert(e.cur, e.famKey(e.cur), f, h, uint32(e.line), e); dup && len(e.problems) >= e.opts.MaxProblems {
		// Listed no more (Options.MaxProblems): counted, without building a
		// message and a copy of the line for each of a million repeats.
		e.problem(RuleDuplicateSeries, e.sample.nameOff, nil, nil, "duplicate series", "")
	} else if dup {
		e.problem(RuleDuplicateSeries, e.sample.nameOff, nil, e.rec, "duplicate series: same name and labels as line "+strconv.Itoa(int(first))+"; Prometheus keeps one of the samples",
			"make each name and label set unique")
	}
	if f.noNaN && math.IsNaN(e.sample.value) {
		e.problem(RuleValueNaN, e.sample.valueOff, nil, e.rec[e.sample.valueOff:], "NaN in a family whose producer allows none", "")
	}
	if f.keep {
		if len(e.kept) < e.opts.MaxSamples {
			e.keep(f)
		} else {
			e.keptDropped++
		}
	}
}

// keep adds the current sample to Result.Samples: its label names are the
// family's own strings (f.labels, made once), its values one string cut in
// pieces, so a kept sample costs its map and one string.
func (e *engine) keep(f *famState) {
	if e.kept == nil {
		e.kept = make([]Sample, 0, min(e.opts.MaxSamples, 20000))
	}
	s := Sample{Name: f.name, Value: e.sample.value, Line: e.line}
	if string(e.sample.name) != f.name {
		s.Name = string(e.sample.name) // a histogram's _bucket, _sum, _count
	}
	if len(e.labels) > 0 {
		b := e.pairBuf[:0]
		for k := range e.labels {
			b = append(b, e.labels[k].value...)
		}
		e.pairBuf = b
		vals := string(b)
		s.Labels = make(map[string]string, len(e.labels))
		off := 0
		for k := range e.labels {
			l := &e.labels[k]
			var name string
			if k < len(f.labels) && f.labels[k] == string(l.name) {
				name = f.labels[k]
			} else {
				name = string(l.name)
			}
			s.Labels[name] = vals[off : off+len(l.value)]
			off += len(l.value)
		}
	}
	e.kept = append(e.kept, s)
}

// touch books that family idx has a line here, for non-contiguous-family.
func (e *engine) touch(idx int32) {
	key := e.famKey(idx)
	if key == e.lastFam {
		return
	}
	f := &e.fams[idx]
	if f.touched && !f.nonContig {
		f.nonContig = true
		p := Problem{Rule: RuleNonContiguousFamily, Severity: severityOf(RuleNonContiguousFamily), Line: e.line, Col: 1, Family: f.name,
			Message: "family " + f.name + " continues here after " + e.lastFamName + "; its lines should be contiguous" + firstOn("first seen", f.firstLine),
			Fix:     "print all lines of a family together"}
		e.note(&p, f.typ)
		e.pend = append(e.pend, p)
	}
	if !f.touched {
		// The caller's policy is asked here, once per family: a sample
		// then costs one bool test, whatever the hook does.
		f.touched = true
		if e.opts.Family != nil {
			pol := e.opts.Family(f.name)
			f.keep, f.noNaN = pol.Keep, pol.NoNaN
		}
	}
	e.lastFam, e.lastFamName = key, f.name
}

// pairHash hashes one label pair as its canonical text, name="value with
// the value escaped: the line's own bytes when it wrote the pair that way
// (the usual case: one hash over one span), else a copy built in joinBuf.
func (e *engine) pairHash(l *label) uint64 {
	ns, nl := l.nameOffset, len(l.name)
	raw := l.vs == ns+nl+2 && e.rec[ns] != '"' &&
		(len(l.value) == 0 && l.ve == l.vs || len(l.value) == l.ve-l.vs && &l.value[0] == &e.rec[l.vs])
	if raw || (l.vs == ns+nl+2 && e.rec[ns] != '"' && canonicalEscaped(e.rec[l.vs:l.ve], l.value)) {
		return hashBytes(e.hseed, e.rec[ns:l.ve])
	}
	b := append(e.pairBuf[:0], l.name...)
	b = append(b, '=', '"')
	for _, c := range l.value {
		switch c {
		case '\\':
			b = append(b, '\\', '\\')
		case '"':
			b = append(b, '\\', '"')
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	e.pairBuf = b
	return hashBytes(e.hseed, b)
}

// expectSeries is how many series the payload will hold, from the bytes
// read so far and the payload's size when known (Options.SizeHint or the
// reader's length): once a few MiB are read, the series log grows once to
// it instead of doubling all the way.
func (e *engine) expectSeries(n int) int {
	return e.extrapolate(n, 4<<20)
}

// expectMore is how many of what n counts the payload will hold, from
// whatever it read so far (n when its size is unknown).
func (e *engine) expectMore(n int) int {
	return max(n, e.extrapolate(n, 1))
}

// extrapolate scales n, counted over the bytes read so far, to the
// payload's size, once at least minRead bytes are read; else 2n.
func (e *engine) extrapolate(n int, minRead int64) int {
	if e.lr != nil && e.sizeHint > 0 {
		read := e.lr.Consumed()
		if read >= minRead && e.sizeHint > read {
			est := int64(float64(n) * float64(e.sizeHint) / float64(read) * 1.05)
			if est > int64(2*n) && est < 1<<31 {
				return int(est)
			}
		}
	}
	return 2 * n
}

// seriesSet finds duplicate series. A series can only repeat one of its own
// family (the same name resolves to the same family), and a family's lines
// are contiguous but in a broken payload, so the set checks each series
// against the current run of its family only — a small table that stays in
// cache, reset in O(1) when the next family starts — and appends its hash to
// a log in payload order (12 bytes a series, written sequentially). When a
// family comes back after another (non-contiguous-family), its earlier runs
// are taken from the log into the run's table. Should that re-reading cost
// more than the series themselves (a payload alternating families), the set
// turns into one table of every series, built once from the log.
type seriesSet struct {
	hashes []uint64 // the log: every series in payload order
	lines  []uint32
	run    runSet
	runFam int32  // the family of the current run (-1: none yet)
	runKey uint64 // and its famKey
	start  int32  // where the current run begins in the log
	reread int    // log entries re-read for families that came back
	all    *dupSet
}

// logRun is a span of the series log: one run of a family's lines.
type logRun struct{ start, end int32 }

func (s *seriesSet) insert(fam int32, key uint64, f *famState, h uint64, line uint32, e *engine) (uint32, bool) {
	if h == 0 {
		h = 1 // 0 marks an empty slot
	}
	if s.all != nil {
		return s.all.Insert(h, line)
	}
	if fam != s.runFam || key != s.runKey {
		s.startRun(fam, key, f, e)
		if s.all != nil {
			return s.all.Insert(h, line)
		}
	}
	// A duplicate adds no series: only a first occurrence is logged, so the
	// log grows with the distinct series, not with the lines (a payload
	// that repeats 200,000 series for 64 MiB logs 200,000 hashes).
	first, dup := s.run.Insert(h, line)
	if dup {
		return first, true
	}
	if len(s.hashes) == cap(s.hashes) {
		n := e.expectSeries(len(s.hashes) + 1)
		if n < 1024 {
			n = 1024
		}
		s.hashes = append(make([]uint64, 0, n), s.hashes...)
		s.lines = append(make([]uint32, 0, n), s.lines...)
	}
	s.hashes = append(s.hashes, h)
	s.lines = append(s.lines, line)
	return first, false
}

// startRun ends the current run and begins one of family fam.
// An untracked family keeps no runs: its duplicates are found within a run.
func (s *seriesSet) startRun(fam int32, key uint64, f *famState, e *engine) {
	end := int32(len(s.hashes))
	if e.tracked(s.runFam) && end > s.start {
		p := &e.fams[s.runFam]
		if p.run.end == 0 {
			p.run = logRun{s.start, end}
		} else {
			p.moreRuns = append(p.moreRuns, logRun{s.start, end})
		}
	}
	s.runFam, s.runKey, s.start = fam, key, end
	s.run.Reset()
	if f.run.end == 0 {
		return
	}
	// The family came back: its earlier series are in the log.
	earlier := int(f.run.end - f.run.start)
	for _, r := range f.moreRuns {
		earlier += int(r.end - r.start)
	}
	s.reread += earlier
	if s.reread > len(s.hashes)+1<<16 {
		s.all = &dupSet{}
		s.all.Grow(len(s.hashes) + len(s.hashes)/2)
		for i, h := range s.hashes {
			s.all.Insert(h, s.lines[i])
		}
		s.hashes, s.lines = nil, nil
		return
	}
	for _, r := range append([]logRun{f.run}, f.moreRuns...) {
		for i := r.start; i < r.end; i++ {
			s.run.Insert(s.hashes[i], s.lines[i])
		}
	}
}
