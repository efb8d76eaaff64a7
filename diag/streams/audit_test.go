package streams

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// TestServerPendingAgeTolerance: the server's PENDING_AGE_SECONDS disagrees
// with the client's bound [lower, upper] only when the two cannot both hold.
// A PRECISE server value is at most one sampling interval above the truth, so
// it may not exceed the client's upper end (+ tolerance); an UPPER_BOUND one
// (after a Master switch: now − physical(C); a no-offset partition: counted
// from the stream's creation) only bounds the truth from above, so a value
// above the client's upper end is no disagreement (design.md: never report a
// delay too small; seed §3 Pending age). Either may not fall below the
// client's lower end.
func TestServerPendingAgeTolerance(t *testing.T) {
	type tc struct {
		name      string
		series    bool // narrow the client bound to [30, 45] with a series
		noOffset  bool // a partition created 1 h ago with data and no offset
		server    float64
		precision string
		mismatch  bool
	}
	for _, c := range []tc{
		{"precise within the one-snapshot bound", false, false, 3600, "PRECISE", false},
		{"precise above the narrowed bound", true, false, 3600, "PRECISE", true},
		{"upper bound above the narrowed bound (Master switch)", true, false, 3600, "UPPER_BOUND", false},
		{"upper bound below the lower end", true, false, 2, "UPPER_BOUND", true},
		{"precise within the narrowed bound", true, false, 44, "PRECISE", false},
		{"no offset: server counts from the stream's creation", false, true, 86400, "UPPER_BOUND", false},
		{"no offset: precise far above the partition's age", false, true, 86400, "PRECISE", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			mk := func(at time.Duration, end tso.TSO, last bool) *snapshot.Snapshot {
				b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
				b.S.Cluster.CurrentTSO = tso.TSO((diagtest.NowMs() - at.Milliseconds()) << 18)
				b.S.Cluster.Now = diagtest.Now.Add(-at)
				b.Stream(1, "s", "DETAIL", "orders")
				var cons *snapshot.Consumption
				if c.noOffset {
					ct := diagtest.NowMs() - 3600*1000
					vt := diagtest.NowMs() - 60*1000
					b.S.Partitions = append(b.S.Partitions, snapshot.Partition{DB: "demo", Table: "orders", Name: "p1", CreateTimeMs: &ct, VisibleTimeMs: &vt})
					cons = b.Cons(1, "s", "p1", nil, "N/A")
					cons.OffsetState, cons.SourceEndTSO = sp(string(OffsetNone)), diagtest.TP(diagtest.TSOAgo(time.Minute))
				} else {
					off := diagtest.TSOAgo(time.Hour)
					cons = b.Cons(1, "s", "p1", diagtest.TP(off), strconv.FormatInt(int64(end-off), 10))
				}
				if last {
					v := c.server
					cons.PendingAgeSeconds = &v
					cons.PendingAgePrecision = sp(c.precision)
				}
				return b.S
			}
			off := diagtest.TSOAgo(time.Hour)
			var snaps []*snapshot.Snapshot
			if c.series {
				snaps = append(snaps, mk(45*time.Second, off, false), mk(30*time.Second, diagtest.TSOAgo(35*time.Second), false))
			}
			snaps = append(snaps, mk(0, diagtest.TSOAgo(5*time.Second), true))
			r := analyze(t, snaps...)
			var got []diag.Finding
			for _, f := range r.Findings {
				if f.Code == CodeServerClientMismatch {
					got = append(got, f)
				}
			}
			p := r.Streams[0].Partitions[0]
			if (len(got) > 0) != c.mismatch {
				t.Errorf("mismatch %v, want %v; client %s, findings %+v", len(got) > 0, c.mismatch, boundStr(p.ClientPendingAge), got)
			}
			// Never a delay too small, never a lower bound above the value.
			v := p.PendingAge
			if v.Seconds != nil && v.Lower != nil && *v.Lower > *v.Seconds {
				t.Errorf("reported lower bound %.3f above the value %.3f", *v.Lower, *v.Seconds)
			}
			if cl := p.ClientPendingAge; cl != nil && cl.Lower != nil && v.Seconds != nil && *v.Seconds < *cl.Lower-1 {
				t.Errorf("reported pending age %.3f is below the client's proven lower bound %.3f", *v.Seconds, *cl.Lower)
			}
		})
	}
}

// TestNoOffsetVerdictT12Only: seed §1 T12 covers user streams read as
// MIN_DELTA and streams on duplicate-key tables only; APPEND_ONLY and DETAIL
// streams on unique-key tables "stay as they are" — returning only the
// retained changes of a partition with no offset is their design, not the T12
// defect. Neither the finding nor the verdict may attribute it to T12.
func TestNoOffsetVerdictT12Only(t *testing.T) {
	for _, c := range []struct {
		mode, keys string
		t12        bool
	}{
		{"MIN_DELTA", "UNIQUE_KEYS", true},
		{"DEFAULT", "UNIQUE_KEYS", true},
		{"DETAIL", "DUP_KEYS", true},
		{"APPEND_ONLY", "DUP_KEYS", true},
		{"DETAIL", "UNIQUE_KEYS", false},
		{"APPEND_ONLY", "UNIQUE_KEYS", false},
	} {
		t.Run(c.mode+"/"+c.keys, func(t *testing.T) {
			one := int64(3600)
			b := diagtest.New().Table("demo", "t", c.keys, &one)
			b.Stream(1, "s", c.mode, "t")
			b.Cons(1, "s", "p_ok", diagtest.TP(diagtest.TSOAgo(time.Minute)), "0")
			b.Cons(1, "s", "p_data", nil, "N/A")
			ct, vt := diagtest.NowMs()-5*3600*1000, diagtest.NowMs()-2*3600*1000
			b.S.Partitions = append(b.S.Partitions, snapshot.Partition{DB: "demo", Table: "t", Name: "p_data", CreateTimeMs: &ct, VisibleTimeMs: &vt})
			r := analyze(t, b.S)
			_, finding := codes(r, "s")["STREAM_NO_OFFSET_ROWS_SKIPPED"]
			verdict := strings.Join(r.Streams[0].Verdict, " ")
			if finding != c.t12 || strings.Contains(verdict, "T12") != c.t12 {
				t.Errorf("T12 finding %v, verdict names T12 %v; want %v: %q", finding, strings.Contains(verdict, "T12"), c.t12, verdict)
			}
			if !c.t12 && !strings.Contains(verdict, "p_data") {
				t.Errorf("the verdict should still name the partition whose old rows the read does not return: %q", verdict)
			}
		})
	}
}

// TestLostWindowBoundaryMillisecond: a clipped read loses the changes from
// next_required up to min(retention floor, nextTso(source end)) (doris.md §2:
// the whole boundary millisecond X expires). An end inside millisecond X loses
// the same milliseconds as an end at or past the floor, so the span may not
// shrink by one millisecond there.
func TestLostWindowBoundaryMillisecond(t *testing.T) {
	x := diagtest.NowMs() - diagtest.Day*1000 // X: physical(commit) <= X has expired
	c := tso.TSO((x - 10) << 18)
	for _, tc := range []struct {
		name string
		end  tso.TSO
		lost int64
	}{
		{"end past the floor", tso.TSO((x + 500) << 18), 11},
		{"end at the floor", tso.TSO((x + 1) << 18), 11},
		{"end in the boundary millisecond", tso.TSO(x<<18 | 5), 11},
		{"end one millisecond before it", tso.TSO((x - 1) << 18), 10},
		{"end in the offset's own millisecond", c + 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			b.Stream(1, "s", "DETAIL", "orders")
			b.Cons(1, "s", "p1", diagtest.TP(c), "N/A").SourceEndTSO = diagtest.TP(tc.end)
			p := analyze(t, b.S).Streams[0].Partitions[0]
			if p.NextRead != NextReadClipped || p.LostWindowMs == nil || *p.LostWindowMs != tc.lost {
				t.Errorf("next read %s, lost %s ms, want clipped, %d ms", p.NextRead, fmtI(p.LostWindowMs), tc.lost)
			}
		})
	}
}

func fmtI(v *int64) string {
	if v == nil {
		return "nil"
	}
	return strconv.FormatInt(*v, 10)
}

// TestMonitorStateToleranceAtResumeBoundary: table_streams comes from the
// latest round, up to one interval plus the sample age old (seed "One sampler",
// "FE configs"). A stream whose headroom crossed 0 since that round is
// cannot_resume now and was lagging then; like CAN_RESUME beside it, its
// MONITOR_STATE disagrees only beyond that tolerance.
func TestMonitorStateToleranceAtResumeBoundary(t *testing.T) {
	for _, c := range []struct {
		name     string
		headroom time.Duration // the client's headroom now
		server   string
		mismatch bool
	}{
		{"crossed 0 since the round", -3 * time.Second, "LAGGING", false},
		{"expired long before the round", -time.Hour, "LAGGING", true},
		{"same state", -time.Hour, "CANNOT_RESUME", false},
		{"resumable, server says caught up", time.Hour, "CAUGHT_UP", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			st := b.Stream(1, "s", "MIN_DELTA", "orders")
			sample := diagtest.NowMs() - 10000
			st.MonitorState, st.MonitorSampleTimeMs = sp(c.server), &sample
			// next_required = C+1 is in the millisecond of C: headroom =
			// physical(C) - (X+1).
			x := diagtest.NowMs() - diagtest.Day*1000
			off := tso.TSO((x + 1 + c.headroom.Milliseconds()) << 18)
			b.Cons(1, "s", "p1", diagtest.TP(off), diagtest.LagOf(time.Minute))
			r := analyze(t, b.S)
			f, ok := codes(r, "s")["SERVER_CLIENT_MISMATCH"]
			if ok != c.mismatch {
				t.Errorf("state %s (server %s): mismatch %v, want %v: %+v", r.Streams[0].State, c.server, ok, c.mismatch, f)
			}
		})
	}
}

// TestIVMCannotResumeSaysMay: an IVM internal stream resumes from max(C, K)
// with the keep-alive TSO K (seed T9), which SQL does not show on older
// builds; computed from C alone, its cannot_resume is a "may", never an
// assertion — in the state reason as in the findings.
func TestIVMCannotResumeSaysMay(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		may          bool
	}{
		{"ivm internal stream", "__doris_ivm_stream_mv_ltv_9ix_lm", true},
		{"user stream", "s_user", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "customers", "UNIQUE_KEYS", &diagtest.Day)
			b.Stream(1, c.stream, "MIN_DELTA", "customers")
			b.Cons(1, c.stream, "customers", diagtest.TP(diagtest.TSOAgo(30*time.Hour)), "0")
			s := analyze(t, b.S).Streams[0]
			if s.State != StateCannotResume {
				t.Fatalf("state %s", s.State)
			}
			says := strings.Contains(s.StateReason, "may") && strings.Contains(s.StateReason, "keep-alive TSO")
			if says != c.may {
				t.Errorf("state reason %q: says may (keep-alive TSO) %v, want %v", s.StateReason, says, c.may)
			}
		})
	}
}

// TestSeriesNarrowsFromLagText: a snapshot that carries LAG as text only
// (lag_value absent, as in a hand-written or older snapshot file) is read the
// same way for the series as for the partition itself: the change-point rule
// (seed §3 Pending age) must still narrow the bound to PRECISE.
func TestSeriesNarrowsFromLagText(t *testing.T) {
	for _, textOnly := range []bool{false, true} {
		t.Run(strconv.FormatBool(textOnly), func(t *testing.T) {
			mk := func(at time.Duration, end tso.TSO) *snapshot.Snapshot {
				b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
				b.S.Cluster.CurrentTSO = tso.TSO((diagtest.NowMs() - at.Milliseconds()) << 18)
				b.S.Cluster.Now = diagtest.Now.Add(-at)
				b.Stream(1, "s", "DETAIL", "orders")
				c := diagtest.TSOAgo(time.Hour)
				row := b.Cons(1, "s", "p1", diagtest.TP(c), strconv.FormatInt(int64(end-c), 10))
				if textOnly {
					row.LagValue = nil
				}
				return b.S
			}
			c := diagtest.TSOAgo(time.Hour)
			r := analyze(t, mk(45*time.Second, c), mk(30*time.Second, diagtest.TSOAgo(35*time.Second)), mk(0, diagtest.TSOAgo(5*time.Second)))
			v := r.Streams[0].Partitions[0].PendingAge
			if v.Precision != diag.PrecisionPrecise || *v.Seconds != 45 {
				t.Errorf("pending age %s %s, want PRECISE 45", boundStr(&v), v.Precision)
			}
		})
	}
}

// TestPendingPartitionsTolerance: table_streams.PENDING_PARTITIONS comes from
// the latest round; a partition consumed (or written) since then may be
// pending on one side only, so only a difference larger than the number of
// such partitions is a SERVER_CLIENT_MISMATCH.
func TestPendingPartitionsTolerance(t *testing.T) {
	for _, tc := range []struct {
		name         string
		consumedAgo  time.Duration // when p1 (caught up now) was last consumed
		wantMismatch bool
	}{
		{"p1 consumed after the round: explained", 3 * time.Second, false},
		{"nothing moved since the round: a real disagreement", time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			st := b.Stream(1, "s", "DETAIL", "orders")
			pending, sample := int64(2), diagtest.NowMs()-5000
			st.PendingPartitions, st.MonitorSampleTimeMs = &pending, &sample
			off := diagtest.TSOAgo(time.Hour)
			p1 := b.Cons(1, "s", "p1", diagtest.TP(off), "0")
			p1.LastConsumptionTimeMs = i64(diagtest.NowMs() - tc.consumedAgo.Milliseconds())
			b.Cons(1, "s", "p2", diagtest.TP(off), diagtest.LagOf(30*time.Minute))
			r := analyze(t, b.S)
			if got := r.Streams[0].PendingPartitions; got != 1 {
				t.Fatalf("client pending partitions = %d, want 1", got)
			}
			_, mismatch := codes(r, "s")["SERVER_CLIENT_MISMATCH"]
			if mismatch != tc.wantMismatch {
				t.Errorf("SERVER_CLIENT_MISMATCH = %v, want %v (findings %+v)", mismatch, tc.wantMismatch, r.Findings)
			}
		})
	}
}

func sp(s string) *string { return &s }
