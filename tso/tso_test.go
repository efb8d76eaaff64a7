package tso

import (
	"errors"
	"testing"
	"time"
)

func TestConstants(t *testing.T) {
	if LogicalMask != 262143 || MaxLogical != 262143 {
		t.Errorf("LogicalMask = %d, MaxLogical = %d, want 262143", LogicalMask, MaxLogical)
	}
	if int64(Unbounded) != 9223372036854775807 || int64(MaxReal) != 9223372036854775806 {
		t.Errorf("Unbounded = %d, MaxReal = %d", int64(Unbounded), int64(MaxReal))
	}
	if MaxPhysicalMs != 1<<45-1 {
		t.Errorf("MaxPhysicalMs = %d, want 2^45-1", MaxPhysicalMs)
	}
	if Unbounded.IsReal() || !MaxReal.IsReal() || TSO(-1).IsReal() || !TSO(0).IsReal() {
		t.Error("IsReal boundaries wrong")
	}
}

// The decode vectors of doris.md §1.
//
// doris.md §1 says 469067681628160003 → physical 1789351206000 ms, but the
// layout it states (physical = t >> 18, TSOTimestamp.java) gives
// 1789351202500 (2026-09-14T02:00:02.500Z): 1789351202500 × 262144 + 3 =
// 469067681628160003, while (1789351206000 << 18) | 3 = 469067682545664003.
// 1789351206000 is the LAST_CONSUMPTION_TIME of the same docs example row,
// 3.5 s after the offset; the docs conflated the two. The layout wins, and the
// TiDB vector below confirms it.
func TestDecodeVectors(t *testing.T) {
	tests := []struct {
		tso      TSO
		physical int64
		logical  int64
		time     string
	}{
		{469067681628160003, 1789351202500, 3, "2026-09-14T02:00:02.5Z"},
		{395181938313123110, 1507499459507, 120102, "2017-10-08T21:50:59.507Z"},
		{0, 0, 0, "1970-01-01T00:00:00Z"},
		{MaxReal, MaxPhysicalMs, MaxLogical - 1, ""},
		{1<<18 - 1, 0, MaxLogical, "1970-01-01T00:00:00Z"}, // last TSO of ms 0
		{1 << 18, 1, 0, "1970-01-01T00:00:00.001Z"},        // first TSO of ms 1
	}
	for _, tc := range tests {
		if got := tc.tso.Physical(); got != tc.physical {
			t.Errorf("%d.Physical() = %d, want %d", tc.tso, got, tc.physical)
		}
		if got := tc.tso.Logical(); got != tc.logical {
			t.Errorf("%d.Logical() = %d, want %d", tc.tso, got, tc.logical)
		}
		if tc.time != "" {
			if got := tc.tso.Time().Format(time.RFC3339Nano); got != tc.time {
				t.Errorf("%d.Time() = %s, want %s", tc.tso, got, tc.time)
			}
		}
		back, err := Compose(tc.physical, tc.logical)
		if err != nil || back != tc.tso {
			t.Errorf("Compose(%d, %d) = %d, %v; want %d", tc.physical, tc.logical, back, err, tc.tso)
		}
	}
	if loc := TSO(1).Time().Location(); loc != time.UTC {
		t.Errorf("Time() location = %v, want UTC", loc)
	}
}

func TestCompose(t *testing.T) {
	tests := []struct {
		name              string
		physical, logical int64
		want              TSO
		wantErr           bool
	}{
		{"zero", 0, 0, 0, false},
		{"logical max", 5, 262143, 5<<18 | 262143, false},
		{"logical over", 5, 262144, 0, true},
		{"logical negative", 5, -1, 0, true},
		{"physical negative", -1, 0, 0, true},
		{"physical max, logical max-1 is MaxReal", MaxPhysicalMs, MaxLogical - 1, MaxReal, false},
		{"physical max, logical max would be Unbounded", MaxPhysicalMs, MaxLogical, 0, true},
		{"physical over", MaxPhysicalMs + 1, 0, 0, true},
	}
	for _, tc := range tests {
		got, err := Compose(tc.physical, tc.logical)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: Compose(%d, %d) = %d, %v; want %d, err=%v", tc.name, tc.physical, tc.logical, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !errors.Is(err, ErrOutOfRange) {
			t.Errorf("%s: error %v is not ErrOutOfRange", tc.name, err)
		}
	}
}

func TestStringHex(t *testing.T) {
	tests := []struct {
		t        TSO
		dec, hex string
	}{
		{0, "0", "0x0"},
		{469067681628160003, "469067681628160003", "0x68276923b100003"},
		{Unbounded, "9223372036854775807", "0x7fffffffffffffff"},
		{-1, "-1", "-0x1"},
		{-1 << 63, "-9223372036854775808", "-0x8000000000000000"},
	}
	for _, tc := range tests {
		if got := tc.t.String(); got != tc.dec {
			t.Errorf("String(%d) = %q, want %q", int64(tc.t), got, tc.dec)
		}
		if got := tc.t.Hex(); got != tc.hex {
			t.Errorf("Hex(%d) = %q, want %q", int64(tc.t), got, tc.hex)
		}
	}
}

func TestFromTime(t *testing.T) {
	tests := []struct {
		name    string
		in      time.Time
		logical int64
		want    TSO
		wantErr bool
	}{
		{"epoch", time.Unix(0, 0), 0, 0, false},
		{"truncates to ms", time.Date(2026, 9, 14, 2, 0, 2, 500_999_999, time.UTC), 3, 469067681628160003, false},
		{"zone does not matter", time.Date(2026, 9, 14, 4, 0, 2, 500_000_000, time.FixedZone("CEST", 2*3600)), 3, 469067681628160003, false},
		{"before 1970", time.Unix(0, -1), 0, 0, true},
		{"logical out of range", time.Unix(0, 0), 262144, 0, true},
		{"last ms", time.UnixMilli(MaxPhysicalMs), 0, TSO(MaxPhysicalMs << 18), false},
		{"beyond range", time.UnixMilli(MaxPhysicalMs + 1), 0, 0, true},
		{"far future", time.Date(292277026596, 1, 1, 0, 0, 0, 0, time.UTC), 0, 0, true},
	}
	for _, tc := range tests {
		got, err := FromTime(tc.in, tc.logical)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: FromTime = %d, %v; want %d, err=%v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
