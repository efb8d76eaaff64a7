package diag

import "sort"

// Grouping: a symptom is listed under its cause, in every format:
// SortFindings places each symptom right after its cause and links the two
// (Finding.Cause, Finding.Symptoms). Where a cause is found is declared with
// each symptom's code (Declaration.CausedBy): an MV's lagging reason, a
// failure reason, the MV an internal stream belongs to — carried in the
// finding's evidence. A finding whose cause is not in the same list (a config
// ignore removed it, or the command shows one area) stands alone.

// label is "db.name", the key grouping matches objects by.
func (o Object) label() string { return o.DB + "." + o.Name }

// groupKind folds a partition finding into its stream.
func groupKind(o Object) string {
	if o.Kind == "partition" {
		return "stream"
	}
	return o.Kind
}

// SortFindings orders findings worst first (impact class, severity, the
// code's place, magnitude: worse) and places every symptom right after its
// cause, setting Cause and Symptoms. A group takes the place of its most
// urgent member. The order is deterministic.
func SortFindings(fs []Finding) {
	for i := range fs {
		fs[i].Cause, fs[i].Symptoms = nil, nil
	}
	sort.SliceStable(fs, func(i, j int) bool { return worse(&fs[i], &fs[j]) })

	type objCode struct{ kind, label, code string }
	first := make(map[objCode]int, len(fs))
	for i := range fs {
		k := objCode{groupKind(fs[i].Object), fs[i].Object.label(), fs[i].Code.String()}
		if _, ok := first[k]; !ok {
			first[k] = i
		}
	}
	cause := make([]int, len(fs))
	for i := range fs {
		cause[i] = -1
		f := &fs[i]
		if f.Code.d == nil {
			continue
		}
		for _, c := range f.Code.d.CausedBy {
			if c.If != nil && !c.If(f) {
				continue
			}
			kind, label := groupKind(f.Object), f.Object.label()
			if c.Where != nil {
				var ok bool
				if kind, label, ok = c.Where(f); !ok {
					continue
				}
			}
			if j, ok := first[objCode{kind, label, c.Code}]; ok && j != i {
				cause[i] = j
				break
			}
		}
	}
	// A cause that is itself a symptom hands its symptoms to its own root:
	// one level of grouping (bounded walk: a cycle stops at len(fs) steps).
	root := func(i int) int {
		for n := 0; cause[i] >= 0 && n < len(fs); n++ {
			i = cause[i]
		}
		return i
	}
	roots := make([]int, len(fs))
	for i := range fs {
		roots[i] = root(i)
		if roots[i] == i {
			cause[i] = -1
		}
	}
	// Groups in the order of their earliest (most urgent) member.
	var order []int
	members := make(map[int][]int, len(fs))
	for i := range fs {
		r := roots[i]
		if _, seen := members[r]; !seen {
			order = append(order, r)
		}
		if r != i {
			members[r] = append(members[r], i)
		} else if members[r] == nil {
			members[r] = []int{}
		}
	}
	out := make([]Finding, 0, len(fs))
	for _, r := range order {
		c := fs[r]
		for _, s := range members[r] {
			c.Symptoms = append(c.Symptoms, FindingRef{Code: fs[s].Code, Object: fs[s].Object})
		}
		out = append(out, c)
		for _, s := range members[r] {
			f := fs[s]
			f.Cause = &FindingRef{Code: fs[r].Code, Object: fs[r].Object}
			out = append(out, f)
		}
	}
	copy(fs, out)
}
