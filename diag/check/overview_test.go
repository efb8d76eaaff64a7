package check

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// TestOverviewListsSupersededFallbacks: a superseded fallback is not counted
// unreadable; the overview names it and what replaced it.
func TestOverviewListsSupersededFallbacks(t *testing.T) {
	s := &snapshot.Snapshot{Cluster: snapshot.Cluster{CurrentTSO: tso.TSO(1_780_000_000_000 << tso.LogicalBits), ClockSource: snapshot.SourceHTTPTSO},
		CouldNotRead: []snapshot.ReadGap{
			{Source: snapshot.SourceShowTSOStatus, Error: "TSO feature is disabled", Superseded: snapshot.SourceHTTPTSO},
			{Source: snapshot.SourceShowData, Error: "No database selected"},
		}}
	o := overview(s, newStreamsTally(Options{}), &mv.Result{}, &metrics.Result{}, Options{})
	if o.Sources.Unreadable != 1 || len(o.Sources.Superseded) != 1 || o.Sources.Superseded[0].By != snapshot.SourceHTTPTSO {
		t.Errorf("sources overview %+v", o.Sources)
	}
}
