package tso

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	tests := []struct {
		in   TSO
		want TSO
		err  error
	}{
		{0, 1, nil},
		{1<<18 - 1, 1 << 18, nil}, // last TSO of a ms → first of the next
		{MaxReal - 1, MaxReal, nil},
		// doris.md §1: the domain is [0, MAX_REAL_TSO], so MaxReal's successor
		// is Unbounded (the exclusive "no bound"), not an error.
		{MaxReal, Unbounded, nil},
		{Unbounded, 0, ErrNotReal},
		{-1, 0, ErrNotReal},
		{-1 << 63, 0, ErrNotReal},
	}
	for _, tc := range tests {
		got, err := Next(tc.in)
		if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) || got != tc.want {
			t.Errorf("Next(%d) = %d, %v; want %d, %v", int64(tc.in), int64(got), err, int64(tc.want), tc.err)
		}
	}
}

// The BE unit-test vectors of doris.md §2, plus the boundaries around them.
func TestCutoff(t *testing.T) {
	tests := []struct {
		name      string
		ref       TSO
		ttl       int64
		wantCut   TSO
		wantFloor TSO
		err       error
	}{
		// X = 123456 - 1000 = 122456: cutoff is the last TSO of ms 122456.
		{"BE vector ttl=1", 123456<<18 | 7, 1, 122457<<18 - 1, 122457 << 18, nil},
		// X = 123456 - 124000 < 0 → 0.
		{"BE vector ttl=124", 123456 << 18, 124, 0, 1, nil},
		// X = 123456 - 123000 = 456 → cutoff+1 = 457<<18.
		{"BE vector ttl=123", 123456 << 18, 123, 457<<18 - 1, 457 << 18, nil},
		// X == 0: the whole millisecond 0 expires.
		{"X == 0", 5000 << 18, 5, 1<<18 - 1, 1 << 18, nil},
		// X == -1.
		{"X == -1", 4999 << 18, 5, 0, 1, nil},
		// The logical part of ref does not move the cut-off.
		{"ref logical max", 123456<<18 | TSO(MaxLogical), 1, 122457<<18 - 1, 122457 << 18, nil},
		{"ref MaxReal", MaxReal, 1, TSO((MaxPhysicalMs-1000+1)<<18 - 1), TSO((MaxPhysicalMs - 999) << 18), nil},
		{"ref 0", 0, 1, 0, 1, nil},
		{"huge ttl, no overflow", 123456 << 18, math.MaxInt64 / 1000, 0, 1, nil},
		{"ttl*1000 overflows", 123456 << 18, math.MaxInt64/1000 + 1, 0, 0, ErrOutOfRange},
		{"ttl 0", 123456 << 18, 0, 0, 0, ErrTTLNotActive},
		{"ttl negative", 123456 << 18, -1, 0, 0, ErrTTLNotActive},
		{"ref Unbounded", Unbounded, 1, 0, 0, ErrNotReal},
		{"ref negative", -1, 1, 0, 0, ErrNotReal},
	}
	for _, tc := range tests {
		cut, err := Cutoff(tc.ref, tc.ttl)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: Cutoff err = %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || cut != tc.wantCut {
			t.Errorf("%s: Cutoff = %d, %v; want %d", tc.name, int64(cut), err, int64(tc.wantCut))
		}
		// The retention floor is nextTso(cutoff), as diag.TSOHeadroom and
		// ComputeRetention compute it.
		floor, err := Next(cut)
		if err != nil || floor != tc.wantFloor {
			t.Errorf("%s: retention floor Next(cutoff) = %d, %v; want %d", tc.name, int64(floor), err, int64(tc.wantFloor))
		}
	}
	// The literal assertion of the first BE vector.
	cut, _ := Cutoff(123456<<18|7, 1)
	if cut.Physical() != 122456 || cut+1 != 122457<<18 {
		t.Errorf("BE vector: physical(cutoff) = %d, cutoff+1 = %d", cut.Physical(), int64(cut+1))
	}
}

// doris.md §2: "the whole boundary millisecond expires": a commit at physical X
// with any logical counter is at or below the cut-off (expired), one at X+1
// is above it.
func TestCutoffBoundaryMillisecond(t *testing.T) {
	const ref = TSO(123456<<18 | 7) // ttl 1 → X = 122456
	tests := []struct {
		name    string
		commit  TSO
		expired bool
	}{
		{"X, logical 0", 122456 << 18, true},
		{"X, logical max", 122456<<18 | TSO(MaxLogical), true},
		{"X+1, logical 0", 122457 << 18, false},
		{"X-1", 122455<<18 | 5, true},
		{"the reference itself", ref, false},
		{"TSO 0", 0, true},
	}
	cut, err := Cutoff(ref, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		if got := tc.commit <= cut; got != tc.expired {
			t.Errorf("%s: commit %d <= cutoff %d is %v; want %v", tc.name, int64(tc.commit), int64(cut), got, tc.expired)
		}
	}
}

func TestComputeRetention(t *testing.T) {
	const ref = TSO(123456<<18 | 7) // ttl 1 → X = 122456, floor = 122457<<18
	tests := []struct {
		name       string
		consumed   TSO
		wantResume bool
		headroom   int64
		expired    int64
	}{
		// next_required == floor: can resume with exactly 0 headroom.
		{"headroom exactly 0", 122457<<18 - 1, true, 0, 0},
		// One below: next_required = floor-1, in ms X; cannot resume.
		{"one below", 122457<<18 - 2, false, -1, 1},
		{"consumed == floor", 122457 << 18, true, 0, 0},
		{"5 s of headroom", 127457 << 18, true, 5000, 0},
		{"10 s expired", 112457 << 18, false, -10000, 10000},
		{"consumed 0", 0, false, -122457, 122457},
		// Next(MaxReal) is Unbounded, which is >= every floor.
		{"consumed MaxReal", MaxReal, true, MaxPhysicalMs - 122457, 0},
	}
	for _, tc := range tests {
		r, err := ComputeRetention(ref, 1, tc.consumed)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r.CanResume != tc.wantResume || r.HeadroomMs != tc.headroom || r.ExpiredWindowMs != tc.expired {
			t.Errorf("%s: got resume=%v headroom=%d expired=%d; want %v %d %d",
				tc.name, r.CanResume, r.HeadroomMs, r.ExpiredWindowMs, tc.wantResume, tc.headroom, tc.expired)
		}
		if r.ReferenceTSO != ref || r.TTLSeconds != 1 || r.ConsumedTSO != tc.consumed ||
			r.CutoffTSO != 122457<<18-1 || r.RetentionFloorTSO != 122457<<18 || r.NextRequiredTSO != tc.consumed+1 {
			t.Errorf("%s: echoed fields wrong: %+v", tc.name, r)
		}
	}
	for _, bad := range []struct {
		consumed TSO
		ttl      int64
		err      error
	}{
		{-1, 1, ErrNotReal},
		{Unbounded, 1, ErrNotReal},
		{5, 0, ErrTTLNotActive},
		{5, -86400, ErrTTLNotActive},
		{5, math.MaxInt64, ErrOutOfRange},
	} {
		if _, err := ComputeRetention(ref, bad.ttl, bad.consumed); !errors.Is(err, bad.err) {
			t.Errorf("ComputeRetention(consumed %d, ttl %d) err = %v, want %v", int64(bad.consumed), bad.ttl, err, bad.err)
		}
	}
}

// The acceptance case, checked by hand.
//
//	offset C = 469067681628160003
//	  physical(C) = C >> 18 = 1789351202500 ms (2026-09-14T02:00:02.500Z), logical 3
//	  (check: 1789351202500 × 262144 = 469067681628160000, + 3)
//	ttl = 86400 s → ttl*1000 = 86400000 ms
//	now = 2026-09-15T12:00:00Z = 1789473600000 ms; ref = FromTime(now, 0)
//	  = 1789473600000 << 18 = 469099767398400000
//	X = 1789473600000 - 86400000 = 1789387200000 (2026-09-14T12:00:00Z)
//	cutoff_tso          = ((X+1) << 18) - 1 = 1789387200001 × 262144 - 1
//	                    = 469077118156800000 + 262144 - 1 = 469077118157062143
//	retention_floor_tso = cutoff + 1 = 469077118157062144 (physical 1789387200001)
//	next_required_tso   = C + 1 = 469067681628160004 (physical 1789351202500, logical 4)
//	can_resume          = 469067681628160004 >= 469077118157062144 → false
//	headroom_ms         = 1789351202500 - 1789387200001 = -35997501
//	headroom_seconds    = -35997.501 (about -10h00m: the offset is 34h ago, the TTL 24h)
//	expired_window_ms   = 35997501
func TestAcceptanceCase(t *testing.T) {
	ref, err := FromTime(time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC), 0)
	if err != nil || ref != 469099767398400000 {
		t.Fatalf("ref = %d, %v", int64(ref), err)
	}
	r, err := ComputeRetention(ref, 86400, 469067681628160003)
	if err != nil {
		t.Fatal(err)
	}
	want := Retention{
		ReferenceTSO:      469099767398400000,
		TTLSeconds:        86400,
		ConsumedTSO:       469067681628160003,
		CutoffTSO:         469077118157062143,
		RetentionFloorTSO: 469077118157062144,
		NextRequiredTSO:   469067681628160004,
		CanResume:         false,
		HeadroomMs:        -35997501,
		ExpiredWindowMs:   35997501,
	}
	if r != want {
		t.Errorf("ComputeRetention =\n %+v\nwant\n %+v", r, want)
	}
	if got := r.HeadroomSeconds(); got != -35997.501 {
		t.Errorf("HeadroomSeconds = %v, want -35997.501", got)
	}
	if got := FormatDuration(r.HeadroomMs); got != "-9h59m" {
		t.Errorf("FormatDuration(headroom) = %q", got)
	}
}
