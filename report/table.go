package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table writes rows under headers as borderless, left-aligned columns two
// spaces apart (kubectl's style), every cell through Sanitize. With a width
// (the table format on a terminal) it fits: the widest text columns are cut,
// names in the middle ("demo.__doris_iv…144l_voa", Truncate), messages (an
// ERROR, TITLE or NOTE column) at their end after a whole word
// (TruncateEnd), and when that is not
// enough the rightmost columns are left out, with one line naming them and
// where to see them ("-o wide"). Renderers order columns by importance for
// that reason. Cells may carry colour from Style (never cut).
func (st Style) Table(w io.Writer, headers []string, rows [][]string) error {
	n := len(headers)
	cells := make([][]string, 0, len(rows)+1)
	cells = append(cells, sanitizeRow(headers, n))
	for _, r := range rows {
		cells = append(cells, sanitizeRow(r, n))
	}
	widths := make([]int, n)
	for _, r := range cells {
		for j, c := range r {
			widths[j] = max(widths[j], TextWidth(c))
		}
	}
	shown := n
	if st.width > 0 {
		shown, widths = fitColumns(st.width, cells, widths)
	}
	var b strings.Builder
	for i, r := range cells {
		var line strings.Builder
		for j := 0; j < shown; j++ {
			c := r[j]
			if TextWidth(c) > widths[j] && i > 0 && proseColumn(cells[0][j]) {
				c = TruncateEnd(c, widths[j])
			} else if TextWidth(c) > widths[j] {
				c = Truncate(c, widths[j])
			}
			if i == 0 {
				c = st.Bold(c)
			}
			line.WriteString(c)
			if j < shown-1 {
				line.WriteString(strings.Repeat(" ", widths[j]-TextWidth(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	if shown < n && st.drops != nil {
		*st.drops = append(*st.drops, cells[0][shown:]...)
	} else if shown < n {
		left := make([]string, 0, n-shown)
		for _, h := range cells[0][shown:] {
			left = append(left, Glue(h)) // a header is not broken across lines
		}
		note := fmt.Sprintf("(%d more column(s) in %s: %s)", n-shown, st.hint(), strings.Join(left, ", "))
		for _, l := range Wrap(note, st.width, "", " ") {
			b.WriteString(st.Dim(l) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("rendering table: %w", err)
	}
	return nil
}

// proseColumn: the column's header names a message (an error, a title, a
// note), not an identifier: its cells are cut at their end after a whole
// word (TruncateEnd), not in the middle.
func proseColumn(header string) bool {
	switch header {
	case "ERROR", "TITLE", "NOTE", "MESSAGE":
		return true
	}
	return false
}

// sanitizeRow is r with n cells, each escaped (a newline in a name must not
// break the row).
func sanitizeRow(r []string, n int) []string {
	out := make([]string, n)
	for j := 0; j < n && j < len(r); j++ {
		out[j] = Sanitize(r[j])
	}
	return out
}

// A cut column keeps at least comfortableTextColumn columns while leaving
// a column out is enough, and minTextColumn ("demo.s_o…_audit") when not.
const (
	comfortableTextColumn = 20
	minTextColumn         = 14
)

// fitColumns decides how many columns fit in width and how wide each is.
// Only text columns (with a letter in some cell, and uncoloured) are cut,
// widest first, down to max(header, minTextColumn); a number or a TSO is
// never cut, it is left out with the columns right of it.
func fitColumns(width int, cells [][]string, natural []int) (int, []int) {
	for _, floor := range []int{comfortableTextColumn, minTextColumn} {
		if shown, widths, ok := fitWith(width, floor, cells, natural); ok {
			return shown, widths
		}
	}
	return 1, natural
}

// fitWith is fitColumns with cut columns no narrower than minCut (nor
// their header); ok=false when not even two columns fit.
func fitWith(width, minCut int, cells [][]string, natural []int) (int, []int, bool) {
	n := len(natural)
	for shown := n; shown > 1; shown-- {
		widths := append([]int(nil), natural[:shown]...)
		total := func() int {
			t := 2 * (shown - 1)
			for _, x := range widths {
				t += x
			}
			return t
		}
		for total() > width {
			best := -1
			for j := 0; j < shown; j++ {
				floor := max(TextWidth(cells[0][j]), minCut)
				if widths[j] > floor && cuttable(cells, j) && (best < 0 || widths[j] > widths[best]) {
					best = j
				}
			}
			if best < 0 {
				break
			}
			widths[best]-- // one column at a time: cut columns end up alike
		}
		if total() <= width {
			return shown, append(widths, natural[shown:]...), true
		}
	}
	return 0, nil, false
}

// cuttable: column j holds names or messages — a run of three lower-case
// letters in some cell — and no colour. Numbers, durations, TSOs, hex
// values, timestamps and upper-case state words are never cut.
func cuttable(cells [][]string, j int) bool {
	text := false
	for _, r := range cells[1:] {
		c := r[j]
		if strings.ContainsRune(c, markOpen) || strings.HasPrefix(c, "0x") {
			return false
		}
		run := 0
		for _, ch := range c {
			if ch >= 'a' && ch <= 'z' {
				run++
				if run >= 3 {
					text = true
				}
			} else {
				run = 0
			}
		}
	}
	return text
}

// Markdown writes a GitHub-flavoured table, escaping "|" in cells (the
// tablewriter markdown renderer does not) and every control character
// (Sanitize); a line break of ours becomes <br>.
func Markdown(w io.Writer, headers []string, rows [][]string) error {
	esc := func(s string) string {
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			parts[i] = strings.ReplaceAll(Sanitize(p), "|", `\|`)
		}
		return strings.Join(parts, "<br>")
	}
	h := make([]string, len(headers))
	for i, c := range headers {
		h[i] = esc(c)
	}
	body := make([][]string, len(rows))
	for i, r := range rows {
		body[i] = make([]string, len(r))
		for j, c := range r {
			body[i][j] = esc(c)
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	t.Header(toAny(h)...)
	if err := t.Bulk(body); err != nil {
		return fmt.Errorf("rendering markdown: %w", err)
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("rendering markdown: %w", err)
	}
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
