package exporter_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
)

// TestCheckOnlyCodesAreDocumented: the codes the live exporter never
// observes are those whose declaration says why (Declaration.NotLive), and
// docs/exporter.md's "Check-only codes" table names exactly them — the list
// is written once, in the declarations (issue 19, one declaration per code).
func TestCheckOnlyCodesAreDocumented(t *testing.T) {
	var declared []string
	for _, d := range diag.Codes() {
		if d.NotLive != "" {
			declared = append(declared, d.Code)
		}
	}
	data, err := os.ReadFile("../docs/exporter.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, "**Check-only codes.**")
	if i < 0 {
		t.Fatal(`docs/exporter.md has no "Check-only codes" paragraph`)
	}
	table := doc[i:]
	if j := strings.Index(table, "\n\n"); j >= 0 {
		table = table[j+2:]
	}
	if j := strings.Index(table, "\n\n"); j >= 0 {
		table = table[:j]
	}
	var documented []string
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9_]+)`").FindAllStringSubmatch(cells[1], -1) {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(declared)
	slices.Sort(documented)
	if len(declared) == 0 || !slices.Equal(declared, documented) {
		t.Errorf("declared check-only (NotLive) %v, docs/exporter.md's table %v", declared, documented)
	}
}
