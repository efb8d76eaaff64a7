package metrics

import (
	"errors"
	"testing"
)

// TestTargetObjectIsTheHostAlone: a target's object was named with its role
// ("be 127.0.0.2:8040"), so the same node had another name wherever its
// role was unknown or said otherwise. The name is the host:port; the role is
// evidence.
func TestTargetObjectIsTheHostAlone(t *testing.T) {
	u := UnreachableFinding("be", "127.0.0.2:8040", errors.New("connection refused"))
	if u.Object.Kind != "node" || u.Object.Name != "127.0.0.2:8040" || u.Evidence["role"] != "be" {
		t.Errorf("unreachable: object %+v, evidence %v", u.Object, u.Evidence)
	}
	if u2 := UnreachableFinding("", "127.0.0.2:8040", errors.New("x")); u2.Object != u.Object {
		t.Errorf("the same node without a role is another object: %+v vs %+v", u2.Object, u.Object)
	}
	fs := masterOnlyFindings([]string{"127.0.0.1:8030"}, nil)
	if len(fs) != 1 || fs[0].Object.Name != "127.0.0.1:8030" || fs[0].Evidence["role"] != "fe" {
		t.Errorf("follower exporting state: %+v", fs)
	}
}
