package tso

import (
	"bytes"
	"fmt"
	"strconv"
)

// MarshalJSON writes a TSO as a JSON string of decimal digits. A TSO (about
// 4.7×10^17) exceeds 2^53, so a JSON number would be silently rounded by any
// reader that decodes numbers as float64 (jq, JavaScript); a string cannot be
// (go-libraries.md: "never let them pass through a float64").
func (t TSO) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 22)
	b = append(b, '"')
	b = strconv.AppendInt(b, int64(t), 10)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts a decimal string or an integer JSON number, exactly
// (never through float64).
func (t *TSO) UnmarshalJSON(data []byte) error {
	s := bytes.TrimSpace(data)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return fmt.Errorf("invalid TSO %s in JSON: want a decimal integer", truncate(data))
	}
	*t = TSO(v)
	return nil
}

func truncate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
