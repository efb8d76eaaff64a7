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

func analyze(t *testing.T, snaps ...*snapshot.Snapshot) *Result {
	t.Helper()
	return Analyze(diagtest.NormAll(snaps), Options{})
}

func codes(r *Result, name string) map[string]diag.Finding {
	m := map[string]diag.Finding{}
	for _, f := range r.Findings {
		if f.Object.Name == name {
			m[f.Code.String()] = f
		}
	}
	return m
}

func TestStreamStates(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day).Table("demo", "events", "DUP_KEYS", &diagtest.Day)
	b.Stream(1, "s_ok", "MIN_DELTA", "orders")
	b.Cons(1, "s_ok", "p1", diagtest.TP(diagtest.TSOAgo(time.Minute)), "0")
	b.Stream(2, "s_lag", "DETAIL", "orders")
	b.Cons(2, "s_lag", "p1", diagtest.TP(diagtest.TSOAgo(5*time.Minute)), diagtest.LagOf(4*time.Minute))
	b.Stream(3, "s_cdc", "MIN_DELTA", "orders")
	b.Cons(3, "s_cdc", "p1", diagtest.TP(diagtest.TSOAgo(26*time.Hour)), diagtest.LagOf(26*time.Hour-time.Minute))
	d := b.Stream(4, "s_off", "DETAIL", "orders")
	d.Enabled = false
	b.Cons(4, "s_off", "p1", diagtest.TP(diagtest.TSOAgo(26*time.Hour)), diagtest.LagOf(time.Hour))
	dr := b.Stream(5, "s_drop", "DETAIL", "N/A")
	dr.BaseTableDB, dr.IsStale, dr.BaseTableDropped = "N/A", true, true
	b.Cons(5, "s_drop", "t", nil, "N/A")
	b.Stream(6, "s_unk", "DETAIL", "orders")
	b.Cons(6, "s_unk", "p1", nil, "N/A").ConsumptionStatus = "garbage"
	b.Stream(7, "s_init", "DETAIL", "orders")
	b.Cons(7, "s_init", "p1", nil, "N/A")
	b.Cons(7, "s_init", "p2", nil, "0")

	r := analyze(t, b.S)
	want := map[string]State{"s_ok": StateCaughtUp, "s_lag": StateLagging, "s_cdc": StateCannotResume, "s_off": StateDisabled,
		"s_drop": StateStale, "s_unk": StateUnknown, "s_init": StateInitializing}
	for n, st := range want {
		s := r.ByName("demo", n)
		if s == nil {
			t.Fatalf("%s missing", n)
		}
		if s.State != st {
			t.Errorf("%s: state %s (%s), want %s", n, s.State, s.StateReason, st)
		}
		if r.ByID(s.ID) != s {
			t.Errorf("%s: ByID mismatch", n)
		}
	}
	if r.Streams[0].Name != "s_cdc" && r.Streams[0].Name != "s_drop" {
		t.Errorf("worst first: got %s first", r.Streams[0].Name)
	}
	c := codes(r, "s_cdc")
	if _, ok := c["STREAM_CANNOT_RESUME_REJECTED"]; !ok {
		t.Errorf("s_cdc: no REJECTED finding: %v", c)
	}
	if _, ok := codes(r, "s_off")["STREAM_DISABLED"]; !ok {
		t.Error("s_off: no STREAM_DISABLED")
	}
	cd := codes(r, "s_drop")
	if _, ok := cd["STREAM_BASE_TABLE_DROPPED"]; !ok {
		t.Error("s_drop: no BASE_TABLE_DROPPED")
	}
	if _, ok := cd["STREAM_STALE"]; !ok {
		t.Error("s_drop: no STALE")
	}
	if _, ok := codes(r, "s_unk")["STREAM_STATE_UNKNOWN"]; !ok {
		t.Error("s_unk: no STATE_UNKNOWN")
	}
	if len(codes(r, "s_ok")) != 0 || len(codes(r, "s_lag")) != 0 {
		t.Errorf("healthy streams have findings: %v %v", codes(r, "s_ok"), codes(r, "s_lag"))
	}
}

func TestHeadroomBoundary(t *testing.T) {
	// TTL 1 diagtest.Day. Offset C whose next_required is exactly the retention floor:
	// floor = (X+1)<<18 with X = now - ttl; C = floor - 1 → next = floor → can resume, headroom 0.
	x := diagtest.NowMs() - diagtest.Day*1000
	floor := tso.TSO((x + 1) << 18)
	for _, tc := range []struct {
		name   string
		c      tso.TSO
		resume bool
		head   float64
	}{
		{"exactly at floor", floor - 1, true, 0},
		{"boundary millisecond", tso.TSO(x<<18 | 5), false, -0.001},
		{"one ms inside", floor + (1 << 18) - 1, true, 0.001},
	} {
		b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
		b.Stream(1, "s", "DETAIL", "orders")
		b.Cons(1, "s", "p1", diagtest.TP(tc.c), diagtest.LagOf(time.Minute))
		r := analyze(t, b.S)
		p := r.Streams[0].Partitions[0]
		if p.CanResume == nil || *p.CanResume != tc.resume || p.HeadroomSeconds == nil || *p.HeadroomSeconds != tc.head {
			t.Errorf("%s: can_resume %v headroom %v, want %v %v", tc.name, p.CanResume, fmtF(p.HeadroomSeconds), tc.resume, tc.head)
		}
		wantRead := NextReadProceed
		if !tc.resume {
			wantRead = NextReadClipped
		}
		if p.NextRead != wantRead {
			t.Errorf("%s: next read %s, want %s", tc.name, p.NextRead, wantRead)
		}
	}
}

func TestTTLAbsentAndOff(t *testing.T) {
	zero := int64(0)
	b := diagtest.New().Table("demo", "t_off", "UNIQUE_KEYS", &zero)
	b.Stream(1, "s_nottl", "MIN_DELTA", "t_missing")
	b.Cons(1, "s_nottl", "p1", diagtest.TP(diagtest.TSOAgo(48*time.Hour)), diagtest.LagOf(time.Hour))
	b.Stream(2, "s_ttloff", "MIN_DELTA", "t_off")
	b.Cons(2, "s_ttloff", "p1", diagtest.TP(diagtest.TSOAgo(48*time.Hour)), diagtest.LagOf(time.Hour))
	r := analyze(t, b.S)
	a := r.ByName("demo", "s_nottl")
	if a.Partitions[0].RetentionApplicable || a.CanResume != nil || a.Partitions[0].NextRead != NextReadUnknown || a.TTLNote == "" {
		t.Errorf("TTL unknown: %+v", a.Partitions[0])
	}
	o := r.ByName("demo", "s_ttloff")
	if o.Partitions[0].RetentionApplicable || o.Partitions[0].NextRead != NextReadProceed {
		t.Errorf("TTL off: %+v", o.Partitions[0])
	}
	if a.State != StateLagging || o.State != StateLagging {
		t.Errorf("states %s %s", a.State, o.State)
	}
}

func TestOffsetMinusOneAndNA(t *testing.T) {
	one := int64(3600)
	b := diagtest.New().Table("demo", "events", "DUP_KEYS", &one)
	b.Stream(1, "s_dup", "APPEND_ONLY", "events")
	b.Cons(1, "s_dup", "p1", diagtest.TP(diagtest.TSOAgo(time.Minute)), "0")
	m := b.Cons(1, "s_dup", "p_empty", nil, "0")
	m.ConsumptionStatus = "-1"
	b.Cons(1, "s_dup", "p_data", nil, "N/A")
	ct := diagtest.NowMs() - 5*3600*1000
	vt := diagtest.NowMs() - 2*3600*1000
	b.S.Partitions = append(b.S.Partitions, snapshot.Partition{DB: "demo", Table: "events", Name: "p_data", CreateTimeMs: &ct, VisibleTimeMs: &vt})
	r := analyze(t, b.S)
	s := r.ByName("demo", "s_dup")
	var pe, pd *Partition
	for i := range s.Partitions {
		switch s.Partitions[i].Unit {
		case "p_empty":
			pe = &s.Partitions[i]
		case "p_data":
			pd = &s.Partitions[i]
		}
	}
	if pe.OffsetState != OffsetNone || pe.CaughtUp == nil || !*pe.CaughtUp || pe.NextRead != NextReadProceed {
		t.Errorf("offset -1 empty: %+v", pe)
	}
	if pd.OffsetState != OffsetNone || pd.RowsSkipped != "yes" || pd.NextRead != NextReadClipped {
		t.Errorf("N/A with data older than TTL: %+v", pd)
	}
	if pd.PendingAge.Precision != diag.PrecisionUpperBound || *pd.PendingAge.Seconds != 5*3600 || *pd.PendingAge.Lower != 2*3600 {
		t.Errorf("no-offset pending age: %+v", pd.PendingAge)
	}
	f, ok := codes(r, "s_dup")["STREAM_NO_OFFSET_ROWS_SKIPPED"]
	if !ok || f.Severity != diag.SeverityCritical || f.Object.Partition != "p_data" {
		t.Errorf("T12 finding: %+v", f)
	}
	if s.State != StateLagging {
		t.Errorf("state %s", s.State)
	}
	// Without partition times: "may".
	b.S.Partitions = nil
	r = analyze(t, b.S)
	f = codes(r, "s_dup")["STREAM_NO_OFFSET_ROWS_SKIPPED"]
	if f.Severity != diag.SeverityWarning {
		t.Errorf("unknown data age: want a warning with may, got %+v", f)
	}
}

func TestIdleAndIVM(t *testing.T) {
	b := diagtest.New().Table("demo", "customers", "UNIQUE_KEYS", &diagtest.Day)
	b.Stream(1, "s_customers_idle", "MIN_DELTA", "customers")
	b.Cons(1, "s_customers_idle", "customers", diagtest.TP(diagtest.TSOAgo(30*time.Hour)), "0")
	b.Stream(2, "__doris_ivm_stream_mv_customer_ltv_"+strconv.FormatInt(12345, 36)+"_"+strconv.FormatInt(777, 36), "MIN_DELTA", "customers")
	b.Cons(2, "__doris_ivm_stream_mv_customer_ltv_9ix_lm", "customers", diagtest.TP(diagtest.TSOAgo(30*time.Hour)), "0")
	r := analyze(t, b.S)
	u := codes(r, "s_customers_idle")
	if _, ok := u["STREAM_IDLE_OUT_OF_RETENTION"]; !ok || len(u) != 1 {
		t.Errorf("idle: %v", u)
	}
	iv := r.ByID(2)
	if iv.Kind != KindIVM || iv.MVName != "mv_customer_ltv" || iv.MVID == nil || *iv.MVID != 12345 {
		t.Errorf("ivm identity: %+v", iv)
	}
	if _, ok := codes(r, iv.Name)["IVM_STREAM_RECOMPUTE_ONLY"]; !ok {
		t.Errorf("ivm: %v", codes(r, iv.Name))
	}
}

func TestLagInVersions(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	b.Stream(1, "s", "DETAIL", "orders")
	b.Cons(1, "s", "p1", diagtest.TP(diagtest.TSOAgo(20*time.Minute)), "3")
	r := analyze(t, b.S)
	p := r.Streams[0].Partitions[0]
	if !p.LagInVersions || p.SourceEndTSO != nil || p.PositionGapSeconds != nil || p.CaughtUp == nil || *p.CaughtUp {
		t.Errorf("version lag: %+v", p)
	}
	if *p.PendingAge.Seconds != 1200 || p.PendingAge.Lower != nil {
		t.Errorf("pending: %+v", p.PendingAge)
	}
	if _, ok := codes(r, "s")["STREAM_LAG_IN_VERSIONS"]; !ok {
		t.Error("no LAG_IN_VERSIONS")
	}
}

func TestPendingAgeSeries(t *testing.T) {
	mk := func(at time.Duration, end tso.TSO) *snapshot.Snapshot {
		b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
		b.S.Cluster.CurrentTSO = tso.TSO((diagtest.NowMs() - at.Milliseconds()) << 18)
		b.S.Cluster.Now = diagtest.Now.Add(-at)
		b.Stream(1, "s", "DETAIL", "orders")
		c := diagtest.TSOAgo(time.Hour)
		b.Cons(1, "s", "p1", diagtest.TP(c), strconv.FormatInt(int64(end-c), 10))
		return b.S
	}
	c := diagtest.TSOAgo(time.Hour)
	s1 := mk(60*time.Second, c)                               // caught up 60 s ago
	s2 := mk(45*time.Second, c)                               // still caught up
	s3 := mk(30*time.Second, diagtest.TSOAgo(35*time.Second)) // moved past C
	s4 := mk(0, diagtest.TSOAgo(5*time.Second))
	one := analyze(t, s4).Streams[0].Partitions[0].PendingAge
	if one.Precision != diag.PrecisionUpperBound || *one.Seconds != 3600 || *one.Lower != 5 {
		t.Errorf("one snapshot: %+v", one)
	}
	r := analyze(t, s1, s2, s3, s4)
	v := r.Streams[0].Partitions[0].PendingAge
	if v.Precision != diag.PrecisionPrecise || *v.Seconds != 45 || *v.Lower != 30 {
		t.Errorf("series: %+v", v)
	}
	if r.Streams[0].Partitions[0].Rates == nil {
		t.Error("no rates")
	}
}

func TestServerMismatch(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	st := b.Stream(1, "s", "DETAIL", "orders")
	state := "CAUGHT_UP"
	st.MonitorState = &state
	sample := diagtest.NowMs() - 5000
	st.MonitorSampleTimeMs = &sample
	c := b.Cons(1, "s", "p1", diagtest.TP(diagtest.TSOAgo(time.Hour)), diagtest.LagOf(30*time.Minute))
	age := 10.0
	c.PendingAgeSeconds = &age
	r := analyze(t, b.S)
	f, ok := codes(r, "s")["SERVER_CLIENT_MISMATCH"]
	if !ok {
		t.Fatalf("no mismatch: %v", r.Findings)
	}
	var part, stream *diag.Finding
	for i := range r.Findings {
		if r.Findings[i].Code == CodeServerClientMismatch {
			if r.Findings[i].Object.Partition == "p1" {
				part = &r.Findings[i]
			} else {
				stream = &r.Findings[i]
			}
		}
	}
	if part == nil || stream == nil {
		t.Fatalf("want a partition and a stream mismatch: %v", r.Findings)
	}
	if stream.Evidence["monitor_state_server"] != "caught_up" || part.Evidence["pending_age_seconds_server"] != "10" {
		t.Errorf("evidence: %v %v", stream.Evidence, part.Evidence)
	}
	_ = f
}

func TestMonitorStale(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	st := b.Stream(1, "s", "DETAIL", "orders")
	state := "CAUGHT_UP"
	st.MonitorState = &state
	sample := diagtest.NowMs() - 120000
	st.MonitorSampleTimeMs = &sample
	b.Cons(1, "s", "p1", diagtest.TP(diagtest.TSOAgo(time.Hour)), "0")
	r := analyze(t, b.S)
	found := false
	for _, f := range r.Findings {
		if f.Code == CodeMonitorStale {
			found = true
		}
	}
	if !found {
		t.Error("no MONITOR_STALE")
	}
}

func TestWhatIfAt(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	b.Stream(1, "s", "DETAIL", "orders")
	b.Cons(1, "s", "p1", diagtest.TP(diagtest.TSOAgo(4*time.Hour)), "0")
	at := diagtest.Now.Add(21 * time.Hour)
	r := Analyze([]*snapshot.Snapshot{diagtest.Norm(b.S)}, Options{At: &at})
	p := r.Streams[0].Partitions[0]
	if p.CanResume == nil || *p.CanResume || *p.HeadroomSeconds != -3600.001 {
		t.Errorf("at +20h: %+v", p)
	}
	ttl := int64(2 * 86400)
	r = Analyze([]*snapshot.Snapshot{diagtest.Norm(b.S)}, Options{At: &at, TTLOverride: &ttl})
	if p := r.Streams[0].Partitions[0]; !*p.CanResume {
		t.Errorf("ttl 2d: %+v", p)
	}
}

func TestEveryStreamCodeDocumented(t *testing.T) {
	for _, c := range streamCodes(t) {
		if c.Code == "" || c.Title == "" || c.Spec == "" || c.Meaning == "" || c.Matters == "" || c.Confirm == "" || c.Fix == "" || len(c.Related) == 0 || c.Severity == 0 {
			t.Errorf("%s: a field is empty", c.Code)
		}
		for _, r := range c.Related {
			_ = r
		}
	}
}

func TestEmptyAndNilSeries(t *testing.T) {
	r := Analyze(nil, Options{})
	if r == nil || len(r.Streams) != 0 {
		t.Fatal("empty series")
	}
	r = Analyze([]*snapshot.Snapshot{nil}, Options{})
	if r == nil {
		t.Fatal("nil snapshot")
	}
}

func TestPermuteStable(t *testing.T) {
	for _, in := range [][]int{{3, 1, 2}, {1, 2, 3}, {2, 2, 1, 1, 0}, {5, 4, 3, 2, 1, 0}, {1}, {}} {
		s := append([]int(nil), in...)
		diag.SortInPlace(s, func(i, j int) bool { return in[i] < in[j] })
		for i := 1; i < len(s); i++ {
			if s[i-1] > s[i] {
				t.Errorf("%v → %v: not sorted", in, s)
			}
		}
	}
	type kv struct{ k, v int }
	in := []kv{{2, 0}, {1, 1}, {2, 2}, {1, 3}}
	s := append([]kv(nil), in...)
	diag.SortInPlace(s, func(i, j int) bool { return in[i].k < in[j].k })
	if s[0].v != 1 || s[1].v != 3 || s[2].v != 0 || s[3].v != 2 {
		t.Errorf("not stable: %v", s)
	}
}

// TestOffsetAfterClockIsUnknown: an offset (or a partition end) years after
// the cluster's current TSO cannot have been allocated; it read as "caught
// up, headroom 4416d" before. Now the offset state is unknown and no
// headroom, gap or resume verdict is made up from it.
func TestOffsetAfterClockIsUnknown(t *testing.T) {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
	b.Stream(1, "s_future", "MIN_DELTA", "orders")
	b.Cons(1, "s_future", "p1", diagtest.TP(diagtest.TSOAgo(-12*365*24*time.Hour)), "0")
	b.Stream(2, "s_end", "DETAIL", "orders")
	c := b.Cons(2, "s_end", "p1", diagtest.TP(diagtest.TSOAgo(time.Hour)), "N/A")
	c.SourceEndTSO = diagtest.TP(tso.TSO(int64(tso.MaxReal)))
	r := analyze(t, b.S)
	for _, s := range r.Streams {
		p := s.Partitions[0]
		switch s.Name {
		case "s_future":
			if p.OffsetState != OffsetUnknown || p.ConsumedTSO != nil || p.HeadroomSeconds != nil || p.CanResume != nil {
				t.Errorf("s_future: state %s, consumed %v, headroom %v, can_resume %v", p.OffsetState, p.ConsumedTSO, p.HeadroomSeconds, p.CanResume)
			}
		case "s_end":
			if p.SourceEndTSO != nil || p.PositionGapSeconds != nil {
				t.Errorf("s_end: source end %v, gap %v; want no end past the clock", p.SourceEndTSO, p.PositionGapSeconds)
			}
		}
	}
}

// TestCreateTimeZeroIsNoBound: real Doris serves partitions.CREATE_TIME 0.
// A partition with data and no offset must never be bounded by 1970 (a
// ~56-year pending age): with no real creation time the value is UNKNOWN,
// its lower bound (UPDATE_TIME) kept, and the bound sources named.
func TestCreateTimeZeroIsNoBound(t *testing.T) {
	one := int64(3600)
	b := diagtest.New().Table("demo", "events", "DUP_KEYS", &one)
	b.Stream(1, "s_dup", "APPEND_ONLY", "events")
	b.Cons(1, "s_dup", "p1", diagtest.TP(diagtest.TSOAgo(time.Minute)), "0") // an offset elsewhere: not initializing
	b.Cons(1, "s_dup", "p_data", nil, "N/A")
	zero, vt, v2 := int64(0), diagtest.NowMs()-2*3600*1000, int64(2)
	b.S.Partitions = append(b.S.Partitions, snapshot.Partition{DB: "demo", Table: "events", Name: "p_data", CreateTimeMs: &zero, VisibleTimeMs: &vt, VisibleVersion: &v2})
	pd := unit(analyze(t, b.S), "p_data")
	v := pd.PendingAge
	if v.Seconds != nil || v.Precision != diag.PrecisionUnknown || strings.Contains(v.Note, "1970") {
		t.Fatalf("CREATE_TIME 0 gave a bound: %+v", v)
	}
	if v.Lower == nil || *v.Lower != 2*3600 || v.LowerSource != "update_time" || v.BoundSource != "none" {
		t.Errorf("lower bound from UPDATE_TIME not kept: %+v", v)
	}
	if pd.DataAge != nil && pd.DataAge.Seconds != nil {
		t.Errorf("data age bounded by 1970: %+v", pd.DataAge)
	}
	// VISIBLE_VERSION 1 (PARTITION_INIT_VERSION): nothing was ever loaded,
	// so an N/A LAG is no data and nothing is pending.
	v1 := int64(1)
	b.S.Partitions[0].VisibleVersion = &v1
	pd = unit(analyze(t, b.S), "p_data")
	if pd.HasData == nil || *pd.HasData || pd.PendingAge.Seconds == nil || *pd.PendingAge.Seconds != 0 {
		t.Errorf("visible version 1: want no data, pending 0; got has_data %v, %+v", pd.HasData, pd.PendingAge)
	}
	// A real creation time still bounds it, and says so.
	ct := diagtest.NowMs() - 5*3600*1000
	b.S.Partitions[0].VisibleVersion, b.S.Partitions[0].CreateTimeMs = &v2, &ct
	pd = unit(analyze(t, b.S), "p_data")
	if pd.PendingAge.Seconds == nil || *pd.PendingAge.Seconds != 5*3600 || pd.PendingAge.BoundSource != "partition_create_time" {
		t.Errorf("real creation time: %+v", pd.PendingAge)
	}
}

func unit(r *Result, name string) Partition {
	for _, p := range r.ByName("demo", "s_dup").Partitions {
		if p.Unit == name {
			return p
		}
	}
	return Partition{}
}

// The design's gauge numbers of the states (apache/doris#69907 "States").
func TestStateNumber(t *testing.T) {
	want := map[State]int{StateDisabled: 6, StateStale: 5, StateUnknown: 4, StateCannotResume: 3, StateInitializing: 2, StateLagging: 1, StateCaughtUp: 0, "x": -1, "": -1}
	for st, n := range want {
		if got := StateNumber(st); got != n {
			t.Errorf("StateNumber(%q) = %d, want %d", st, got, n)
		}
	}
}
