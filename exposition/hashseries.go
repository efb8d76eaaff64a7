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
