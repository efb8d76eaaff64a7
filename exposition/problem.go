package exposition

import (
	"sort"
	"strconv"
	"unicode/utf8"
)

// Severities of a Problem. An "error" is something that makes the payload
// unparseable for Prometheus (expfmt rejects it); a "warning" is tolerated by
// Prometheus but hurts; "info" is context.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Problem is one finding of the linter, with its position in the payload.
// Line and Col are 1-based; Col counts bytes.
type Problem struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Family   string `json:"family,omitempty"`
	Label    string `json:"label,omitempty"`
	// Value is the offending text as the payload holds it: raw bytes,
	// exposition-escaped only (a label value's backslash written \\ is two
	// backslashes here), so that JSON's own escaping is the only layer, as
	// FixChange.Before. Cut to about 80 bytes on a rune boundary; ValueCut
	// says so. Print it with DisplayValue (the method).
	Value    string `json:"value,omitempty"`
	ValueCut bool   `json:"value_cut,omitempty"`
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"`
}

// DisplayValue is Value made safe to print (the package's DisplayValue),
// ending with "…" when it was cut.
func (p Problem) DisplayValue() string {
	v := DisplayValue([]byte(p.Value))
	if p.ValueCut {
		v += "…"
	}
	return v
}

// SetValue sets Value (and ValueCut) from the payload's bytes.
func (p *Problem) SetValue(raw []byte) { p.Value, p.ValueCut = CutValue(raw) }

// CutValue is raw cut to about 80 bytes on a rune boundary (as a Problem's
// Value and a fix's Before and After show it), and whether it was cut.
func CutValue(raw []byte) (string, bool) {
	if len(raw) <= maxDisplay {
		return string(raw), false
	}
	n := maxDisplay
	for n > 0 && !utf8.RuneStart(raw[n]) {
		n--
	}
	return string(raw[:n]), true
}

var severityRank = map[string]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}

// SortProblems orders problems by line, column, severity, rule, family and
// message, stably, so that output is deterministic.
func SortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if severityRank[a.Severity] != severityRank[b.Severity] {
			return severityRank[a.Severity] < severityRank[b.Severity]
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		return a.Message < b.Message
	})
}

// FormatValue prints a sample value without exponent for ordinary numbers.
func FormatValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
