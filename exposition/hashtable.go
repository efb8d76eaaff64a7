package exposition

import "unsafe"

// hashTable is an open-addressing table of the families beyond
// Options.MaxFamilies: name hash → 2 bytes of state.
type hashTable struct {
	keys  []uint64
	state []uint16
	n     int
}

// Len is the number of entries.
func (t *hashTable) Len() int { return t.n }

// State is the state at slot i (from Find).
func (t *hashTable) State(i int) uint16 { return t.state[i] }

// SetState replaces the state at slot i (from Find).
func (t *hashTable) SetState(i int, st uint16) { t.state[i] = st }

// Find is the slot of h, or -1.
func (t *hashTable) Find(h uint64) int {
	if t.n == 0 {
		return -1
	}
	mask := uint64(len(t.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case 0:
			return -1
		case h:
			return int(i)
		}
	}
}

// Add inserts h, which is not in the table, with state st.
func (t *hashTable) Add(h uint64, st uint16) {
	if (t.n+1)*4 > len(t.keys)*3 {
		t.Grow(2 * (t.n + 1))
	}
	mask := uint64(len(t.keys) - 1)
	i := h & mask
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.state[i] = h, st
	t.n++
}

// Grow makes room for want families at a load of at most 3/4.
func (t *hashTable) Grow(want int) {
	size := 1 << 12
	for size*3/4 < want || size <= len(t.keys) {
		size *= 2
	}
	{
		ok, os := t.keys, t.state
		t.keys, t.state, t.n = make([]uint64, size), make([]uint16, size), 0
		for i, k := range ok {
			if k != 0 {
				t.Add(k, os[i])
			}
		}
	}
}

// nameArena makes the names of untracked families: strings cut from
// shared blocks that are never written again, so a million names cost a
// few hundred allocations, not a million.
type nameArena struct{ block []byte }

// Intern is b as a string cut from the current block.
func (a *nameArena) Intern(b []byte) string {
	if len(b) > 256 {
		return string(b)
	}
	if cap(a.block)-len(a.block) < len(b) {
		a.block = make([]byte, 0, 64<<10)
	}
	n := len(a.block)
	a.block = append(a.block, b...)
	return unsafe.String(&a.block[n], len(b))
}
