package diag

import (
	"fmt"
	"sort"
	"sync"
)

// Code is a finding code. Its only values are the exported Code* variables
// of codes_*.go, each made by register with its documentation: outside this
// file no other can be made, so a finding with an unknown code does not
// compile. A Finding serializes its code as the UPPER_SNAKE name.
type Code struct{ doc *CodeDoc }

// CodeDoc documents one finding code. It is the single source of truth for
// `dorisdiag explain` and docs/findings.md (a test keeps the two in step).
type CodeDoc struct {
	Code     string   // stable UPPER_SNAKE identifier
	Severity Severity // default severity; a finding may raise or lower it and says why in Detail
	Title    string   // one line
	Spec     string   // the public design reference, e.g. "apache/doris#69907 §1 T12"
	Meaning  string   // what it means
	Matters  string   // why it matters
	Confirm  string   // how to confirm (SQL or command)
	Fix      string   // how to fix
	Related  []string // related codes (names: a Code here would make an initialization cycle)
}

// String is the UPPER_SNAKE name; "" for the zero Code.
func (c Code) String() string {
	if c.doc == nil {
		return ""
	}
	return c.doc.Code
}

// Severity is the code's default severity.
func (c Code) Severity() Severity {
	if c.doc == nil {
		return 0
	}
	return c.doc.Severity
}

// Doc is the code's documentation.
func (c Code) Doc() CodeDoc {
	if c.doc == nil {
		return CodeDoc{}
	}
	return *c.doc
}

// MarshalText writes the name, so JSON carries the same string as ever.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a documented name; an unknown one is an error naming it.
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

// area groups the codes by the part of the analysis that raises them.
type area int

const (
	areaGeneral area = iota
	areaStreams
	areaMV
	areaMetrics
)

type registered struct {
	area area
	code Code
}

// registry holds every code in declaration order. It is filled only by the
// initialisers of the Code* variables, which Go runs before any function of
// the package can be called; the sorted index is built from it once.
var registry []registered

func register(a area, d CodeDoc) Code {
	c := Code{&d}
	registry = append(registry, registered{a, c})
	return c
}

var index struct {
	once   sync.Once
	sorted []CodeDoc
	byName map[string]Code
}

func buildIndex() {
	index.byName = make(map[string]Code, len(registry))
	for _, r := range registry {
		index.sorted = append(index.sorted, *r.code.doc)
		index.byName[r.code.String()] = r.code
	}
	sort.Slice(index.sorted, func(i, j int) bool { return index.sorted[i].Code < index.sorted[j].Code })
}

// Codes returns the documentation of every finding code, sorted by code.
func Codes() []CodeDoc {
	index.once.Do(buildIndex)
	return append([]CodeDoc(nil), index.sorted...)
}

// ParseCode finds the Code of a name (a policy file, a saved report).
func ParseCode(name string) (Code, bool) {
	index.once.Do(buildIndex)
	c, ok := index.byName[name]
	return c, ok
}

// LookupCode finds a code's documentation by name.
func LookupCode(name string) (CodeDoc, bool) {
	c, ok := ParseCode(name)
	return c.Doc(), ok
}
