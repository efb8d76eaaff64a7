package report

import (
	"fmt"
	"io"
	"strings"
)

// KeyValues writes aligned "key  value" lines, every value through Sanitize
// and, with a width, cut in the middle to fit (Truncate).
func (st Style) KeyValues(w io.Writer, kv [][2]string) {
	width := 0
	for _, p := range kv {
		width = max(width, TextWidth(p[0]))
	}
	var b strings.Builder
	for _, p := range kv {
		k, v := Sanitize(p[0]), Sanitize(p[1])
		if st.width > 0 {
			v = Truncate(v, st.width-width-2)
		}
		line := fmt.Sprintf("%s%s  %s", st.Bold(k), strings.Repeat(" ", width-TextWidth(k)), v)
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	_, _ = io.WriteString(w, b.String())
}
