package exposition

import "unsafe"

// Families beyond Options.MaxFamilies (issue 24, "any cardinality
// bounded"): a payload of a million families must not cost a million
// family records, name strings and map entries. The first MaxFamilies
// families are tracked in full (FamilyStat, the per-family rules); the
// others keep only what expfmt's verdict and the line rules need — the
// TYPE, whether HELP and samples were seen, contiguity and the caller's
// policy — in 2 bytes beside a 64-bit hash of the name. The current one is
// unpacked into a spare record at index e.spare, so the tokenizer reads
// every family alike; Result.FamiliesNotTracked counts them and a
// families-not-tracked problem says what was not checked.

// Bits of an untracked family's state.
const (
	fsType      = 7 // mtype
	fsHelp      = 1 << 3
	fsHelpEmpty = 1 << 4
	fsSamples   = 1 << 5
	fsTouched   = 1 << 6
	fsNonContig = 1 << 7
	fsKeep      = 1 << 8
	fsNoNaN     = 1 << 9
)

// famTable is an open-addressing table of untracked families: name hash →
// state bits.
type famTable struct {
	keys  []uint64
	state []uint16
	n     int
}

func (t *famTable) find(h uint64) int {
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

func (t *famTable) add(h uint64, st uint16) {
	if (t.n+1)*4 > len(t.keys)*3 {
		t.grow(2 * (t.n + 1))
	}
	mask := uint64(len(t.keys) - 1)
	i := h & mask
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.state[i] = h, st
	t.n++
}

// grow makes room for want families at a load of at most 3/4.
func (t *famTable) grow(want int) {
	size := 1 << 12
	for size*3/4 < want || size <= len(t.keys) {
		size *= 2
	}
	{
		ok, os := t.keys, t.state
		t.keys, t.state, t.n = make([]uint64, size), make([]uint16, size), 0
		for i, k := range ok {
			if k != 0 {
				t.add(k, os[i])
			}
		}
	}
}

// nameArena makes the names of untracked families: strings cut from
// shared blocks that are never written again, so a million names cost a
// few hundred allocations, not a million.
type nameArena struct{ block []byte }

func (a *nameArena) intern(b []byte) string {
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

// famHash is the name hash of an untracked family (never 0: 0 marks none).
func (e *engine) famHash(name []byte) uint64 {
	h := hashBytes(e.hseed, name)
	if h == 0 {
		h = 1
	}
	return h
}

// findUntracked looks an untracked family up by name: its hash and state.
func (e *engine) findUntracked(name []byte) (uint64, uint16, bool) {
	if e.untracked.n == 0 {
		return 0, 0, false
	}
	h := e.famHash(name)
	if e.spareH == h {
		return h, pack(&e.fams[e.spare]), true
	}
	i := e.untracked.find(h)
	if i < 0 {
		return 0, 0, false
	}
	return h, e.untracked.state[i], true
}

// newUntracked records a family beyond the cap and makes it the spare's.
func (e *engine) newUntracked(name []byte, line int) {
	if e.spare < 0 {
		e.spare = int32(len(e.fams))
		e.fams = append(e.fams, famState{})
		e.untrackedFrom = line
		// as many more families as the bytes still to read suggest
		e.untracked.grow(e.expectMore(len(e.fams)))
	}
	h := e.famHash(name)
	e.untracked.add(h, 0)
	e.loadSpare(h, e.names.intern(name), 0)
	e.fams[e.spare].firstLine = line
}

// loadSpare unpacks untracked family h into the spare record, packing the
// one it held back first.
func (e *engine) loadSpare(h uint64, name string, st uint16) {
	if e.spareH == h {
		return
	}
	e.storeSpare()
	f := &e.fams[e.spare]
	*f = famState{name: name, typ: mtype(st & fsType), hasHelp: st&fsHelp != 0, helpEmpty: st&fsHelpEmpty != 0,
		touched: st&fsTouched != 0, nonContig: st&fsNonContig != 0, keep: st&fsKeep != 0, noNaN: st&fsNoNaN != 0,
		labels: f.labels[:0]}
	if st&fsSamples != 0 {
		f.samples = 1
	}
	e.spareH = h
}

func (e *engine) storeSpare() {
	if e.spareH == 0 {
		return
	}
	if i := e.untracked.find(e.spareH); i >= 0 {
		e.untracked.state[i] = pack(&e.fams[e.spare])
	}
}

func pack(f *famState) uint16 {
	st := uint16(f.typ)
	if f.hasHelp {
		st |= fsHelp
	}
	if f.helpEmpty {
		st |= fsHelpEmpty
	}
	if f.samples > 0 {
		st |= fsSamples
	}
	if f.touched {
		st |= fsTouched
	}
	if f.nonContig {
		st |= fsNonContig
	}
	if f.keep {
		st |= fsKeep
	}
	if f.noNaN {
		st |= fsNoNaN
	}
	return st
}

// famKey names family idx apart from every other: its index, or for the
// spare the hash of the untracked family it holds.
func (e *engine) famKey(idx int32) uint64 {
	if idx == e.spare {
		return e.spareH | 1<<63
	}
	return uint64(idx)
}

// tracked: idx is a family with a record of its own.
func (e *engine) tracked(idx int32) bool { return idx >= 0 && idx != e.spare }

// firstOn says where a family's HELP, TYPE or sample first was, when known
// (an untracked family's lines are not kept).
func firstOn(what string, line int) string {
	if line <= 0 {
		return ""
	}
	return " (" + what + " on line " + itoa(line) + ")"
}
