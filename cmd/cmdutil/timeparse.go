package cmdutil

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // --tz must work on minimal containers without /usr/share/zoneinfo
)

// parseTimeArg reads a time for the CLI: RFC 3339 (its own offset wins), or
// "YYYY-MM-DD HH:MM:SS[.fff]", "YYYY-MM-DDTHH:MM:SS[.fff]", "YYYY-MM-DD HH:MM"
// or "YYYY-MM-DD" in the zone tz ("UTC" by default, "Local", or an IANA name).
func ParseTimeArg(s, tz string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	loc, err := LoadZone(tz)
	if err != nil {
		return time.Time{}, err
	}
	for _, layout := range []string{
		"2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04",
		"2006-01-02T15:04",
		"2006-01-02",
	} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid time %q: want RFC 3339 (2026-11-30T10:00:00Z) or \"YYYY-MM-DD HH:MM:SS[.mmm]\" in --tz", s)
}

func LoadZone(tz string) (*time.Location, error) {
	switch strings.TrimSpace(tz) {
	case "", "UTC", "utc", "Z":
		return time.UTC, nil
	case "Local", "local":
		return time.Local, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("invalid --tz %q: %v", tz, err)
	}
	return loc, nil
}
