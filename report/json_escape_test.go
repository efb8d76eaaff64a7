package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestJSONDoesNotEscapeHTML: SQL in a finding's next step keeps <, > and &
// as written (encoding/json would write \u003c).
func TestJSONDoesNotEscapeHTML(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, "x", map[string]string{"next": "SELECT 1 FROM t WHERE a < 2 AND b > 1 && c;"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a < 2 AND b > 1 && c") || strings.Contains(b.String(), `\u003c`) {
		t.Fatalf("%s", b.String())
	}
}
