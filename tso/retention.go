package tso

import (
	"fmt"
	"math"
)

// Next is Doris' nextTso: t+1 for a real TSO in [0, MaxReal], an error for
// anything else. It turns an inclusive bound into the equivalent half-open one
// ("x <= t" is "x < Next(t)"), doris.md §1.
//
// Next(MaxReal) is NOT an error: it returns Unbounded. doris.md §1 defines the
// domain as the closed range [0, MAX_REAL_TSO], and Doris' TSOTimestamp.nextTso
// checks exactly that; MAX_REAL_TSO is 2^63-2 precisely so that its successor
// exists without overflow. As an exclusive bound, Unbounded means "no bound",
// which is the right reading of "everything up to and including MaxReal".
// Next(Unbounded) and Next(negative) are errors.
func Next(t TSO) (TSO, error) {
	if !t.IsReal() {
		return 0, fmt.Errorf("next TSO of %d: expects a real TSO in [0, %d]: %w", int64(t), int64(MaxReal), ErrNotReal)
	}
	return t + 1, nil
}

// cutoffMs is X = physical(ref) - ttl*1000 of doris.md §2, with its
// preconditions checked once for Cutoff and ComputeRetention.
func cutoffMs(ref TSO, ttlSeconds int64) (int64, error) {
	if ttlSeconds <= 0 {
		return 0, fmt.Errorf("TTL cut-off: ttl_seconds %d <= 0: %w", ttlSeconds, ErrTTLNotActive)
	}
	if ttlSeconds > math.MaxInt64/1000 {
		return 0, fmt.Errorf("TTL cut-off: ttl_seconds %d: ttl*1000 overflows int64: %w", ttlSeconds, ErrOutOfRange)
	}
	if !ref.IsReal() {
		return 0, fmt.Errorf("TTL cut-off: reference TSO %d: %w", int64(ref), ErrNotReal)
	}
	// physical(ref) >= 0 and ttl*1000 <= MaxInt64, so this cannot overflow.
	return ref.Physical() - ttlSeconds*1000, nil
}

// Cutoff is calculateCutoff / row_binlog_ttl_cutoff_tso (doris.md §2): the last
// TSO that has expired at reference TSO ref under ttl_seconds. With
// X = physical(ref) - ttl*1000 ms, it is 0 when X < 0 and otherwise the last
// TSO of millisecond X, ((X+1) << 18) - 1: the whole boundary millisecond
// expires, whatever its logical counter.
//
// ttl <= 0 is ErrTTLNotActive (Doris applies no window then; the caller must
// decide and report whether the TTL is active, doris.md §2). ref must be real.
func Cutoff(ref TSO, ttlSeconds int64) (TSO, error) {
	x, err := cutoffMs(ref, ttlSeconds)
	if err != nil {
		return 0, err
	}
	if x < 0 {
		return 0, nil
	}
	// x <= MaxPhysicalMs - 1000, so the shift stays below MaxReal.
	return TSO((x+1)<<LogicalBits - 1), nil
}

// Retention is the whole seed definition for one consumed offset C
// (inclusive) — seed §3 "Definitions": resume and retention headroom, computed
// with the planner's functions, not an approximation of them.
type Retention struct {
	ReferenceTSO      TSO   `json:"reference_tso"`       // the cluster's current TSO ("now")
	TTLSeconds        int64 `json:"ttl_seconds"`         // changelog/binlog.ttl_seconds of the base table
	ConsumedTSO       TSO   `json:"consumed_tso"`        // C, the offset, inclusive
	CutoffTSO         TSO   `json:"cutoff_tso"`          // calculateCutoff(ref, ttl)
	RetentionFloorTSO TSO   `json:"retention_floor_tso"` // nextTso(cutoff)
	NextRequiredTSO   TSO   `json:"next_required_tso"`   // nextTso(C)
	CanResume         bool  `json:"can_resume"`          // next_required >= retention_floor
	// HeadroomMs is physical(next_required) - physical(retention_floor): how
	// long until the next change the consumer needs expires. Negative when it
	// already has.
	HeadroomMs int64 `json:"headroom_ms"`
	// ExpiredWindowMs, when !CanResume, is physical(floor) - physical(next_required):
	// the span of changes a resumed read loses (DETAIL/APPEND_ONLY: clipped
	// silently) or is rejected for (MIN_DELTA), doris.md §2. 0 when CanResume.
	ExpiredWindowMs int64 `json:"expired_window_ms"`
}

// HeadroomSeconds is the seed's headroom_seconds: HeadroomMs / 1000, may be
// negative.
func (r Retention) HeadroomSeconds() float64 { return float64(r.HeadroomMs) / 1000 }

// ComputeRetention applies seed §3 Definitions to consumed offset C at
// reference TSO ref under ttl_seconds:
//
//	cutoff          = calculateCutoff(ref, ttl)
//	retention_floor = nextTso(cutoff)
//	next_required   = nextTso(C)
//	can_resume      = next_required >= retention_floor
//	headroom        = physical(next_required) - physical(retention_floor)
//
// The definitions apply only when the TTL is active and the partition has a
// real offset, so ttl <= 0 (ErrTTLNotActive) and a non-real C (ErrNotReal:
// "no offset" -1, Unbounded) are errors the caller turns into "not
// applicable", rather than numbers that look meaningful.
func ComputeRetention(ref TSO, ttlSeconds int64, consumed TSO) (Retention, error) {
	cutoff, err := Cutoff(ref, ttlSeconds)
	if err != nil {
		return Retention{}, err
	}
	floor, err := Next(cutoff)
	if err != nil {
		return Retention{}, err
	}
	next, err := Next(consumed)
	if err != nil {
		return Retention{}, fmt.Errorf("retention of consumed offset: %w", err)
	}
	r := Retention{
		ReferenceTSO:      ref,
		TTLSeconds:        ttlSeconds,
		ConsumedTSO:       consumed,
		CutoffTSO:         cutoff,
		RetentionFloorTSO: floor,
		NextRequiredTSO:   next,
		CanResume:         next >= floor,
		HeadroomMs:        next.Physical() - floor.Physical(),
	}
	if !r.CanResume {
		// floor is the first TSO of a millisecond, so next < floor implies
		// physical(next) < physical(floor): the window is at least 1 ms.
		r.ExpiredWindowMs = floor.Physical() - next.Physical()
	}
	return r, nil
}
