package tso

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		kind       Kind
		tso        TSO
		offsetKind Kind // ParseOffset's kind, when it differs from Parse's
		err        error
	}{
		{"469067681628160003", KindTSO, 469067681628160003, KindTSO, nil},
		{"  469067681628160003\t\n", KindTSO, 469067681628160003, KindTSO, nil},
		{"0x68276923b100003", KindTSO, 469067681628160003, KindTSO, nil},
		{"0X68276923B100003", KindTSO, 469067681628160003, KindTSO, nil},
		{"007", KindTSO, 7, KindTSO, nil},
		{"1", KindTSO, 1, KindTSO, nil},
		{"0", KindTSO, 0, KindNoOffset, nil},
		{"0x0", KindTSO, 0, KindNoOffset, nil},
		{"9223372036854775806", KindTSO, MaxReal, KindTSO, nil},
		{"9223372036854775807", KindUnbounded, Unbounded, KindUnbounded, nil},
		{"0x7fffffffffffffff", KindUnbounded, Unbounded, KindUnbounded, nil},
		{"N/A", KindNoOffset, -1, KindNoOffset, nil},
		{`\N`, KindNoOffset, -1, KindNoOffset, nil},
		{"", KindNoOffset, -1, KindNoOffset, nil},
		{"   ", KindNoOffset, -1, KindNoOffset, nil},
		{"NULL", KindNoOffset, -1, KindNoOffset, nil},
		{"null", KindNoOffset, -1, KindNoOffset, nil},
		{"NuLl", KindNoOffset, -1, KindNoOffset, nil},
		{"-1", KindNoOffset, -1, KindNoOffset, nil},
		{"-5", KindNoOffset, -1, KindNoOffset, nil},
		{"-9223372036854775808", KindNoOffset, -1, KindNoOffset, nil},
		{"9223372036854775808", 0, 0, 0, ErrOutOfRange},
		{"-9223372036854775809", 0, 0, 0, ErrOutOfRange},
		{"99999999999999999999999", 0, 0, 0, ErrOutOfRange},
		{"0x8000000000000000", 0, 0, 0, ErrOutOfRange},
		{"0xffffffffffffffffffff", 0, 0, 0, ErrOutOfRange},
		{"12ab", 0, 0, 0, ErrSyntax},
		{"0x", 0, 0, 0, ErrSyntax},
		{"+", 0, 0, 0, ErrSyntax},
		{"+5", 0, 0, 0, ErrSyntax},
		{"-", 0, 0, 0, ErrSyntax},
		{"1e9", 0, 0, 0, ErrSyntax},
		{"abc", 0, 0, 0, ErrSyntax},
		{"0x-5", 0, 0, 0, ErrSyntax},
		{"0x+5", 0, 0, 0, ErrSyntax},
		{"-0x5", 0, 0, 0, ErrSyntax},
		{"1_000", 0, 0, 0, ErrSyntax},
		{"0x1_0", 0, 0, 0, ErrSyntax},
		{"1 2", 0, 0, 0, ErrSyntax},
		{"0b101", 0, 0, 0, ErrSyntax},
		{"N/A ", KindNoOffset, -1, KindNoOffset, nil},
		{"n/a", 0, 0, 0, ErrSyntax}, // Doris writes N/A exactly; don't guess more
		{"１２", 0, 0, 0, ErrSyntax},  // full-width digits
	}
	for _, tc := range tests {
		p, err := Parse(tc.in)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("Parse(%q) err = %v, want %v", tc.in, err, tc.err)
			} else if !strings.HasPrefix(err.Error(), fmt.Sprintf("invalid TSO %q: ", tc.in)) {
				t.Errorf("Parse(%q) err = %q does not quote the input", tc.in, err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Input != tc.in {
				t.Errorf("Parse(%q) err %v is not a *ParseError with the input", tc.in, err)
			}
			if _, oerr := ParseOffset(tc.in); !errors.Is(oerr, tc.err) {
				t.Errorf("ParseOffset(%q) err = %v, want %v", tc.in, oerr, tc.err)
			}
			continue
		}
		if err != nil || p.Kind != tc.kind || p.TSO != tc.tso || p.Raw != tc.in {
			t.Errorf("Parse(%q) = %+v, %v; want kind %v tso %d", tc.in, p, err, tc.kind, int64(tc.tso))
		}
		o, err := ParseOffset(tc.in)
		wantTSO := tc.tso
		if tc.offsetKind == KindNoOffset {
			wantTSO = -1
		}
		if err != nil || o.Kind != tc.offsetKind || o.TSO != wantTSO || o.Raw != tc.in {
			t.Errorf("ParseOffset(%q) = %+v, %v; want kind %v tso %d", tc.in, o, err, tc.offsetKind, int64(wantTSO))
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("abc")
	if err == nil || !strings.HasPrefix(err.Error(), `invalid TSO "abc": `) {
		t.Errorf("Parse(abc) err = %v", err)
	}
	_, err = Parse("9223372036854775808")
	if err == nil || err.Error() != `invalid TSO "9223372036854775808": outside the int64 range: out of range` {
		t.Errorf("Parse(overflow) err = %v", err)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindTSO: "tso", KindNoOffset: "no_offset", KindUnbounded: "unbounded", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
