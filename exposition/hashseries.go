package exposition

// runSet is the table of one run's series hashes: open addressing, an
// entry valid when its generation is the run's, so a new run begins without
// clearing the table. A slot is one word: the hash with its low 8 bits
// replaced by the generation (two series are the same when their other 56
// bits are: with a random seed, a false duplicate among the n series of a
// run has a chance of about n²/2⁵⁷), so a lookup reads 8 bytes; the line
// of first sight is beside it, read only on a hit.
type runSet struct {
	keys  []uint64
	lines []uint32
	gen   uint64 // 1..255
	n     int
}

// Reset begins a new run: every entry is forgotten (the table is cleared
// once every 255 runs, when the generation wraps).
func (r *runSet) Reset() {
	r.n = 0
	r.gen++
	if r.gen > 0xff {
		clear(r.keys)
		r.gen = 1
	}
}

// Insert adds h seen on line; when h is there already it returns the line
// of first sight and true.
func (r *runSet) Insert(h uint64, line uint32) (uint32, bool) {
	if r.n*4 >= len(r.keys)*3 {
		r.grow()
	}
	k := h&^0xff | r.gen
	mask := uint64(len(r.keys) - 1)
	for i := h >> 8 & mask; ; i = (i + 1) & mask { // the home slot from the bits kept
		switch key := r.keys[i]; {
		case key == k:
			return r.lines[i], true
		case key&0xff != r.gen:
			r.keys[i], r.lines[i] = k, line
			r.n++
			return 0, false
		}
	}
}

func (r *runSet) grow() {
	oldKeys, oldLines, gen := r.keys, r.lines, r.gen
	size := max(2*len(oldKeys), 256)
	r.keys, r.lines = make([]uint64, size), make([]uint32, size)
	r.n = 0
	r.gen = max(r.gen, 1)
	for i, key := range oldKeys {
		if key&0xff == gen && gen != 0 {
			r.Insert(key, oldLines[i])
		}
	}
}
