package diag

// Impact is what a finding costs the user, worst first: findings are
// ordered by impact class, then severity, then the code's place in its class,
// then by how bad (the code's magnitude: the largest delay, the most negative
// headroom), so that silent data loss is read before a /metrics escaping
// problem. Class, place and magnitude are each code's Declaration.
type Impact int

// The impact classes, worst first.
const (
	// ImpactLoss: changes already lost or about to be (clipped reads, rows
	// skipped, an offset that cannot resume, headroom running out).
	ImpactLoss Impact = iota + 1
	// ImpactBroken: refreshes or reads that no longer work (failing,
	// stuck, paused, stale, a refresh that can only recompute).
	ImpactBroken
	// ImpactFreshness: data behind its target, recomputation, space.
	ImpactFreshness
	// ImpactVisibility: what dorisdiag or the FE monitor cannot see (a
	// source unreadable, a /metrics payload that does not parse, a stale
	// monitor, server and client disagreeing).
	ImpactVisibility
	// ImpactHygiene: disabled streams, /metrics style.
	ImpactHygiene
)

// magnitude is how bad one finding of its code is, larger worse: the
// Finding.Magnitude its check set, turned round for a code whose measure is
// worse when smaller. ok=false when the code has no measure or the finding
// carries no value.
func magnitude(f *Finding) (float64, bool) {
	m := f.Code.d.measure()
	if m.Name == "" || f.Magnitude == nil {
		return 0, false
	}
	if m.SmallerIsWorse {
		return -*f.Magnitude, true
	}
	return *f.Magnitude, true
}

func (d *Declaration) measure() Measure {
	if d == nil {
		return Measure{}
	}
	return d.Magnitude
}

// impactOf is the code's class and place; a code with none (the zero Code)
// sorts last.
func impactOf(c Code) (Impact, int) {
	if c.d == nil || c.d.Impact == 0 {
		return ImpactHygiene, 1 << 30
	}
	return c.d.Impact, c.d.Place
}

// worse reports whether a should be read before b: impact class, severity,
// the code's rank in its class, magnitude (a finding with one before one
// without), then code, object and summary so that the order is
// deterministic.
func worse(a, b *Finding) bool {
	ca, pa := impactOf(a.Code)
	cb, pb := impactOf(b.Code)
	if ca != cb {
		return ca < cb
	}
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if pa != pb {
		return pa < pb
	}
	ma, oka := magnitude(a)
	mb, okb := magnitude(b)
	if oka != okb {
		return oka
	}
	if oka && ma != mb {
		return ma > mb
	}
	if a.Code != b.Code {
		return a.Code.String() < b.Code.String()
	}
	if c := compareObjectStrings(&a.Object, &b.Object); c != 0 {
		return c < 0
	}
	return a.Summary < b.Summary
}

// objectPieces are the parts Object.String joins, in order (nil-free: the
// absent ones empty).
func objectPieces(o *Object) [6]string {
	if o.DB == "" && o.Name == "" && o.Partition == "" {
		return [6]string{o.Kind}
	}
	var p [6]string
	p[0] = o.DB
	if o.DB != "" && o.Name != "" {
		p[1] = "."
	}
	p[2] = o.Name
	if o.Partition != "" {
		p[3], p[4], p[5] = " [", o.Partition, "]"
	}
	return p
}

// compareObjectStrings is strings.Compare(a.String(), b.String()) without
// building either string: worse runs it millions of times on a large check.
func compareObjectStrings(a, b *Object) int {
	pa, pb := objectPieces(a), objectPieces(b)
	i, j := 0, 0 // piece
	x, y := 0, 0 // byte in the piece
	for {
		for i < len(pa) && x == len(pa[i]) {
			i, x = i+1, 0
		}
		for j < len(pb) && y == len(pb[j]) {
			j, y = j+1, 0
		}
		switch {
		case i == len(pa) && j == len(pb):
			return 0
		case i == len(pa):
			return -1
		case j == len(pb):
			return 1
		}
		if ca, cb := pa[i][x], pb[j][y]; ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		x, y = x+1, y+1
	}
}
