package exposition

import "strconv"

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
	if e.untracked.Len() == 0 {
		return 0, 0, false
	}
	h := e.famHash(name)
	if e.spareH == h {
		return h, pack(&e.fams[e.spare]), true
	}
	i := e.untracked.Find(h)
	if i < 0 {
		return 0, 0, false
	}
	return h, e.untracked.State(i), true
}

// newUntracked records a family beyond the cap and makes it the spare's.
func (e *engine) newUntracked(name []byte, line int) {
	if e.spare < 0 {
		e.spare = int32(len(e.fams))
		e.fams = append(e.fams, famState{})
		e.untrackedFrom = line
		// as many more families as the bytes still to read suggest
		e.untracked.Grow(e.expectMore(len(e.fams)))
	}
	h := e.famHash(name)
	e.untracked.Insert(h, 0)
	e.loadSpare(h, e.names.Intern(name), 0)
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
	if i := e.untracked.Find(e.spareH); i >= 0 {
		e.untracked.SetState(i, pack(&e.fams[e.spare]))
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
	return " (" + what + " on line " + strconv.Itoa(line) + ")"
}
