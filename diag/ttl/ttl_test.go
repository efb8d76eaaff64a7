package ttl_test

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestQualify: the gate on its own, as any concept (streams here; a
// consumer, a TSO offset) applies it with its own list of expiry codes.
func TestQualify(t *testing.T) {
	expiry, other := streams.CodeHeadroomLow, streams.CodePendingAgeHigh
	restsOnExpiry := func(c diag.Code) bool { return c == expiry }
	in := func() []diag.Finding {
		return []diag.Finding{
			{Code: other, Severity: diag.SeverityCritical, Summary: "other"},
			{Code: expiry, Severity: diag.SeverityCritical, Summary: "expired", Detail: "d", Evidence: map[string]string{"k": "v"}},
		}
	}
	tests := []struct {
		verdict      string
		wantCodes    []diag.Code
		wantSeverity diag.Severity // of the expiry finding, when kept
		wantSummary  string
	}{
		{snapshot.TTLEnforced, []diag.Code{other, expiry}, diag.SeverityCritical, "expired"},
		{snapshot.TTLUnknown, []diag.Code{other, expiry}, diag.SeverityWarning, "if this build enforces changelog.ttl_seconds (apache/doris#68226): expired"},
		{snapshot.TTLNotEnforced, []diag.Code{other}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.verdict, func(t *testing.T) {
			src := in()
			ev := src[1].Evidence
			got := ttl.Qualify(snapshot.TTLEnforcement{Verdict: tt.verdict}, "changelog.ttl_seconds", src, restsOnExpiry)
			var codes []diag.Code
			for _, f := range got {
				codes = append(codes, f.Code)
			}
			if strings.Join(codeStrings(codes), ",") != strings.Join(codeStrings(tt.wantCodes), ",") {
				t.Fatalf("codes %v, want %v", codes, tt.wantCodes)
			}
			if got[0].Severity != diag.SeverityCritical {
				t.Errorf("a finding that does not rest on expiry changed: %+v", got[0])
			}
			if len(got) < 2 {
				return
			}
			f := got[1]
			if f.Severity != tt.wantSeverity || f.Summary != tt.wantSummary {
				t.Errorf("expiry finding %v %q, want %v %q", f.Severity, f.Summary, tt.wantSeverity, tt.wantSummary)
			}
			if tt.verdict == snapshot.TTLUnknown {
				if f.Evidence["ttl_enforced"] != snapshot.TTLUnknown || f.Evidence["k"] != "v" || !strings.HasSuffix(f.Detail, ttl.HowToTell) {
					t.Errorf("conditional finding: evidence %v detail %q", f.Evidence, f.Detail)
				}
				if ev["ttl_enforced"] != "" {
					t.Error("the caller's evidence map was written")
				}
			}
		})
	}
	if got := ttl.Condition(""); got != "if this build enforces binlog.ttl_seconds (apache/doris#68226)" {
		t.Errorf("Condition(\"\") = %q", got)
	}
}

func codeStrings(cs []diag.Code) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}
