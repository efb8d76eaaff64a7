package mv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dorisdiag/dorisdiag/doris"
)

// How the MV findings write their numbers, times and names.

func reasonsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func shareText(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%.0f%%", *p*100)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func ifText(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func mvTimeText(ms *int64) string {
	if ms == nil {
		return "an unknown time"
	}
	return timeText(*ms)
}

func timeText(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

func depText(d *Dependency) string {
	if d == nil || d.Delay.Get(0) <= 0 {
		return ""
	}
	s := " on " + d.BaseTableDB + "." + d.BaseTableName
	if d.WorstPartition != "" {
		s += " partition " + d.WorstPartition
	}
	return s
}

func depName(d *Dependency) string {
	if d == nil {
		return ""
	}
	return d.BaseTableDB + "." + d.BaseTableName
}

func depPart(d *Dependency) string {
	if d == nil {
		return ""
	}
	return d.WorstPartition
}

func streamNext(d *Dependency, t2 bool) string {
	if d.StreamID == nil {
		return "dorisdiag streams"
	}
	return doris.SuggestStreamOffsets(*d.StreamID, t2)
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func mvOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// errorGist is a task's error text made short without losing its cause, at
// most about n bytes: runs of white space (line feeds included) become one
// blank; the "errCode = N, detailMessage = " that Doris puts before every
// UserException message (apache/doris
// fe/fe-core/src/main/java/org/apache/doris/common/UserException.java
// getMessage, @0c6395c9) goes; a text still longer keeps its head (the node
// and the error's code) and its tail from a clause or a word, where Doris
// writes the cause ("... exceed limit 27.90 GB or sys available memory
// 1.41 GB less than low water mark ..."), joined by " [...] " (an elision
// in quoted text, not the renderers' "…", which only ends a cut line).
// Cutting the end used to leave "Allocator sys memory ch…". Control
// characters other than white space are left to the renderers' sanitizer.
func errorGist(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rest, ok := strings.CutPrefix(s, "errCode = "); ok {
		if i := strings.Index(rest, ", detailMessage = "); i >= 0 && i <= 6 {
			s = rest[i+len(", detailMessage = "):]
		}
	}
	if len(s) <= n {
		return s
	}
	const sep = " [...] "
	headN := n / 3
	tailN := n - headN - len(sep)
	head := s[:runeStart(s, headN)]
	if i := strings.LastIndexByte(head, ' '); i > headN/2 {
		head = head[:i]
	}
	tail := s[runeStart(s, len(s)-tailN):]
	if i := strings.Index(tail, ", "); i >= 0 && i < tailN/2 {
		tail = tail[i+2:] // from the start of a clause
	} else if i := strings.IndexByte(tail, ' '); i >= 0 && i < tailN/2 {
		tail = tail[i+1:]
	}
	return strings.TrimRight(head, " ,;:") + sep + tail
}

// runeStart is i moved back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
