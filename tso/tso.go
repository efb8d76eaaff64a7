// Package tso decodes, composes, parses and compares Apache Doris TSOs and
// implements the TTL cut-off and retention arithmetic exactly as the Doris
// planner and BE do (doris.md §1 and §2; seed §3 "Definitions").
//
// The package is pure: no I/O, no wall clock, no printing. "Now" is always a
// reference TSO passed in by the caller (the cluster's current TSO), so a saved
// snapshot analyses the same way tomorrow.
package tso

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// TSO is a Doris TSO: the high 46 bits are physical Unix milliseconds, the low
// 18 bits a logical counter (doris.md §1; same layout as TiDB/PD). It is kept
// as a plain int64 so that it marshals to JSON as the same number Doris prints.
type TSO int64

const (
	// LogicalBits is the width of the logical counter.
	LogicalBits = 18
	// LogicalMask selects the logical counter: 262143.
	LogicalMask int64 = 1<<18 - 1
	// MaxLogical is the largest logical counter in one millisecond.
	MaxLogical int64 = LogicalMask
	// Unbounded is UNBOUNDED_TSO (2^63-1), the "latest / no bound" sentinel.
	// It is never an allocated TSO; it sorts above every real one so that a
	// right-open bound "x < Unbounded" still selects everything.
	Unbounded TSO = 1<<63 - 1
	// MaxReal is MAX_REAL_TSO (2^63-2), the largest legal allocated TSO. Real
	// TSOs stop one short of Unbounded so that Next never overflows.
	MaxReal TSO = 1<<63 - 2
	// MaxPhysicalMs is the largest physical millisecond of a real TSO
	// (2^45-1, roughly the year 3084).
	MaxPhysicalMs int64 = int64(MaxReal) >> 18
)

// Sentinel errors, so that callers can tell the failure classes apart with
// errors.Is while the message still carries the offending values.
var (
	// ErrOutOfRange: a value that cannot be (part of) a real TSO.
	ErrOutOfRange = errors.New("out of range")
	// ErrNotReal: an operation that needs a real TSO got a sentinel or a
	// negative value (Unbounded, -1 "no offset", ...).
	ErrNotReal = errors.New("not a real TSO")
	// ErrTTLNotActive: the TTL arithmetic was asked for with ttl_seconds <= 0,
	// where Doris applies no retention window at all (doris.md §2).
	ErrTTLNotActive = errors.New("TTL not active")
	// ErrSyntax: text that is neither a number nor a known "no value" marker.
	ErrSyntax = errors.New("invalid syntax")
)

// Compose builds a TSO from physical milliseconds and a logical counter,
// validating instead of masking (like Doris' composeRealTso): a silently
// masked value would decode to a different, plausible-looking time.
func Compose(physicalMs, logical int64) (TSO, error) {
	if physicalMs < 0 || physicalMs > MaxPhysicalMs {
		return 0, fmt.Errorf("compose TSO: physical %d ms not in [0, %d]: %w", physicalMs, MaxPhysicalMs, ErrOutOfRange)
	}
	if logical < 0 || logical > MaxLogical {
		return 0, fmt.Errorf("compose TSO: logical %d not in [0, %d]: %w", logical, MaxLogical, ErrOutOfRange)
	}
	t := TSO(physicalMs<<LogicalBits | logical)
	if t > MaxReal {
		// Only (MaxPhysicalMs, MaxLogical) gets here: it would be Unbounded.
		return 0, fmt.Errorf("compose TSO: (%d, %d) exceeds MAX_REAL_TSO %d: %w", physicalMs, logical, int64(MaxReal), ErrOutOfRange)
	}
	return t, nil
}

// Physical is the physical part in Unix milliseconds (t >> 18).
func (t TSO) Physical() int64 { return int64(t) >> LogicalBits }

// Logical is the logical counter (t & 0x3FFFF).
func (t TSO) Logical() int64 { return int64(t) & LogicalMask }

// Time is the physical part as a UTC time with millisecond precision.
func (t TSO) Time() time.Time { return time.UnixMilli(t.Physical()).UTC() }

// IsReal reports whether t can be an allocated TSO: 0 <= t <= MaxReal.
// Negative values ("no offset") and Unbounded are not.
func (t TSO) IsReal() bool { return t >= 0 && t <= MaxReal }

// String is the decimal form Doris prints in its system tables.
func (t TSO) String() string { return strconv.FormatInt(int64(t), 10) }

// Hex is the lower-case "0x..." form, handy for seeing the two fields.
// A negative value prints as "-0x...", which Parse does not accept (negative
// values are never TSOs).
func (t TSO) Hex() string {
	if t < 0 {
		return "-0x" + strconv.FormatUint(uint64(-int64(t)), 16)
	}
	return "0x" + strconv.FormatUint(uint64(t), 16)
}

// FromTime is the TSO of time t (truncated to the millisecond) with the given
// logical counter, e.g. FromTime(now, 0) for "the first TSO of now".
func FromTime(t time.Time, logical int64) (TSO, error) {
	if t.Before(time.Unix(0, 0)) {
		return 0, fmt.Errorf("TSO from time %s: before 1970: %w", t.UTC().Format(time.RFC3339Nano), ErrOutOfRange)
	}
	// Check seconds first: UnixMilli is undefined far outside the int64 range.
	if t.Unix() > MaxPhysicalMs/1000+1 {
		return 0, fmt.Errorf("TSO from time %s: beyond the last real TSO: %w", t.UTC().Format(time.RFC3339Nano), ErrOutOfRange)
	}
	return Compose(t.UnixMilli(), logical)
}
