package mv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

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
