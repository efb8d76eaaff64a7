package metrics

import (
	"slices"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
)

// The design's state and kind label values are the typed states dorisdiag
// judges with: streams.States and mv.FreshnessStates (in precedence order,
// the reverse of the numbers), streams.Kinds; and the MV states with a
// delay are the ones mv gives a delay. A state added to one list and not
// the other fails here, not in a conformance rule at a user's site.
func TestDesignLabelsAreTheTypedStates(t *testing.T) {
	var ss []string
	for _, s := range slices.Backward(streams.States) {
		ss = append(ss, string(s))
	}
	if !slices.Equal(streamStates, ss) {
		t.Errorf("streamStates %v, streams.States reversed %v", streamStates, ss)
	}
	var ms []string
	for _, s := range slices.Backward(mv.FreshnessStates) {
		ms = append(ms, string(s))
	}
	if !slices.Equal(mvStates, ms) {
		t.Errorf("mvStates %v, mv.FreshnessStates reversed %v", mvStates, ms)
	}
	withDelay := []string{string(mv.FreshFresh), string(mv.FreshLagging), string(mv.FreshRebuildRequired)}
	if !slices.Equal(mvStatesWithDelay, withDelay) {
		t.Errorf("mvStatesWithDelay %v, want %v", mvStatesWithDelay, withDelay)
	}
	var ks []string
	for _, k := range streams.Kinds {
		ks = append(ks, string(k))
	}
	if !slices.Equal(streamKinds, ks) || streamKindUser != string(streams.KindUser) {
		t.Errorf("streamKinds %v (user %q), streams.Kinds %v", streamKinds, streamKindUser, ks)
	}
}
