package diag

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

func TestSourceFindings(t *testing.T) {
	s := &snapshot.Snapshot{
		CouldNotRead: []snapshot.ReadGap{{Source: "SHOW BACKENDS", Error: "Access denied"}},
		Malformed: []snapshot.Malformed{
			{Source: "information_schema.table_stream_consumption", Row: "demo.s1 p1", Column: "CONSUMPTION_STATUS", Value: "abc", Error: "invalid TSO"},
			{Source: "information_schema.table_stream_consumption", Row: "demo.s1 p2", Column: "CONSUMPTION_STATUS", Value: "xyz", Error: "invalid TSO"},
		},
	}
	fs := SourceFindings(s)
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2: %+v", len(fs), fs)
	}
	// SHOW BACKENDS is optional (it needs ADMIN or OPERATOR): a warning.
	if fs[0].Code != CodeSourceUnreachable || fs[0].Severity != SeverityWarning {
		t.Errorf("first: %+v", fs[0])
	}
	if fs[1].Code != CodeSourceMalformedValue || fs[1].Evidence["count"] != "2" {
		t.Errorf("second: %+v", fs[1])
	}
}

func TestPolicy(t *testing.T) {
	fs := []Finding{
		{Code: CodeSourceUnreachable, Severity: SeverityCritical, Object: Object{Kind: "source", Name: "SHOW BACKENDS"}},
		{Code: CodeSourceMalformedValue, Severity: SeverityWarning, Object: Object{Kind: "mv", DB: "demo", Name: "mv_a"}},
		{Code: CodeSourceMalformedValue, Severity: SeverityWarning, Object: Object{Kind: "mv", DB: "prod", Name: "mv_a"}},
	}
	p := Policy{
		Severity: map[string]Severity{"SOURCE_UNREACHABLE": SeverityWarning},
		Ignores:  []Ignore{{Code: "SOURCE_MALFORMED_VALUE", Object: "demo.*", Reason: "staging"}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	kept, sup := p.Apply(fs)
	if len(kept) != 2 || len(sup) != 1 || sup[0].Reason != "staging" {
		t.Fatalf("kept %+v suppressed %+v", kept, sup)
	}
	if kept[0].Severity != SeverityWarning {
		t.Errorf("override not applied: %v", kept[0].Severity)
	}
	for _, bad := range []Policy{
		{Severity: map[string]Severity{"NO_SUCH_CODE": SeverityInfo}},
		{Ignores: []Ignore{{Code: "NOPE"}}},
		{Ignores: []Ignore{{Object: "[bad"}}},
		{Ignores: []Ignore{{}}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("policy %+v: want a validation error", bad)
		}
	}
}
