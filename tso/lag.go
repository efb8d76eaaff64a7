package tso

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff is a - b field by field, signed: physical(a)-physical(b) in ms and
// logical(a)-logical(b). Fields are compared separately because a raw TSO
// difference mixes them (see LagMillis).
func Diff(a, b TSO) (physicalMs int64, logical int64) {
	return a.Physical() - b.Physical(), a.Logical() - b.Logical()
}

// LagUnit is the raw LAG (a TSO difference) that corresponds to about one
// millisecond: 2^18 = 262144 (doris.md §1, §4).
const LagUnit = 1 << 18

// LagMillis converts the LAG column of table_stream_consumption (latest commit
// TSO minus offset) into milliseconds: rawLag / 2^18. The result is
// approximate: the logical bits make it off by less than 1 ms (doris.md §1).
// Do not use it on a LAG that LooksLikeVersionCount.
func LagMillis(rawLag int64) float64 { return float64(rawLag) / LagUnit }

// ParseLag reads the LAG column (a VARCHAR, doris.md §4). "N/A", `\N`, "" and
// NULL mean "no lag known" (ok=false, no error); an integer is the raw value;
// anything else is an error that names the input.
func ParseLag(s string) (lag int64, ok bool, err error) {
	t := strings.TrimSpace(s)
	if isNull(t) {
		return 0, false, nil
	}
	d := t
	if d != "" && d[0] == '-' {
		d = d[1:]
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false, &ParseError{What: "LAG", Input: s, Err: fmt.Errorf("unexpected %q, want a decimal integer: %w", d[i], ErrSyntax)}
		}
	}
	if d == "" {
		return 0, false, &ParseError{What: "LAG", Input: s, Err: fmt.Errorf("no digits: %w", ErrSyntax)}
	}
	v, perr := strconv.ParseInt(t, 10, 64)
	if perr != nil {
		return 0, false, &ParseError{What: "LAG", Input: s, Err: fmt.Errorf("outside the int64 range: %w", ErrOutOfRange)}
	}
	return v, true, nil
}

// LooksLikeVersionCount reports whether a LAG is probably a count of partition
// versions rather than a TSO difference: older Doris builds counted LAG in
// versions (doris.md §4). A LAG > 0 and < 2^18 while the offset is a real TSO
// would be under 1 ms of TSO distance, which a real lag can be (two commits in
// the same millisecond) but rarely is; so this is a heuristic, and callers
// should say "probably" and not convert such a LAG to milliseconds.
func LooksLikeVersionCount(rawLag int64, offset TSO) bool {
	return rawLag > 0 && rawLag < LagUnit && offset.IsReal()
}

// FormatDuration renders milliseconds for humans with the two most significant
// units: "0s", "850ms", "12s", "5m03s", "2h05m", "3d04h"; negative values get a
// "-" prefix. Smaller units are truncated, not rounded, so a displayed
// duration never exceeds the real one.
func FormatDuration(ms int64) string {
	sign := ""
	u := uint64(ms) // handles math.MinInt64 without overflow
	if ms < 0 {
		sign = "-"
		u = -u
	}
	const (
		msSec  = 1000
		msMin  = 60 * msSec
		msHour = 60 * msMin
		msDay  = 24 * msHour
	)
	switch {
	case u == 0:
		return "0s"
	case u < msSec:
		return fmt.Sprintf("%s%dms", sign, u)
	case u < msMin:
		return fmt.Sprintf("%s%ds", sign, u/msSec)
	case u < msHour:
		return fmt.Sprintf("%s%dm%02ds", sign, u/msMin, u%msMin/msSec)
	case u < msDay:
		return fmt.Sprintf("%s%dh%02dm", sign, u/msHour, u%msHour/msMin)
	default:
		return fmt.Sprintf("%s%dd%02dh", sign, u/msDay, u%msDay/msHour)
	}
}
