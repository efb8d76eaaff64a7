package exposition

import (
	"hash/maphash"
	"math"
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
	// label names, and the promlint label rules on first sight
	for k := range e.labels {
		l := &e.labels[k]
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
	// duplicate series: a hash of name and label pairs, order-independent
	h := maphash.Bytes(e.seed, e.sample.name)
	var sum uint64
	for k := range e.labels {
		l := &e.labels[k]
		sum += mix(maphash.Bytes(e.seed, l.name)*0x9E3779B97F4A7C15 ^ maphash.Bytes(e.seed, l.value))
	}
	h = mix(h ^ sum)
	if first, dup := e.dups.insert(h, uint32(e.line)); dup {
		e.problem(RuleDuplicateSeries, e.sample.nameOff, nil, e.rec, "duplicate series: same name and labels as line "+itoa(int(first))+"; Prometheus keeps one of the samples",
			"make each name and label set unique")
	}
	if f.noNaN && math.IsNaN(e.sample.value) {
		e.problem(RuleValueNaN, e.sample.valueOff, nil, e.rec[e.sample.valueOff:], "NaN in a family whose producer allows none", "")
	}
	if f.keep {
		if len(e.kept) < e.opts.MaxSamples {
			s := Sample{Name: string(e.sample.name), Value: e.sample.value, Line: e.line}
			if len(e.labels) > 0 {
				s.Labels = make(map[string]string, len(e.labels))
				for k := range e.labels {
					s.Labels[string(e.labels[k].name)] = string(e.labels[k].value)
				}
			}
			e.kept = append(e.kept, s)
		} else {
			e.keptDropped++
		}
	}
}

// touch books that family idx has a line here, for non-contiguous-family.
func (e *engine) touch(idx int32) {
	if idx == e.lastFam {
		return
	}
	f := &e.fams[idx]
	if f.touched && !f.nonContig {
		f.nonContig = true
		prev := ""
		if e.lastFam >= 0 {
			prev = e.fams[e.lastFam].name
		}
		p := Problem{Rule: RuleNonContiguousFamily, Severity: severityOf(RuleNonContiguousFamily), Line: e.line, Col: 1, Family: f.name,
			Message: "family " + f.name + " continues here after " + prev + "; its lines should be contiguous (first seen on line " + itoa(f.firstLine) + ")",
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
	e.lastFam = idx
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// dupSet is an open-addressing set of 64-bit series hashes with the line
// of first sight; 12 bytes a series instead of the series' text.
type dupSet struct {
	keys  []uint64
	lines []uint32
	n     int
}

func (d *dupSet) insert(h uint64, line uint32) (uint32, bool) {
	if h == 0 {
		h = 1 // 0 marks an empty slot
	}
	if d.n*4 >= len(d.keys)*3 {
		d.grow()
	}
	mask := uint64(len(d.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch d.keys[i] {
		case 0:
			d.keys[i] = h
			d.lines[i] = line
			d.n++
			return 0, false
		case h:
			return d.lines[i], true
		}
	}
}

func (d *dupSet) grow() {
	size := 1 << 10
	if len(d.keys) > 0 {
		size = 2 * len(d.keys)
	}
	ok, ol := d.keys, d.lines
	d.keys = make([]uint64, size)
	d.lines = make([]uint32, size)
	d.n = 0
	for i, k := range ok {
		if k != 0 {
			d.insert(k, ol[i])
		}
	}
}
