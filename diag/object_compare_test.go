package diag

import (
	"strings"
	"testing"
)

// compareObjectStrings orders objects as their String() does, for every
// shape of object (empty parts, a partition alone, names with the
// separators in them).
func TestCompareObjectStringsAgreesWithString(t *testing.T) {
	var objs []Object
	for _, kind := range []string{"stream", "cluster", ""} {
		for _, db := range []string{"", "a", "a.b", "ab"} {
			for _, name := range []string{"", "b", "b.c", ".", "b [p]"} {
				for _, part := range []string{"", "p", "]"} {
					objs = append(objs, Object{Kind: kind, DB: db, Name: name, Partition: part})
				}
			}
		}
	}
	for i := range objs {
		for j := range objs {
			a, b := &objs[i], &objs[j]
			if got, want := compareObjectStrings(a, b), strings.Compare(a.String(), b.String()); got != want {
				t.Fatalf("%+v vs %+v: %d, want %d (%q, %q)", *a, *b, got, want, a.String(), b.String())
			}
		}
	}
}
