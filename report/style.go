package report

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Style colours text for a terminal. The zero value and NewStyle(w, false)
// print plain text: colour is decided once, in cmd, from --no-color,
// NO_COLOR and whether stdout is a TTY (style.md: IOStreams).
type Style struct {
	r     *lipgloss.Renderer
	color bool
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
	return st.Render(text)
}

// Severity colours text by a severity or state word: critical/red,
// warning/yellow, info/blue, ok/green.
func (s Style) Severity(sev, text string) string {
	switch sev {
	case "critical", "cannot_resume", "rebuild_required", "unknown", "stale", "error", "failed":
		return s.fg("9", true, text)
	case "warning", "lagging", "initializing", "disabled":
		return s.fg("11", false, text)
	case "info":
		return s.fg("12", false, text)
	case "ok", "caught_up", "fresh", "success":
		return s.fg("10", false, text)
	}
	return text
}

// Bold emphasises a heading.
func (s Style) Bold(text string) string {
	if !s.color || s.r == nil {
		return text
	}
	return s.r.NewStyle().Bold(true).Render(text)
}

// Dim de-emphasises secondary text.
func (s Style) Dim(text string) string { return s.fg("8", false, text) }
