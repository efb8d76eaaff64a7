// Package diag is the core every diagnosis speaks: the Finding a check
// raises (its Code, Object, Severity, Magnitude), each code's Declaration
// (severity, impact class and place, magnitude, causes, explain text, the
// series and alert rule that carry it) and the one order of findings read
// from them (SortFindings), Value and Precision, the Policy of a config file,
// and the helpers every printed command goes through.
//
// The diagnoses themselves live in one package per concept, each readable
// on its own (docs/architecture.md "diag by concept"): streams (S4), mv
// (S1–S3), space (S5), metrics (/metrics), sources (what could not be read),
// tsotool, changepoints, and check and round, which compose them. All of
// diag is pure: no SQL, no HTTP, no printing, no wall clock — "now" is the
// snapshot's cluster time (design.md "The pipeline").
package diag

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity orders findings; check gates on it with --fail-on.
type Severity int

// Severities, lowest first. SeverityNone is only a --fail-on threshold.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityCritical
	SeverityNone Severity = 100 // --fail-on none: nothing fails
)

func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityCritical:
		return "critical"
	case SeverityNone:
		return "none"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads "info", "warning", "critical" or "none".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return SeverityInfo, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "critical", "crit":
		return SeverityCritical, nil
	case "none":
		return SeverityNone, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want none, info, warning or critical)", s)
}

// MarshalJSON writes the lower-case name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads the lower-case name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	v, err := ParseSeverity(str)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Object names what a finding is about.
type Object struct {
	Kind      string `json:"kind"` // stream | mv | partition | table | task | job | node | metrics | cluster | snapshot
	DB        string `json:"db,omitempty"`
	Name      string `json:"name,omitempty"`
	ID        *int64 `json:"id,omitempty"`
	Partition string `json:"partition,omitempty"`
}

// String is "db.name[partition]" or the kind when nothing else names it.
func (o Object) String() string {
	var b strings.Builder
	if o.DB != "" {
		b.WriteString(o.DB)
		if o.Name != "" {
			b.WriteByte('.')
		}
	}
	b.WriteString(o.Name)
	if o.Partition != "" {
		b.WriteString(" [" + o.Partition + "]")
	}
	if b.Len() == 0 {
		return o.Kind
	}
	return b.String()
}

// Finding is the unit every command reports and check gates on (design.md "Findings").
type Finding struct {
	Code     Code              `json:"code"`
	Severity Severity          `json:"severity"`
	Object   Object            `json:"object"`
	Summary  string            `json:"summary"`            // one line
	Detail   string            `json:"detail,omitempty"`   // why, with numbers
	Evidence map[string]string `json:"evidence,omitempty"` // key facts, as text
	Next     string            `json:"next,omitempty"`     // the SQL or command to run next
	// Cause, on a symptom, is the finding that explains it (an MV_DELAY_HIGH
	// whose lagging reason is a failing refresh names its
	// MV_CHANGELOG_BROKEN); the symptom is listed right after its cause.
	Cause *FindingRef `json:"cause,omitempty"`
	// Symptoms, on a cause, are the findings it explains, in the order they
	// follow it (Declaration.CausedBy has the rules).
	Symptoms []FindingRef `json:"symptoms,omitempty"`
	// Magnitude is how bad this finding is, in the measure its code
	// declares (Declaration.Magnitude): the check sets it with the number it
	// also shows in Evidence, and ranking reads it, never the text.
	Magnitude *float64 `json:"-"`
}

// FindingRef names another finding of the same document by code and object.
type FindingRef struct {
	Code   Code   `json:"code"`
	Object Object `json:"object"`
}

// AtOrAbove reports whether any finding reaches the threshold (--fail-on).
func AtOrAbove(fs []Finding, threshold Severity) bool {
	return CountAtOrAbove(fs, threshold) > 0
}

// CountAtOrAbove counts the findings at or above threshold (none under
// SeverityNone, which nothing reaches).
func CountAtOrAbove(fs []Finding, threshold Severity) int {
	if threshold == SeverityNone {
		return 0
	}
	n := 0
	for _, f := range fs {
		if f.Severity >= threshold {
			n++
		}
	}
	return n
}
