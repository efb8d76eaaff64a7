package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"reflect"
	"testing"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestTSOTargets: /api/tso goes to the Master's HttpPort from SHOW
// FRONTENDS when the session is on a follower; to --host:--http-port when
// SHOW FRONTENDS could not be read or names no Master; --host first (then
// the Master's address, only on "not master") when the session is on the
// Master.
func TestTSOTargets(t *testing.T) {
	fes := []snapshot.Node{
		{Kind: "fe", Host: "10.0.0.2", HTTPPort: 8030},
		{Kind: "fe", Host: "10.0.0.1", HTTPPort: 8031, IsMaster: true},
	}
	for _, tc := range []struct {
		name                  string
		read, known, onMaster bool
		fes                   []snapshot.Node
		want                  []string
	}{
		{"SHOW FRONTENDS not read", false, false, false, nil, []string{"fe.lb:8030"}},
		{"no Master row", true, true, false, fes[:1], []string{"fe.lb:8030"}},
		{"on a follower", true, true, false, fes, []string{"10.0.0.1:8031"}},
		{"on the Master", true, true, true, fes, []string{"fe.lb:8030", "10.0.0.1:8031"}},
		{"connection unknown", true, false, false, fes, []string{"fe.lb:8030", "10.0.0.1:8031"}},
	} {
		col := &collector{cfg: scrape.Config{Host: "fe.lb", HTTPPort: 8030}, snap: &snapshot.Snapshot{Frontends: tc.fes},
			frontendsRead: tc.read, connectedKnown: tc.known, connectedMaster: tc.onMaster}
		if got := col.tsoTargets(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
