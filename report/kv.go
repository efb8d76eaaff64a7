package report

import (
	"io"
	"strings"
)

// KeyValues writes aligned "key  value" lines, every value through Sanitize.
// With a width, a long value is prose: it wraps at word boundaries under the
// value column (the key hangs out to its left), never cut, so that "lagging (server:
// information_schema.ivm_mv_status FRESHNESS_STATE LAGGING)" stays readable.
func (st Style) KeyValues(w io.Writer, kv [][2]string) {
	width := 0
	for _, p := range kv {
		width = max(width, TextWidth(p[0]))
	}
	indent := strings.Repeat(" ", width+2)
	var b strings.Builder
	for _, p := range kv {
		k, v := Sanitize(p[0]), Sanitize(p[1])
		first := st.Bold(k) + strings.Repeat(" ", width-TextWidth(k)+2)
		for _, l := range Wrap(v, st.width, first, indent) {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
	}
	_, _ = io.WriteString(w, b.String())
}
