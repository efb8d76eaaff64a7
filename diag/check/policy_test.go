package check

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/sources"
)

func TestPolicy(t *testing.T) {
	fs := []diag.Finding{
		{Code: sources.CodeUnreachable, Severity: diag.SeverityCritical, Object: diag.Object{Kind: "source", Name: "SHOW BACKENDS"}},
		{Code: sources.CodeMalformedValue, Severity: diag.SeverityWarning, Object: diag.Object{Kind: "mv", DB: "demo", Name: "mv_a"}},
		{Code: sources.CodeMalformedValue, Severity: diag.SeverityWarning, Object: diag.Object{Kind: "mv", DB: "prod", Name: "mv_a"}},
	}
	p := diag.Policy{
		Severity: map[string]diag.Severity{"SOURCE_UNREACHABLE": diag.SeverityWarning},
		Ignores:  []diag.Ignore{{Code: "SOURCE_MALFORMED_VALUE", Object: "demo.*", Reason: "staging"}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	kept, sup := p.Apply(fs)
	if len(kept) != 2 || len(sup) != 1 || sup[0].Reason != "staging" {
		t.Fatalf("kept %+v suppressed %+v", kept, sup)
	}
	if kept[0].Severity != diag.SeverityWarning {
		t.Errorf("override not applied: %v", kept[0].Severity)
	}
	for _, bad := range []diag.Policy{
		{Severity: map[string]diag.Severity{"NO_SUCH_CODE": diag.SeverityInfo}},
		{Ignores: []diag.Ignore{{Code: "NOPE"}}},
		{Ignores: []diag.Ignore{{Object: "[bad"}}},
		{Ignores: []diag.Ignore{{}}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("policy %+v: want a validation error", bad)
		}
	}
}
