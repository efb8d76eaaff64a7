package report

import (
	"fmt"
	"io"
)

// KeyValues writes aligned "key  value" lines.
func KeyValues(w io.Writer, kv [][2]string) {
	width := 0
	for _, p := range kv {
		if len(p[0]) > width {
			width = len(p[0])
		}
	}
	for _, p := range kv {
		fmt.Fprintf(w, "%-*s  %s\n", width, p[0], p[1])
	}
}
