package streams

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The gate is diag's (diag.QualifyExpiry, string verdicts: diag imports no
// snapshot); the snapshot's verdicts must be the same strings.
func TestTTLVerdictsAgree(t *testing.T) {
	for _, p := range [][2]string{{diag.TTLEnforced, snapshot.TTLEnforced}, {diag.TTLNotEnforced, snapshot.TTLNotEnforced}, {diag.TTLUnknown, snapshot.TTLUnknown}} {
		if p[0] != p[1] {
			t.Errorf("diag says %q where snapshot says %q", p[0], p[1])
		}
	}
}
