package diag

import (
	"maps"
	"testing"
)

// Interner changes no value: two evidence maps whose keys and values
// concatenate alike (a NUL inside a hostile name) stay two maps, and equal
// maps are shared.
func TestInternerEvidenceKeepsValues(t *testing.T) {
	var in Interner
	a := map[string]string{"a": "x\x00b\x00y"}
	b := map[string]string{"a": "x", "b": "y"}
	if got := in.Evidence(a); !maps.Equal(got, a) {
		t.Fatalf("first map changed: %q", got)
	}
	if got := in.Evidence(b); !maps.Equal(got, b) {
		t.Errorf("evidence %q came back as %q", b, got)
	}
	c := map[string]string{"a": "x", "b": "y"}
	if got := in.Evidence(c); !maps.Equal(got, c) {
		t.Errorf("evidence %q came back as %q", c, got)
	}
}
