package tso

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		a, b          TSO
		phys, logical int64
	}{
		{469067681628160003, 469067681628160003, 0, 0},
		{10<<18 | 5, 7<<18 | 9, 3, -4},
		{7<<18 | 9, 10<<18 | 5, -3, 4},
		{MaxReal, 0, MaxPhysicalMs, MaxLogical - 1},
	}
	for _, tc := range tests {
		p, l := Diff(tc.a, tc.b)
		if p != tc.phys || l != tc.logical {
			t.Errorf("Diff(%d, %d) = %d, %d; want %d, %d", int64(tc.a), int64(tc.b), p, l, tc.phys, tc.logical)
		}
	}
}

func TestLagMillis(t *testing.T) {
	if LagUnit != 262144 {
		t.Fatalf("LagUnit = %d", LagUnit)
	}
	tests := []struct {
		raw  int64
		want float64
	}{
		{0, 0},
		{262144000, 1000}, // the docs example row: ≈ 1 s
		{262144, 1},
		{131072, 0.5},
		{-262144, -1},
	}
	for _, tc := range tests {
		if got := LagMillis(tc.raw); got != tc.want {
			t.Errorf("LagMillis(%d) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

func TestParseLag(t *testing.T) {
	tests := []struct {
		in   string
		lag  int64
		ok   bool
		err  error
		name bool // error must name the input
	}{
		{"262144000", 262144000, true, nil, false},
		{" 0 ", 0, true, nil, false},
		{"-3", -3, true, nil, false},
		{"N/A", 0, false, nil, false},
		{`\N`, 0, false, nil, false},
		{"", 0, false, nil, false},
		{"NULL", 0, false, nil, false},
		{"12ab", 0, false, ErrSyntax, true},
		{"-", 0, false, ErrSyntax, true},
		{"+1", 0, false, ErrSyntax, true},
		{"0x10", 0, false, ErrSyntax, true},
		{"9223372036854775808", 0, false, ErrOutOfRange, true},
	}
	for _, tc := range tests {
		lag, ok, err := ParseLag(tc.in)
		if lag != tc.lag || ok != tc.ok || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
			t.Errorf("ParseLag(%q) = %d, %v, %v; want %d, %v, %v", tc.in, lag, ok, err, tc.lag, tc.ok, tc.err)
		}
		if tc.name && (err == nil || !strings.Contains(err.Error(), `invalid LAG "`+tc.in+`"`)) {
			t.Errorf("ParseLag(%q) error %v does not name the input", tc.in, err)
		}
	}
}

func TestLooksLikeVersionCount(t *testing.T) {
	const off = TSO(469067681628160003)
	tests := []struct {
		lag    int64
		offset TSO
		want   bool
	}{
		{3, off, true},
		{LagUnit - 1, off, true},
		{LagUnit, off, false},
		{262144000, off, false},
		{0, off, false},  // caught up
		{-1, off, false}, // not a count
		{3, -1, false},   // no offset: LAG means something else
		{3, Unbounded, false},
	}
	for _, tc := range tests {
		if got := LooksLikeVersionCount(tc.lag, tc.offset); got != tc.want {
			t.Errorf("LooksLikeVersionCount(%d, %d) = %v, want %v", tc.lag, int64(tc.offset), got, tc.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "0s"},
		{1, "1ms"},
		{850, "850ms"},
		{999, "999ms"},
		{1000, "1s"},
		{12_999, "12s"},
		{59_999, "59s"},
		{60_000, "1m00s"},
		{5*60_000 + 3_000, "5m03s"},
		{3_599_999, "59m59s"},
		{3_600_000, "1h00m"},
		{2*3_600_000 + 5*60_000, "2h05m"},
		{86_399_999, "23h59m"},
		{86_400_000, "1d00h"},
		{3*86_400_000 + 4*3_600_000, "3d04h"},
		{-850, "-850ms"},
		{-(5*60_000 + 3_000), "-5m03s"},
		{math.MinInt64, "-106751991167d07h"},
		{math.MaxInt64, "106751991167d07h"},
	}
	for _, tc := range tests {
		if got := FormatDuration(tc.ms); got != tc.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}
