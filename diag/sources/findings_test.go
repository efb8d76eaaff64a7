package sources

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
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
	fs := Findings(s)
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2: %+v", len(fs), fs)
	}
	// SHOW BACKENDS is optional (it needs ADMIN or OPERATOR): a warning.
	if fs[0].Code != CodeUnreachable || fs[0].Severity != diag.SeverityWarning {
		t.Errorf("first: %+v", fs[0])
	}
	if fs[1].Code != CodeMalformedValue || fs[1].Evidence["count"] != "2" {
		t.Errorf("second: %+v", fs[1])
	}
}
