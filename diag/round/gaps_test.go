package round_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// TestExporterInfersGapCommits: a partition whose next read was clipped (an
// expired offset) and whose offset then moves is one inferred gap commit per
// stream (docs/exporter.md); an offset that does not move, or that moves on a
// partition that was not clipped, is none. Guards the exporter's gap memory,
// which keeps only the clipped partitions between rounds.
func TestExporterInfersGapCommits(t *testing.T) {
	base, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		id   int64
		unit string
	}
	clipped, others := map[key]bool{}, map[key]bool{}
	clippedStreams := map[int64]bool{}
	res := check.Run([]*snapshot.Snapshot{base}, check.Options{})
	for _, sr := range res.Streams.Streams {
		for _, p := range sr.Partitions {
			if p.ConsumedTSO == nil {
				continue
			}
			if p.NextRead == streams.NextReadClipped {
				clipped[key{sr.ID, p.Unit}] = true
				clippedStreams[sr.ID] = true
			} else {
				others[key{sr.ID, p.Unit}] = true
			}
		}
	}
	if len(clipped) == 0 || len(others) == 0 {
		t.Fatalf("the incident scenario has %d clipped and %d other partitions with offsets; the test needs both", len(clipped), len(others))
	}
	moved := func(which map[key]bool) *snapshot.Snapshot {
		s := *base
		s.Consumption = append([]snapshot.Consumption(nil), base.Consumption...)
		for i := range s.Consumption {
			c := &s.Consumption[i]
			if !which[key{c.StreamID, c.Unit}] {
				continue
			}
			// The offset (CONSUMPTION_STATUS) first, as the analysis reads it.
			if c.Offset != nil {
				v := tso.TSO(uint64(*c.Offset) + 1)
				c.Offset = &v
			}
			if c.ConsumedTSO != nil {
				v := tso.TSO(uint64(*c.ConsumedTSO) + 1)
				c.ConsumedTSO = &v
			}
		}
		return &s
	}
	st := round.NewState(round.Options{})
	st.Round(base)
	if r := st.Round(base); r.GapCommitsInferredNow != 0 || r.Counters.GapCommits != 0 {
		t.Errorf("offsets did not move: %d gap commits inferred (total %v), want 0", r.GapCommitsInferredNow, r.Counters.GapCommits)
	}
	if r := st.Round(moved(others)); r.GapCommitsInferredNow != 0 {
		t.Errorf("only partitions that were not clipped moved: %d gap commits inferred, want 0", r.GapCommitsInferredNow)
	}
	st = round.NewState(round.Options{})
	st.Round(base)
	r := st.Round(moved(clipped))
	if r.GapCommitsInferredNow != len(clippedStreams) || r.Counters.GapCommits != float64(len(clippedStreams)) {
		t.Errorf("clipped offsets of %d streams moved: %d gap commits inferred (total %v), want %d", len(clippedStreams), r.GapCommitsInferredNow, r.Counters.GapCommits, len(clippedStreams))
	}
}
