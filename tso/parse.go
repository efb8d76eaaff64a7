package tso

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind says what a piece of TSO text stood for. Doris writes "no offset" in
// several ways (doris.md §1, §4, §5), and callers must not mistake any of them
// for a TSO.
type Kind int

const (
	// KindTSO is a real TSO in [0, MaxReal].
	KindTSO Kind = iota
	// KindNoOffset is "no committed offset": "N/A", `\N`, "", "NULL" (any
	// case), or a negative integer such as the stored sentinel -1.
	KindNoOffset
	// KindUnbounded is UNBOUNDED_TSO, 9223372036854775807.
	KindUnbounded
)

// String names the kind for messages and debugging.
func (k Kind) String() string {
	switch k {
	case KindTSO:
		return "tso"
	case KindNoOffset:
		return "no_offset"
	case KindUnbounded:
		return "unbounded"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Parsed is the result of Parse: the kind, the TSO (meaningful only for
// KindTSO and KindUnbounded; -1 for KindNoOffset, so IsReal is false) and the
// input exactly as given, for messages and snapshots that keep the original.
type Parsed struct {
	Kind Kind
	TSO  TSO
	Raw  string
}

// ParseError is the error of Parse, ParseOffset and ParseLag. It quotes the
// input so a message points at the exact cell that was wrong.
type ParseError struct {
	What  string // "TSO" or "LAG"
	Input string
	Err   error // ErrSyntax or ErrOutOfRange, with detail
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid %s %q: %v", e.What, e.Input, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// isNull reports the "no value" spellings of doris.md: the text N/A of
// table_stream_consumption, the literal \N of the metadata TVFs, an empty
// cell, and SQL NULL as some clients print it.
func isNull(s string) bool {
	return s == "" || s == "N/A" || s == `\N` || strings.EqualFold(s, "NULL")
}

// Parse reads TSO text as found in CLI args and Doris system tables: decimal
// or 0x/0X hex, surrounding spaces ignored. Negative integers and the null
// spellings are KindNoOffset (doris.md §1: a stored -1 means "no offset");
// 9223372036854775807 is KindUnbounded; 0 is the real TSO 0 (see ParseOffset
// for the system-table reading). Anything else — a sign on hex, "+", exponents,
// underscores, values beyond int64 — is an error; values never wrap.
func Parse(s string) (Parsed, error) {
	p := Parsed{TSO: -1, Raw: s}
	t := strings.TrimSpace(s)
	if isNull(t) {
		p.Kind = KindNoOffset
		return p, nil
	}
	v, err := parseInt(t)
	if err != nil {
		return Parsed{}, &ParseError{What: "TSO", Input: s, Err: err}
	}
	switch {
	case v < 0:
		p.Kind = KindNoOffset
	case TSO(v) == Unbounded:
		p.Kind, p.TSO = KindUnbounded, Unbounded
	default:
		p.Kind, p.TSO = KindTSO, TSO(v)
	}
	return p, nil
}

// ParseOffset is Parse with CONSUMPTION_STATUS semantics: a value <= 0 is
// KindNoOffset, because a partition empty at stream creation may carry the
// sentinel 0/-1 and doris.md §4 says to "treat CONSUMPTION_STATUS <= 0 as no
// real offset".
func ParseOffset(s string) (Parsed, error) {
	p, err := Parse(s)
	if err != nil {
		return p, err
	}
	if p.Kind == KindTSO && p.TSO == 0 {
		p.Kind, p.TSO = KindNoOffset, -1
	}
	return p, nil
}

// parseInt accepts an optional '-' then decimal digits, or 0x/0X then hex
// digits. It validates the characters itself because strconv also accepts
// '+', underscores (base 0) and a sign after a stripped "0x" prefix.
func parseInt(t string) (int64, error) {
	if len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		h := t[2:]
		if h == "" {
			return 0, fmt.Errorf("hex prefix without digits: %w", ErrSyntax)
		}
		for i := 0; i < len(h); i++ {
			if !isHex(h[i]) {
				return 0, fmt.Errorf("unexpected %q in hex number: %w", h[i], ErrSyntax)
			}
		}
		u, err := strconv.ParseUint(h, 16, 64)
		if err != nil || u > math.MaxInt64 {
			return 0, fmt.Errorf("beyond %d: %w", int64(math.MaxInt64), ErrOutOfRange)
		}
		return int64(u), nil
	}
	d := t
	if d != "" && d[0] == '-' {
		d = d[1:]
	}
	if d == "" {
		return 0, fmt.Errorf("no digits: %w", ErrSyntax)
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, fmt.Errorf("unexpected %q, want a decimal or 0x-hex integer: %w", d[i], ErrSyntax)
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("outside the int64 range: %w", ErrOutOfRange)
	}
	return v, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
