package report

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
)

// Style colours text for a terminal and knows how wide it is. The zero value
// and NewStyle(w, false) print plain text with no width limit: colour and
// width are decided once, in cmd, from --no-color, NO_COLOR, COLUMNS and
// whether stdout is a TTY (style.md: IOStreams); report does no I/O.
//
// Colour is written as markers that Emit turns into SGR sequences (text.go),
// so that no escape sequence from a cluster can pass for one of ours.
type Style struct {
	r     *lipgloss.Renderer
	color bool
	// width is the number of columns the table format must fit (0: no
	// limit: wide, markdown, and a pipe without COLUMNS).
	width int
	// cluster is the cluster="..." label of every -o prom sample ("" none).
	cluster string
	// wideHint names where the columns and text cut to fit are shown in
	// full ("-o wide", or "-o json" for a kind without wide); set by Emit.
	wideHint string
	// drops, when set, collects the headers of the columns Table left out
	// instead of printing a note under each table (mv explain names them
	// once).
	drops *[]string
}

// WithWidth returns the style for a terminal of n columns (0: no limit).
func (s Style) WithWidth(n int) Style {
	if n < 0 {
		n = 0
	}
	s.width = n
	return s
}

// WithCluster sets the cluster label every -o prom series carries ("" for
// none).
func (s Style) WithCluster(name string) Style {
	s.cluster = name
	return s
}

// WithDrops is s with Table collecting the headers of the columns it leaves
// out into *d instead of printing a note under each table.
func (s Style) WithDrops(d *[]string) Style {
	s.drops = d
	return s
}

// Width is the number of columns output must fit; 0 means no limit.
func (s Style) Width() int { return s.width }

// WithHint names where the text cut to fit is shown in full, for a kind
// whose own formats have none (demo: "check -o wide"); Emit sets "-o wide"
// or "-o json" otherwise.
func (s Style) WithHint(h string) Style {
	s.wideHint = h
	return s
}

func (s Style) hint() string {
	if s.wideHint == "" {
		return "-o wide"
	}
	return s.wideHint
}

// NewStyle returns a style for w; color=false forces plain text.
func NewStyle(w io.Writer, color bool) Style {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return Style{r: r, color: color}
}

// Color reports whether the style emits ANSI colour.
func (s Style) Color() bool { return s.color }

func (s Style) fg(c string, bold bool, text string) string {
	if !s.color || s.r == nil {
		return text
	}
	st := s.r.NewStyle().Foreground(lipgloss.Color(c))
	if bold {
		st = st.Bold(true)
	}
	return s.paint(st, text)
}

// paint wraps text in the markers of st's SGR sequences (text.go): lipgloss
// renders a placeholder, and what stands before and after it is the SGR.
func (s Style) paint(st lipgloss.Style, text string) string {
	const ph = "\u2063" // invisible separator: no SGR contains it
	out := st.Render(ph)
	i := strings.Index(out, ph)
	if i < 0 {
		return text
	}
	pre, post := out[:i], out[i+len(ph):]
	if pre == "" && post == "" {
		return text
	}
	return mark(pre) + text + mark(post)
}

// Severity colours text by a severity or state word: critical/red,
// warning/yellow, info/blue, ok/green. A stream state and an MV state of
// one spelling (unknown, lagging, initializing) share their case.
func (s Style) Severity(sev, text string) string {
	switch sev {
	case "critical", string(streams.StateCannotResume), string(mv.FreshRebuildRequired), string(streams.StateUnknown), string(streams.StateStale), "error", "failed":
		return s.fg("9", true, text)
	case "warning", string(streams.StateLagging), string(streams.StateInitializing), string(streams.StateDisabled):
		return s.fg("11", false, text)
	case "info":
		return s.fg("12", false, text)
	case "ok", string(streams.StateCaughtUp), string(mv.FreshFresh), "success":
		return s.fg("10", false, text)
	}
	return text
}

// Bold emphasises a heading.
func (s Style) Bold(text string) string {
	if !s.color || s.r == nil {
		return text
	}
	return s.paint(s.r.NewStyle().Bold(true), text)
}

// Dim de-emphasises secondary text.
func (s Style) Dim(text string) string { return s.fg("8", false, text) }

// Render is text as Emit writes it: control characters escaped, colour
// markers turned into SGR sequences (or dropped without colour). For text
// printed outside Emit, and for tests comparing with Emit's output.
func (s Style) Render(text string) string { return terminalSafe(text, s.color) }
