package exposition

import "unsafe"

// hashMap is an open-addressing table from a 64-bit hash (never 0: 0 marks
// an empty slot) to a small value, at a load of at most 3/4: the families
// beyond Options.MaxFamilies (name hash → 2 bytes of state, hashTable) and
// every series seen (series hash → the line of first sight, dupSet: 12
// bytes a series instead of its text, the line read only on a hit; with a
// random seed, a false duplicate among n series has a chance of about
// n²/2⁶⁵).
type hashMap[V uint16 | uint32] struct {
	keys []uint64
	vals []V
	n    int
}

type (
	hashTable = hashMap[uint16]
	dupSet    = hashMap[uint32]
)

// Len is the number of entries.
func (t *hashMap[V]) Len() int { return t.n }

// State is the value at slot i (from Find); SetState replaces it.
func (t *hashMap[V]) State(i int) V       { return t.vals[i] }
func (t *hashMap[V]) SetState(i int, v V) { t.vals[i] = v }

// Find is the slot of h, or -1.
func (t *hashMap[V]) Find(h uint64) int {
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

// Insert adds h with value v; when h is there already it returns its
// value and true (a series' line of first sight) and changes nothing.
func (t *hashMap[V]) Insert(h uint64, v V) (V, bool) {
	if (t.n+1)*4 > len(t.keys)*3 {
		t.Grow(2 * (t.n + 1))
	}
	mask := uint64(len(t.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.vals[i] = h, v
			t.n++
			return 0, false
		case h:
			return t.vals[i], true
		}
	}
}

// Grow makes room for want entries at a load of at most 3/4.
func (t *hashMap[V]) Grow(want int) {
	size := 1 << 10
	for size*3/4 < want || size <= len(t.keys) {
		size *= 2
	}
	ok, ov := t.keys, t.vals
	t.keys, t.vals, t.n = make([]uint64, size), make([]V, size), 0
	for i, k := range ok {
		if k != 0 {
			t.Insert(k, ov[i])
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
