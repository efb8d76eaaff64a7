package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestHeadroomBar(t *testing.T) {
	var buf bytes.Buffer
	plain := NewStyle(&buf, false)
	half := 0.5
	if got := HeadroomBar(plain, &half, "warning"); got != "" {
		t.Errorf("no bar without colour, got %q", got)
	}
	color := NewStyle(&buf, true)
	strip := func(s string) string {
		var b strings.Builder
		in := false
		for _, r := range s {
			switch {
			case r == '\x1b':
				in = true
			case in && r == 'm':
				in = false
			case !in:
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1, "████████"},
		{1.7, "████████"},
		{0.5, "████░░░░"},
		{0.001, "█░░░░░░░"}, // a sliver left is not "expired"
		{0, "░░░░░░░░"},
		{-3, "░░░░░░░░"},
	} {
		f := tc.f
		got := terminalSafe(HeadroomBar(color, &f, "critical"), true) // Emit turns the markers into SGR
		if !strings.Contains(got, "\x1b[") {
			t.Errorf("%v: bar not coloured: %q", tc.f, got)
		}
		if strip(got) != tc.want {
			t.Errorf("%v: %q, want %q", tc.f, strip(got), tc.want)
		}
	}
	if HeadroomBar(color, nil, "ok") != "" {
		t.Error("nil fraction: want no bar")
	}
}
