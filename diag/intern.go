package diag

import (
	"maps"
	"slices"
	"strings"
)

// Interner shares equal texts and evidence maps among the findings of one
// analysis: thousands of streams in the same condition carry the same
// summary, detail and evidence, and holding one copy each was most of the
// heap of a check of a large snapshot (docs/performance.md "Bounded
// snapshots"). It changes no value, only how many copies are held; a
// shared evidence map must not be written afterwards (no finding's is,
// once made). The zero value is ready; it keeps at most internMax of each
// (then starts over), so unrepeated values cost a bounded table.
type Interner struct {
	strs map[string]string
	evs  map[string]map[string]string
	key  strings.Builder
	keys []string
}

const internMax = 4096

// String returns s, or an equal string seen before.
func (in *Interner) String(s string) string {
	if s == "" {
		return s
	}
	if v, ok := in.strs[s]; ok {
		return v
	}
	if in.strs == nil || len(in.strs) >= internMax {
		in.strs = make(map[string]string)
	}
	in.strs[s] = s
	return s
}

// Evidence returns m, or an equal map seen before (then m is dropped).
func (in *Interner) Evidence(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	in.keys = in.keys[:0]
	for k := range m {
		in.keys = append(in.keys, k)
	}
	slices.Sort(in.keys)
	in.key.Reset()
	for _, k := range in.keys {
		in.key.WriteString(k)
		in.key.WriteByte(0)
		in.key.WriteString(m[k])
		in.key.WriteByte(0)
	}
	k := in.key.String()
	// The key's NUL separators can also be inside a hostile value: share
	// only a map that is equal, else keep m.
	if v, ok := in.evs[k]; ok && maps.Equal(v, m) {
		return v
	}
	if in.evs == nil || len(in.evs) >= internMax {
		in.evs = make(map[string]map[string]string)
	}
	in.evs[k] = m
	return m
}

// Finding shares f's summary, detail and evidence with equal ones seen
// before.
func (in *Interner) Finding(f *Finding) {
	f.Summary = in.String(f.Summary)
	f.Detail = in.String(f.Detail)
	f.Evidence = in.Evidence(f.Evidence)
}
