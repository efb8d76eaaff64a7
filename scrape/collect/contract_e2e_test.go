package collect_test

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/doris/doristest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// TestEveryStatementIsInTheContract collects every bundled scenario from the
// emulator, on the build with the monitoring design and without it and with
// the clock fallbacks, and checks each statement the collector sent against
// the wire contract's templates: a statement docs/snapshot.md does not list
// cannot be sent unnoticed.
func TestEveryStatementIsInTheContract(t *testing.T) {
	modes := map[string]emulator.Options{
		"design":      {QueryLog: true},
		"legacy":      {QueryLog: true, Legacy: true},
		"no-tso":      {QueryLog: true, NoTSOStatus: true},
		"no-show-tso": {QueryLog: true, NoTSOStatus: true, NoShowTSO: true},
	}
	used := map[string]bool{}
	for _, name := range []string{"healthy", "incident", "legacy"} {
		snap, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for mode, opts := range modes {
			e, cfg := startEmulator(t, snap, opts)
			collectLive(t, cfg)
			for _, q := range e.Queries() {
				rel, st, ok := doristest.Match(q)
				if !ok {
					t.Errorf("%s/%s: statement not in the wire contract: %s", name, mode, q)
					continue
				}
				used[rel.Source+" | "+st.Template] = true
			}
		}
	}
	// The templates the scenarios exercise; the others (SHOW CREATE TABLE,
	// the whole tasks() read) have tests of their own.
	for _, want := range []string{doris.TableStreams.Statements[0].Template, doris.MVInfos.Statements[0].Template,
		doris.Tasks.Statements[0].Template, doris.Columns.Statements[0].Template} {
		found := false
		for k := range used {
			found = found || strings.HasSuffix(k, want)
		}
		if !found {
			t.Errorf("no collection sent %q", want)
		}
	}
}
