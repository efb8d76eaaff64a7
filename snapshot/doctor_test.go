package snapshot

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClockSkewBounds(t *testing.T) {
	// A Date header (1 s resolution) read between client 10.200 and 10.300
	// s, saying 12 s: the server is 1.7 to 2.8 s ahead.
	c := ClockReading{ServerMs: 12000, ResolutionMs: 1000, SentMs: 10200, ReceivedMs: 10300}
	if lo, hi := c.SkewBoundsMs(); lo != 1700 || hi != 2800 {
		t.Errorf("bounds %d..%d, want 1700..2800", lo, hi)
	}
}

// TestDoctorSectionLoads: the doctor section is optional, round-trips, and
// a clock reading no skew can be computed from is left out and counted.
func TestDoctorSectionLoads(t *testing.T) {
	base := `{"schema_version":1,"cluster":{"current_tso":"469067681628160003"},"capabilities":{"sources":{}},"could_not_read":[]`
	s, err := Decode([]byte(base + `}`))
	if err != nil || s.Doctor != nil {
		t.Fatalf("without a doctor section: %v %+v", err, s.Doctor)
	}
	now := int64(1789351202500)
	doc := Doctor{TakenAtMs: now, TimeoutMs: 2000, Parts: []string{"net"},
		Hops: []Hop{{Kind: HopBEHTTP, Node: "10001", Target: "127.0.0.1:8040", Outcome: OutcomeReadTimeout, TimeoutMs: 2000, Policies: []string{"default"}}},
		Clocks: []ClockReading{
			{Source: "Date header", ServerMs: now, ResolutionMs: 1000, SentMs: now - 5, ReceivedMs: now + 5},
			{Source: "Date header", ServerMs: now, ResolutionMs: 1000, SentMs: now + 5, ReceivedMs: now - 5},
			{Source: "GET /api/tso", ServerMs: 42, ResolutionMs: 1, SentMs: now, ReceivedMs: now},
		}}
	b, _ := json.Marshal(doc)
	s, err = Decode([]byte(base + `,"doctor":` + string(b) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	d := s.Doctor
	if d == nil || len(d.Hops) != 1 || d.Hops[0].Outcome != OutcomeReadTimeout || d.Gaps == nil {
		t.Fatalf("doctor section: %+v", d)
	}
	if len(d.Clocks) != 1 {
		t.Errorf("clocks kept: %d, want the one consistent reading", len(d.Clocks))
	}
	n := 0
	for _, m := range s.Malformed {
		if m.Source == "doctor" && strings.HasPrefix(m.Row, "$.doctor.clocks[") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("malformed clock readings counted: %d, want 2 (%+v)", n, s.Malformed)
	}
}
