package diag

import (
	"fmt"
	"sort"
	"sync"
)

// Code is a finding code. Its only values are made by Declare, each from
// its Declaration: no other can be made, so a finding with an undeclared
// code does not compile. A Finding serializes its code as the UPPER_SNAKE
// name.
type Code struct{ d *Declaration }

// Declaration is everything known about one finding code, written once,
// next to the check that emits it (design.md "Findings"). `dorisdiag
// explain` and docs/findings.md print its text; SortFindings reads its
// impact, place and magnitude to put the worst first, and its causes to
// list each symptom under its cause.
type Declaration struct {
	Code     string   // stable UPPER_SNAKE identifier
	Severity Severity // default severity; a finding may raise or lower it and says why in Detail

	// Impact is what a finding of the code costs the user; Place is the
	// code's place in its class, 1 read first. The places of a class run
	// 1..n with no gap or repeat (TestImpactPlaces).
	Impact Impact
	Place  int
	// Magnitude says how bad one finding is, when the code has a measure:
	// the check sets Finding.Magnitude to it, and findings of one code are
	// read worst first by it.
	Magnitude Measure
	// CausedBy lists, in order of preference, the codes whose finding
	// explains a finding of this one; a symptom is listed right after its
	// cause (SortFindings).
	CausedBy []Cause

	// The explain text.
	Title   string // one line
	Spec    string // the public design reference, e.g. "apache/doris#69907 §1 T12"
	Meaning string // what it means
	Matters string // why it matters
	Confirm string // how to confirm (SQL or command)
	Fix     string // how to fix
	// Action is the next step in a few words of prose (no SQL, no command:
	// at most ActionMaxLen characters, starting lower-case, no ';' or
	// backquote), for a screen where a finding's whole next step does not
	// fit one line: it is printed there with where to find the whole step,
	// and cannot be pasted as a statement (TestDeclarationActions).
	Action  string
	Related []string // related codes, by name

	// Series and Alert name the design's series (docs/exporter.md) and its
	// alert rule (docs/alerts/design-alerts.yml) that also carry the code,
	// "" where none does. The shipped rules (docs/alerts/dorisdiag-alerts.yml)
	// are generated from every declaration — one rule per code over the
	// dorisdiag_finding series, which carries check's findings — so what
	// fires on a cluster is check's findings (exporter.AlertRules).
	Series string
	Alert  string
	// NotLive says why the live exporter (dorisdiag-exporter over a cluster)
	// never observes a finding of the code, "" when it does. The code's rule
	// still ships: `check -o prom` textfiles and `exporter --demo` carry it
	// (docs/exporter.md "Check-only codes" lists these codes).
	NotLive string
}

// ActionMaxLen is the longest Declaration.Action: with the indent, "next: "
// and where to find the whole step it fits an 80-column line.
const ActionMaxLen = 44

// Measure names the quantity Finding.Magnitude holds for a code (the
// evidence key that shows it too) and which way is worse.
type Measure struct {
	Name           string // "" when the code has no magnitude
	SmallerIsWorse bool   // a headroom: the most negative is the worst
}

// Cause is one code that can explain a finding of the declaring code.
type Cause struct {
	// Code is the cause's name: a name, not a Code, so that a stream code
	// can name an MV code its package cannot import. Unknown names fail
	// TestDeclarationsResolve.
	Code string
	// If, when set, must hold for the symptom (its lagging reason, say).
	If func(f *Finding) bool
	// Where, when set, names the object the cause must be about (kind and
	// "db.name"); unset, it is the symptom's own object, a partition
	// counting as its stream. ok false: the symptom says nothing of it.
	Where func(f *Finding) (kind, label string, ok bool)
}

// String is the UPPER_SNAKE name; "" for the zero Code.
func (c Code) String() string {
	if c.d == nil {
		return ""
	}
	return c.d.Code
}

// Severity is the code's default severity.
func (c Code) Severity() Severity {
	if c.d == nil {
		return 0
	}
	return c.d.Severity
}

// Declaration is the code's declaration (a copy).
func (c Code) Declaration() Declaration {
	if c.d == nil {
		return Declaration{}
	}
	return *c.d
}

// MarshalText writes the name, so JSON carries the same string as ever.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a declared name; an unknown one is an error naming it.
func (c *Code) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*c = Code{}
		return nil
	}
	v, ok := ParseCode(string(b))
	if !ok {
		return fmt.Errorf("unknown finding code %q (see dorisdiag explain)", b)
	}
	*c = v
	return nil
}

// registry holds every declared code in declaration order. It is filled by
// the initialisers of the Code variables of the concept packages, which Go
// runs before any function can be called; the index is built from it on
// first use, so every package linked into the program has declared its
// codes by then.
var registry []Code

var index struct {
	once   sync.Once
	sorted []Declaration
	byName map[string]Code
}

// Declare registers a code. It is called only to initialise a package-level
// Code variable; declaring a code twice, or after the registry was first
// read, is a programming error and panics at start.
func Declare(d Declaration) Code {
	if index.byName != nil {
		panic("diag: " + d.Code + " declared after the registry was read")
	}
	for _, c := range registry {
		if c.d.Code == d.Code {
			panic("diag: " + d.Code + " declared twice")
		}
	}
	c := Code{&d}
	registry = append(registry, c)
	return c
}

func buildIndex() {
	index.byName = make(map[string]Code, len(registry))
	for _, c := range registry {
		index.sorted = append(index.sorted, *c.d)
		index.byName[c.String()] = c
	}
	sort.Slice(index.sorted, func(i, j int) bool { return index.sorted[i].Code < index.sorted[j].Code })
}

// Codes returns the declaration of every finding code, sorted by code.
func Codes() []Declaration {
	index.once.Do(buildIndex)
	return append([]Declaration(nil), index.sorted...)
}

// ParseCode finds the Code of a name (a policy file, a saved report).
func ParseCode(name string) (Code, bool) {
	index.once.Do(buildIndex)
	c, ok := index.byName[name]
	return c, ok
}

// LookupCode finds a code's declaration by name.
func LookupCode(name string) (Declaration, bool) {
	c, ok := ParseCode(name)
	return c.Declaration(), ok
}
