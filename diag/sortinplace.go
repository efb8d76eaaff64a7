package diag

import "sort"

// SortInPlace stable-sorts s by less (over the original positions), then
// applies the order in place by following its cycles: each element moves
// once and no second slice is allocated.
func SortInPlace[T any](s []T, less func(i, j int) bool) {
	if len(s) < 2 {
		return
	}
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return less(idx[a], idx[b]) })
	// idx[i] is the original position of the element that belongs at i.
	for start := range idx {
		if idx[start] == start || idx[start] < 0 {
			continue
		}
		tmp := s[start]
		cur := start
		for {
			src := idx[cur]
			idx[cur] = -1
			if src == start {
				s[cur] = tmp
				break
			}
			s[cur] = s[src]
			cur = src
		}
	}
}
