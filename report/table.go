package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table writes rows under headers with ASCII borders, header text kept as
// given. Cells may already carry colour from Style.
func Table(w io.Writer, headers []string, rows [][]string) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithRendition(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	t.Header(toAny(headers)...)
	if err := t.Bulk(rows); err != nil {
		return fmt.Errorf("rendering table: %w", err)
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("rendering table: %w", err)
	}
	return nil
}

// Markdown writes a GitHub-flavoured table, escaping "|" in cells (the
// tablewriter markdown renderer does not).
func Markdown(w io.Writer, headers []string, rows [][]string) error {
	esc := func(s string) string {
		s = strings.ReplaceAll(s, "|", `\|`)
		return strings.ReplaceAll(s, "\n", "<br>")
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
