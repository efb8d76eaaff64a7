package exposition

// runSet is the table of one run's series hashes: open addressing, an
// entry valid when its generation is the run's, so a new run begins without
// clearing the table.
type runSet struct {
	slots []runSlot
	gen   uint32
	n     int
}

type runSlot struct {
	h    uint64
	line uint32
	gen  uint32
}

// Reset begins a new run: every entry is forgotten.
func (r *runSet) Reset() {
	r.n = 0
	r.gen++
	if r.gen == 0 {
		clear(r.slots)
		r.gen = 1
	}
}

// Insert adds h seen on line; when h is there already it returns the line
// of first sight and true.
func (r *runSet) Insert(h uint64, line uint32) (uint32, bool) {
	if r.n*4 >= len(r.slots)*3 {
		r.grow()
	}
	mask := uint64(len(r.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &r.slots[i]
		if sl.gen != r.gen {
			*sl = runSlot{h, line, r.gen}
			r.n++
			return 0, false
		}
		if sl.h == h {
			return sl.line, true
		}
	}
}

func (r *runSet) grow() {
	old, gen := r.slots, r.gen
	size := 2 * len(old)
	if size == 0 {
		size = 256
	}
	r.slots = make([]runSlot, size)
	r.n = 0
	if r.gen == 0 {
		r.gen = 1
	}
	for _, sl := range old {
		if sl.gen == gen && gen != 0 {
			r.Insert(sl.h, sl.line)
		}
	}
}

// dupSet is an open-addressing set of 64-bit series hashes with the line
// of first sight: 12 bytes a series instead of the series' text (the line
// is read only on a hit). Two series are the same when their 64-bit hashes
// are: with a random seed, a false duplicate among n series has a chance
// of about n²/2⁶⁵.
type dupSet struct {
	keys  []uint64
	lines []uint32
	n     int
	limit int // grow before n reaches it (a load of 3/4)
}

// Insert adds h seen on line; when h is there already it returns the line
// of first sight and true.
func (d *dupSet) Insert(h uint64, line uint32) (uint32, bool) {
	if d.n >= d.limit {
		d.Grow(2 * (d.n + 1))
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

// Grow makes room for want entries at a load of at most 3/4.
func (d *dupSet) Grow(want int) {
	size := 1 << 10
	for size*3/4 < want || size <= len(d.keys) {
		size *= 2
	}
	ok, ol := d.keys, d.lines
	d.keys, d.lines = make([]uint64, size), make([]uint32, size)
	d.n, d.limit = 0, size*3/4
	for i, k := range ok {
		if k != 0 {
			d.Insert(k, ol[i])
		}
	}
}
