package diag

import (
	"fmt"
	"sort"
)

// Code documents one finding code. It is the single source of truth for
// `dorisdiag explain` and docs/findings.md (a test keeps the two in step).
// Each area keeps its codes in its own file (codes_*.go) as an explicit slice;
// Codes() concatenates them. No init() registration.
type Code struct {
	Code     string   // stable UPPER_SNAKE identifier
	Severity Severity // default severity; a finding may raise or lower it and says why in Detail
	Title    string   // one line
	Spec     string   // seed / design reference, e.g. "seed §1 S4, T12"
	Meaning  string   // what it means
	Matters  string   // why it matters
	Confirm  string   // how to confirm (SQL or command)
	Fix      string   // how to fix
	Related  []string // related codes
}

// Codes returns every finding code, sorted by code.
func Codes() []Code {
	var all []Code
	for _, group := range [][]Code{generalCodes, streamCodes, mvCodes, metricsCodes} {
		all = append(all, group...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Code < all[j].Code })
	return all
}

// LookupCode finds a code's documentation.
func LookupCode(code string) (Code, bool) {
	for _, c := range Codes() {
		if c.Code == code {
			return c, true
		}
	}
	return Code{}, false
}

// MustCode returns the documented code or panics at test time; diag uses it
// only with constants, and TestEveryEmittedCodeIsDocumented proves each exists.
func mustCode(code string) Code {
	c, ok := LookupCode(code)
	if !ok {
		panic(fmt.Sprintf("diag: finding code %s is not documented in a codes_*.go file", code))
	}
	return c
}
