package check

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Options.Lean (the check command) tallies each stream as it is diagnosed
// and keeps only the internal ones, so a snapshot's streams are not all
// held at once (docs/performance.md "Bounded snapshots"). It must change
// nothing a report shows: the overview (the worst pending age and headroom
// per kind, whatever order the streams come in, ties to streams.Sort's
// first), the findings and what was suppressed are the same as a full
// run's, on every scenario and on the scale generator's shapes.
func TestLeanRunIsTheSameReport(t *testing.T) {
	snaps := map[string]func() *snapshot.Snapshot{
		"scale": func() *snapshot.Snapshot {
			return scenario.Scale(scenario.ScaleConfig{MVs: 20, UserStreams: 300, ConsumptionRows: 900})
		},
		"streams-only": func() *snapshot.Snapshot {
			return scenario.Scale(scenario.ScaleConfig{UserStreams: 500, Tables: 50, NoPartitions: true})
		},
	}
	for _, name := range scenario.Names() {
		snaps[name] = func() *snapshot.Snapshot {
			s, err := scenario.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	for name, load := range snaps {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// With no policy, and with one that suppresses a stream code and
			// an MV code and lowers another (so "suppressed" is not empty).
			policy := diag.Policy{
				Ignores:  []diag.Ignore{{Code: "STREAM_HEADROOM_LOW", Reason: "t"}, {Code: "MV_STATE_UNKNOWN", Reason: "t"}, {Code: "STREAM_STATE_UNKNOWN", Object: "*.s_*", Reason: "t"}},
				Severity: map[string]diag.Severity{"STREAM_CANNOT_RESUME_REJECTED": diag.SeverityWarning},
			}
			var full *Result
			for _, o := range []Options{{}, {Policy: policy}} {
				f := Run([]*snapshot.Snapshot{load()}, o)
				if full == nil {
					full = f
				}
				o.Lean = true
				lean := Run([]*snapshot.Snapshot{load()}, o)
				for _, part := range []struct {
					what       string
					full, lean any
				}{{"overview", f.Overview, lean.Overview}, {"findings", f.Findings, lean.Findings}, {"suppressed", f.Suppressed, lean.Suppressed}} {
					a, _ := json.Marshal(part.full)
					b, _ := json.Marshal(part.lean)
					if string(a) != string(b) {
						t.Errorf("policy %v: %s differs under Lean:\nfull %s\nlean %s", len(o.Policy.Ignores) > 0, part.what, a, b)
					}
				}
				if len(o.Policy.Ignores) > 0 && name == "incident" && len(lean.Suppressed) == 0 {
					t.Error("the policy suppressed nothing on incident: the comparison of suppressed findings proves nothing")
				}
				if lean.Streams.Streams != nil || lean.Streams.Findings != nil {
					t.Errorf("Lean kept %d streams and %d findings in Result.Streams", len(lean.Streams.Streams), len(lean.Streams.Findings))
				}
			}
			// Fed in the reverse order, the tally still names the same streams.
			rev := load()
			slices.Reverse(rev.Streams)
			a, _ := json.Marshal(full.Overview.Streams)
			b, _ := json.Marshal(Run([]*snapshot.Snapshot{rev}, Options{Lean: true}).Overview.Streams)
			if string(a) != string(b) {
				t.Errorf("streams overview differs with the streams reversed:\nfull %s\nlean %s", a, b)
			}
		})
	}
}
