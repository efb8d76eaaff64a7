package diag

import "slices"

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
//
// It allocates a few int32 per finding and nothing per comparison: a check
// of 400,000 streams sorts 800,000 findings (docs/performance.md "Bounded
// snapshots").
func SortFindings(fs []Finding) {
	for i := range fs {
		fs[i].Cause, fs[i].Symptoms = nil, nil
	}
	n := len(fs)
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(i, j int32) int {
		switch {
		case worse(&fs[i], &fs[j]):
			return -1
		case worse(&fs[j], &fs[i]):
			return 1
		}
		return 0
	})
	permute(fs, perm)

	// Only the codes some present code names as a cause are looked up.
	causes := map[string]bool{}
	for i := range fs {
		if d := fs[i].Code.d; d != nil {
			for _, c := range d.CausedBy {
				causes[c.Code] = true
			}
		}
	}
	type objCode struct{ kind, label, code string }
	first := map[objCode]int32{}
	if len(causes) > 0 {
		for i := range fs {
			if !causes[fs[i].Code.String()] {
				continue
			}
			k := objCode{groupKind(fs[i].Object), fs[i].Object.label(), fs[i].Code.String()}
			if _, ok := first[k]; !ok {
				first[k] = int32(i)
			}
		}
	}
	cause := make([]int32, n)
	for i := range fs {
		cause[i] = -1
		f := &fs[i]
		if f.Code.d == nil || len(first) == 0 {
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
			if j, ok := first[objCode{kind, label, c.Code}]; ok && int(j) != i {
				cause[i] = j
				break
			}
		}
	}
	// A cause that is itself a symptom hands its symptoms to its own root:
	// one level of grouping (bounded walk: a cycle stops at len(fs) steps).
	root := func(i int32) int32 {
		for k := 0; cause[i] >= 0 && k < n; k++ {
			i = cause[i]
		}
		return i
	}
	roots := make([]int32, n)
	for i := range fs {
		roots[i] = root(int32(i))
		if int(roots[i]) == i {
			cause[i] = -1
		}
	}
	// Groups in the order of their earliest (most urgent) member.
	order := make([]int32, 0, n)
	seen := make([]bool, n)
	members := map[int32][]int32{}
	for i := range fs {
		r := roots[i]
		if !seen[r] {
			seen[r] = true
			order = append(order, r)
		}
		if int(r) != i {
			members[r] = append(members[r], int32(i))
		}
	}
	perm = perm[:0]
	for _, r := range order {
		perm = append(perm, r)
		for _, s := range members[r] {
			fs[r].Symptoms = append(fs[r].Symptoms, FindingRef{Code: fs[s].Code, Object: fs[s].Object})
			fs[s].Cause = &FindingRef{Code: fs[r].Code, Object: fs[r].Object}
			perm = append(perm, s)
		}
	}
	permute(fs, perm)
}

// permute reorders fs in place so that fs[k] becomes the old fs[perm[k]]
// (perm a permutation), one finding moved once; perm is used up.
func permute(fs []Finding, perm []int32) {
	for i := range perm {
		if int(perm[i]) == i {
			continue
		}
		tmp := fs[i]
		j := int32(i)
		for {
			k := perm[j]
			perm[j] = j
			if int(k) == i {
				fs[j] = tmp
				break
			}
			fs[j] = fs[k]
			j = k
		}
	}
}
