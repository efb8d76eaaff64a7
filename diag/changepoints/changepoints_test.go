package changepoints

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/tso"
)

func cpTSO(t *testing.T, ms int64) *tso.TSO {
	t.Helper()
	v, err := tso.Compose(ms, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

// round runs one tracker round over a single partition.
func cpRound(c *Tracker, nowMs int64, end, offset *tso.TSO) []Point {
	c.Begin(nowMs)
	pts := c.Observe(Key{1, "p"}, end, offset, nil, nil)
	c.End()
	return pts
}

func TestChangePointsWindowAndPruning(t *testing.T) {
	const t0 = 1_800_000_000_000
	c := New(0, 0)
	off := cpTSO(t, t0-60_000)
	// First sight: behind, but nothing seen arrive: no point.
	if pts := cpRound(c, t0, cpTSO(t, t0-30_000), off); len(pts) != 0 {
		t.Fatalf("first round kept %v, want no point", pts)
	}
	// The end moves between two rounds 15 s apart: one point with that window.
	pts := cpRound(c, t0+15_000, cpTSO(t, t0+5_000), off)
	if len(pts) != 1 || pts[0].FromMs != t0 || pts[0].ToMs != t0+15_000 || pts[0].Exact {
		t.Fatalf("points %+v, want one window (t0, t0+15s]", pts)
	}
	// The end is unchanged: no new point.
	if pts := cpRound(c, t0+30_000, cpTSO(t, t0+5_000), off); len(pts) != 1 {
		t.Fatalf("an unchanged end added points: %+v", pts)
	}
	// The offset reaches the end: the point is covered and dropped.
	if pts := cpRound(c, t0+45_000, cpTSO(t, t0+5_000), cpTSO(t, t0+5_000)); len(pts) != 0 || c.Total() != 0 {
		t.Fatalf("caught up keeps %+v (total %d), want none", pts, c.Total())
	}
	// A partition no longer listed is forgotten.
	c.Begin(t0 + 60_000)
	c.End()
	if c.Partitions() != 0 {
		t.Fatalf("%d partitions tracked after the stream went away, want 0", c.Partitions())
	}
}

// TestChangePointsMergeWidens: beyond the cap per partition the two oldest
// points merge; the bound for any offset only widens, never narrows.
func TestChangePointsMergeWidens(t *testing.T) {
	const t0 = 1_800_000_000_000
	c := New(4, 0)
	off := cpTSO(t, t0-1)
	cpRound(c, t0, cpTSO(t, t0), off)
	var before []Point
	for i := 1; i <= 6; i++ {
		pts := cpRound(c, t0+int64(i)*15_000, cpTSO(t, t0+int64(i)*10_000), off)
		if i == 4 {
			before = append([]Point(nil), pts...)
		}
	}
	pts := c.Points(1, "p")
	if len(pts) != 4 || c.Merges() != 2 {
		t.Fatalf("%d points, %d merges; want 4 points after 2 merges", len(pts), c.Merges())
	}
	// The oldest merged point starts where the oldest original did and ends
	// where the later one ended: a wider window.
	if pts[0].FromMs != before[0].FromMs || pts[0].ToMs < before[0].ToMs || pts[0].PrevEnd != before[0].PrevEnd {
		t.Fatalf("merged %+v does not contain the original %+v", pts[0], before[0])
	}
}

func TestChangePointsTotalCap(t *testing.T) {
	const t0 = 1_800_000_000_000
	c := New(64, 3)
	off := cpTSO(t, t0-1)
	step := func(now, end int64) {
		c.Begin(now)
		for u := int64(1); u <= 2; u++ {
			c.Observe(Key{u, "p"}, cpTSO(t, end), off, nil, nil)
		}
		c.End()
	}
	step(t0, t0)
	for i := int64(1); i <= 5; i++ {
		step(t0+i*15_000, t0+i*10_000)
	}
	if c.Total() > 3 {
		t.Fatalf("total %d points, want at most the cap 3", c.Total())
	}
}
