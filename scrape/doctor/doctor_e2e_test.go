package doctor_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/doris/doristest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/scrape/doctor"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The doctor's reads end to end: the emulator over the real MySQL protocol
// and real HTTP, one BE that accepts and never answers, one whose redirect
// address does not route, users without ADMIN, both label shapes.

const doctorUser, doctorPass = "diag", "doctor-secret-1"

func startDoctorEmulator(t *testing.T, opts emulator.Options) (*emulator.Emulator, doctor.DoctorOptions) {
	t.Helper()
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	opts.BEHTTP = true
	opts.QueryLog = true
	opts.WallClockTSO = true
	opts.User, opts.Password = doctorUser, doctorPass
	e, cfg := startEmulator(t, snap, opts)
	cfg.Timeout = 2 * time.Second
	return e, doctor.DoctorOptions{Config: cfg, Parts: doctor.DoctorConfig | doctor.DoctorNet | doctor.DoctorLabels}
}

func runDoctor(t *testing.T, o doctor.DoctorOptions) *snapshot.Doctor {
	t.Helper()
	d, err := doctor.Doctor(context.Background(), o)
	if err != nil {
		t.Fatalf("Doctor: %v", err)
	}
	// The section survives a snapshot file: written and read back whole.
	s := &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion, Cluster: snapshot.Cluster{CurrentTSO: 469067681628160003},
		Capabilities: snapshot.Capabilities{Sources: map[string]snapshot.SourceCapability{}}, Doctor: d}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := snapshot.Decode(b)
	if err != nil {
		t.Fatalf("decode the doctor section back: %v", err)
	}
	if back.Doctor == nil || len(back.Doctor.Hops) != len(d.Hops) || len(back.Doctor.Config) != len(d.Config) {
		t.Fatalf("the doctor section did not round-trip")
	}
	return d
}

func hopsOf(d *snapshot.Doctor, kind string) []snapshot.Hop {
	var out []snapshot.Hop
	for _, h := range d.Hops {
		if h.Kind == kind {
			out = append(out, h)
		}
	}
	return out
}

func reading(d *snapshot.Doctor, node, id, source string) *snapshot.ConfigReading {
	for i, c := range d.Config {
		if c.Node == node && (id == "" || c.ID == id) && (source == "" || c.Source == source) {
			return &d.Config[i]
		}
	}
	return nil
}

func entry(c *snapshot.ConfigReading, key string) *snapshot.ConfigEntry {
	if c == nil {
		return nil
	}
	for i, e := range c.Entries {
		if e.Key == key {
			return &c.Entries[i]
		}
	}
	return nil
}

// checkContract: every statement and every HTTP request the doctor sent is
// one of the wire contract, GET only, and none reaches a mutating endpoint.
func checkContract(t *testing.T, e *emulator.Emulator) {
	t.Helper()
	for _, q := range e.Queries() {
		if _, _, ok := doristest.Match(q); !ok {
			t.Errorf("statement not in the wire contract: %s", q)
		}
	}
	for _, r := range e.HTTPRequests() {
		if r.Server == "stalled-be" {
			continue
		}
		if r.Method != "GET" {
			t.Errorf("%s %s %s: only GET is ever sent", r.Server, r.Method, r.Path)
		}
		p := r.Path
		if u, err := url.Parse(p); err == nil {
			p = u.Path
		}
		if _, ok := doris.Endpoint(p); !ok {
			t.Errorf("%s: GET %s is no endpoint of the wire contract", r.Server, r.Path)
		}
		if f, ok := doris.Forbidden(p); ok {
			t.Errorf("%s: GET %s reaches the mutating %s", r.Server, r.Path, f.Path)
		}
	}
}

func TestDoctorHealthy(t *testing.T) {
	e, o := startDoctorEmulator(t, emulator.Options{
		FEConfig:   map[string]string{"enable_feature_binlog": "true", "enable_table_stream": "true"},
		LoadStates: map[string]string{"demo/sink-1042-1043-0": "VISIBLE"},
	})
	o.Labels = []doctor.LabelRef{{DB: "demo", Label: "sink-1042-1043-0"}, {DB: "demo", Label: "never-loaded"}}
	d := runDoctor(t, o)

	for _, h := range d.Hops {
		if h.Outcome != snapshot.OutcomeOK && h.Outcome != snapshot.OutcomeSkipped {
			t.Errorf("hop %s %s %s: %s (%s), want ok", h.Kind, h.Node, h.Target, h.Outcome, h.Error)
		}
	}
	if q := hopsOf(d, snapshot.HopFEQuery); len(q) != 1 || q[0].Outcome != snapshot.OutcomeOK || q[0].Target != e.Addr() {
		t.Errorf("query port hop: %+v", q)
	}
	if be := hopsOf(d, snapshot.HopBEHTTP); len(be) != 3 {
		t.Errorf("BE hops: %d, want one per BE (no endpoints: every policy names Host:HttpPort)", len(be))
	}
	if ts := hopsOf(d, snapshot.HopFETSO); len(ts) != 1 || ts[0].Outcome != snapshot.OutcomeOK {
		t.Errorf("TSO hop: %+v", ts)
	}
	if !d.Session.Known || !d.Session.IsMaster {
		t.Errorf("session: %+v, want on the Master", d.Session)
	}

	fe := reading(d, "fe", "", doris.SourceShowFEConfig)
	if fe == nil {
		t.Fatalf("no SHOW FRONTEND CONFIG reading: %+v (gaps %+v)", d.Config, d.Gaps)
	}
	if en := entry(fe, "enable_feature_binlog"); en == nil || en.Name != "experimental_enable_feature_binlog" || en.Value != "true" {
		t.Errorf("enable_feature_binlog: %+v, want printed experimental_enable_feature_binlog = true", en)
	}
	if en := entry(fe, "streaming_label_keep_max_second"); en == nil || en.Value != "43200" || en.MasterOnly == nil || !*en.MasterOnly {
		t.Errorf("streaming_label_keep_max_second: %+v", en)
	}
	for _, en := range fe.Entries {
		if en.Name == "auth_token" || strings.Contains(en.Value, "emulated-cluster-token") {
			t.Errorf("a key outside the contract was kept: %+v", en)
		}
	}
	if !contains(fe.Missing, "ivm_stream_keepalive_interval_second") || contains(fe.Missing, "enable_table_stream") {
		t.Errorf("missing keys: %v, want the design's keys only", fe.Missing)
	}
	for _, id := range []string{"10001", "10002", "10003"} {
		be := reading(d, "be", id, doris.SourceShowBEConfig)
		if en := entry(be, "disable_auto_compaction"); en == nil || en.Value != "false" {
			t.Errorf("BE %s disable_auto_compaction: %+v", id, en)
		}
	}
	if d.EffectivePolicy != "" || !strings.HasPrefix(d.PolicySource, doris.SourceShowFEConfig) {
		t.Errorf("policy %q from %q, want the FE's empty streamload_redirect_policy", d.EffectivePolicy, d.PolicySource)
	}

	var tsoClock, dateClock bool
	for _, c := range d.Clocks {
		lo, hi := c.SkewBoundsMs()
		if lo > hi || lo > 0 || hi < 0 {
			t.Errorf("clock %+v: skew bounds %d..%d, want them to hold 0 (one machine, one clock)", c, lo, hi)
		}
		tsoClock = tsoClock || c.Source == doris.SourceHTTPTSO
		dateClock = dateClock || c.Source == "Date header"
	}
	if !tsoClock || !dateClock {
		t.Errorf("clocks %+v: want a TSO and a Date reading", d.Clocks)
	}

	if len(d.Labels) != 2 || d.Labels[0].State != "VISIBLE" || d.Labels[1].State != "UNKNOWN" || d.Labels[0].Shape != "envelope" {
		t.Errorf("labels: %+v", d.Labels)
	}
	for _, g := range d.Gaps {
		t.Errorf("unexpected gap %+v", g)
	}
	checkContract(t, e)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDoctorBEThatNeverAnswers: a BE accepts and never answers. Its hop is
// a read timeout named with the BE, bounded by the timeout; the other BEs
// are ok; SHOW BACKEND CONFIG (which the FE fans out to that BE with no
// timeout of its own) becomes a gap, and the BEs that answer are read over
// HTTP instead.
func TestDoctorBEThatNeverAnswers(t *testing.T) {
	e, o := startDoctorEmulator(t, emulator.Options{StalledBEs: []string{"10002"}})
	o.Timeout = time.Second // the other BEs must answer within it, even on a loaded machine
	o.Parts = doctor.DoctorConfig | doctor.DoctorNet
	d := runDoctor(t, o)

	var stalled []snapshot.Hop
	for _, h := range hopsOf(d, snapshot.HopBEHTTP) {
		if h.Node == "10002" {
			stalled = append(stalled, h)
		} else if h.Outcome != snapshot.OutcomeOK {
			t.Errorf("BE %s: %s (%s), want ok", h.Node, h.Outcome, h.Error)
		}
	}
	if len(stalled) != 1 || stalled[0].Outcome != snapshot.OutcomeReadTimeout || stalled[0].Reachable || stalled[0].TimeoutMs != 1000 {
		t.Fatalf("the silent BE's hop: %+v, want one read_timeout bounded by 1 s", stalled)
	}
	if !strings.Contains(stalled[0].Error, stalled[0].Target) {
		t.Errorf("the error %q does not name the BE %s", stalled[0].Error, stalled[0].Target)
	}
	if d.NetElapsedMs <= 0 {
		t.Errorf("net_elapsed_ms not recorded")
	}

	var sqlGap bool
	for _, g := range d.Gaps {
		sqlGap = sqlGap || g.Source == doris.SourceShowBEConfig && g.Kind == snapshot.GapUnreachable
	}
	if !sqlGap {
		t.Errorf("gaps %+v: want SHOW BACKEND CONFIG as unreachable", d.Gaps)
	}
	if reading(d, "be", "10001", doris.SourceHTTPBEShowConfig) == nil || reading(d, "be", "10003", doris.SourceHTTPBEShowConfig) == nil {
		t.Errorf("the answering BEs were not read over HTTP: %+v", d.Config)
	}
	if reading(d, "be", "10002", "") != nil {
		t.Errorf("the silent BE has a reading")
	}
	checkContract(t, e)
}

// TestDoctorConnectTimeout: a BE address that drops the connection attempt
// is a connect timeout, not a read timeout.
func TestDoctorConnectTimeout(t *testing.T) {
	e, o := startDoctorEmulator(t, emulator.Options{})
	o.Timeout = time.Second
	o.Parts = doctor.DoctorNet
	hole := e.BEHTTPAddrs()[0]
	o.HTTPDialContext = testnet.BlackholeDial(hole)
	d := runDoctor(t, o)
	for _, h := range hopsOf(d, snapshot.HopBEHTTP) {
		want := snapshot.OutcomeOK
		if h.Target == hole {
			want = snapshot.OutcomeConnectTimeout
		}
		if h.Outcome != want {
			t.Errorf("BE %s at %s: %s (%s), want %s", h.Node, h.Target, h.Outcome, h.Error, want)
		}
	}
}

// TestDoctorRedirectTargets: the address a Stream Load redirect names is
// probed, not only the BE's own. BE 10001's public endpoint accepts and
// never answers, its private endpoint refuses: with the loader's
// redirect-policy public the hop is the hang, with private a refusal, and
// Host:HttpPort stays ok either way (the BE is up; its address for this
// client is not).
func TestDoctorRedirectTargets(t *testing.T) {
	silent, closed := testnet.SilentListener(t), testnet.ClosedPort(t)
	_, o := startDoctorEmulator(t, emulator.Options{
		BEEndpoints: map[string]emulator.BEEndpoints{"10001": {Public: silent, Private: closed}},
		FEConfig:    map[string]string{"streamload_redirect_policy": "public"},
	})
	o.Timeout = time.Second
	o.Parts = doctor.DoctorNet
	for _, tc := range []struct {
		policy, want, target string
	}{
		{"public", snapshot.OutcomeReadTimeout, silent},
		{"private", snapshot.OutcomeRefused, closed},
	} {
		o.RedirectPolicy = tc.policy
		d := runDoctor(t, o)
		var got, direct *snapshot.Hop
		for i, h := range hopsOf(d, snapshot.HopBEHTTP) {
			if h.Node != "10001" {
				continue
			}
			if h.Target == tc.target {
				got = &hopsOf(d, snapshot.HopBEHTTP)[i]
			} else {
				direct = &hopsOf(d, snapshot.HopBEHTTP)[i]
			}
		}
		if got == nil || got.Outcome != tc.want || !strings.Contains(got.Via, "policy "+tc.policy) {
			t.Errorf("policy %s: the redirect target's hop %+v, want %s at %s", tc.policy, got, tc.want, tc.target)
		}
		if direct == nil || direct.Outcome != snapshot.OutcomeOK {
			t.Errorf("policy %s: the BE's own address: %+v, want ok", tc.policy, direct)
		}
		if d.EffectivePolicy != tc.policy || d.PolicySource != "header" {
			t.Errorf("policy %q from %q", d.EffectivePolicy, d.PolicySource)
		}
	}
	// Without a header every candidate is probed, and the FE's own
	// streamload_redirect_policy says which one a 307 names.
	o.RedirectPolicy = ""
	d := runDoctor(t, o)
	targets := map[string]bool{}
	for _, h := range hopsOf(d, snapshot.HopBEHTTP) {
		if h.Node == "10001" {
			targets[h.Target] = true
		}
	}
	if !targets[silent] || !targets[closed] || len(targets) < 3 {
		t.Errorf("candidates probed: %v", targets)
	}
	if d.EffectivePolicy != "public" || !strings.HasPrefix(d.PolicySource, doris.SourceShowFEConfig) {
		t.Errorf("policy %q from %q, want public from SHOW FRONTEND CONFIG", d.EffectivePolicy, d.PolicySource)
	}
}

// TestDoctorWithoutADMIN: a user with NODE but not ADMIN. SHOW FRONTEND
// CONFIG and SHOW BACKEND CONFIG are refused (1227): named gaps, not
// failures, superseded by the HTTP readings.
func TestDoctorWithoutADMIN(t *testing.T) {
	e, o := startDoctorEmulator(t, emulator.Options{NoConfigAdmin: true})
	o.Parts = doctor.DoctorConfig
	d := runDoctor(t, o)
	for _, src := range []string{doris.SourceShowFEConfig, doris.SourceShowBEConfig} {
		found := false
		for _, g := range d.Gaps {
			if g.Source == src {
				found = true
				if g.Kind != snapshot.GapPrivilege || g.Privilege != "ADMIN" {
					t.Errorf("%s gap %+v, want privilege ADMIN", src, g)
				}
				if g.Superseded == "" {
					t.Errorf("%s gap not superseded by the HTTP reading: %+v", src, g)
				}
			}
		}
		if !found {
			t.Errorf("no gap for %s: %+v", src, d.Gaps)
		}
	}
	fe := reading(d, "fe", "", doris.SourceHTTPFEConfig)
	if en := entry(fe, "enable_feature_binlog"); en == nil || en.Name != "enable_feature_binlog" {
		t.Errorf("over HTTP the FE prints the bare name (Config.dump): %+v", en)
	}
	if len(d.Config) != 4 {
		t.Errorf("readings: %d, want the FE and three BEs", len(d.Config))
	}
	checkContract(t, e)
}

// TestDoctorNoPrivilegeAtAll: neither ADMIN nor NODE. Every privileged read
// is a gap naming what it needs; the run still succeeds.
func TestDoctorNoPrivilegeAtAll(t *testing.T) {
	_, o := startDoctorEmulator(t, emulator.Options{NoAdmin: true})
	d := runDoctor(t, o)
	privileged := map[string]string{}
	for _, g := range d.Gaps {
		if g.Kind == snapshot.GapPrivilege {
			privileged[g.Source] = g.Privilege
		}
		if strings.Contains(g.Error, doctorPass) {
			t.Errorf("the password in a gap: %+v", g)
		}
	}
	for _, src := range []string{doris.SourceFrontends, doris.SourceBackends, doris.SourceShowFEConfig, doris.SourceHTTPFEConfig} {
		if privileged[src] == "" {
			t.Errorf("no privilege gap for %s: %+v", src, d.Gaps)
		}
	}
	if q := hopsOf(d, snapshot.HopFEQuery); len(q) != 1 || q[0].Outcome != snapshot.OutcomeOK {
		t.Errorf("the query port is reachable whatever the privileges: %+v", q)
	}
}

// TestDoctorLabelShapes: get_load_state in both answer shapes.
func TestDoctorLabelShapes(t *testing.T) {
	for _, shape := range []bool{false, true} {
		_, o := startDoctorEmulator(t, emulator.Options{LoadStateResultShape: shape,
			LoadStates: map[string]string{"demo/a": "VISIBLE", "demo/b": "ABORTED"}})
		o.Parts = doctor.DoctorLabels
		o.Labels = []doctor.LabelRef{{DB: "demo", Label: "a"}, {DB: "demo", Label: "b"}, {DB: "demo", Label: "c"}, {DB: "nodb", Label: "a"}}
		d := runDoctor(t, o)
		want := []string{"VISIBLE", "ABORTED", "UNKNOWN", ""}
		for i, l := range d.Labels {
			if l.State != want[i] {
				t.Errorf("shape result=%v: label %s/%s: %q (%s), want %q", shape, l.DB, l.Label, l.State, l.Error, want[i])
			}
		}
		if d.Labels[3].Error == "" {
			t.Errorf("an unknown database gives no error: %+v", d.Labels[3])
		}
		wantShape := "envelope"
		if shape {
			wantShape = "result"
		}
		if d.Labels[0].Shape != wantShape {
			t.Errorf("shape %q, want %q", d.Labels[0].Shape, wantShape)
		}
	}
}

// TestDoctorOnAFollower: SHOW FRONTEND CONFIG shows the follower only, so
// the Master's own values are read from the Master over HTTP.
func TestDoctorOnAFollower(t *testing.T) {
	e, o := startDoctorEmulator(t, emulator.Options{Follower: true})
	o.Parts = doctor.DoctorConfig | doctor.DoctorNet
	d := runDoctor(t, o)
	if !d.Session.Known || d.Session.IsMaster {
		t.Fatalf("session %+v, want a follower", d.Session)
	}
	m := reading(d, "fe", "", doris.SourceHTTPFEConfig)
	if m == nil || !m.IsMaster {
		t.Fatalf("the Master's configuration was not read over HTTP: %+v (gaps %+v)", d.Config, d.Gaps)
	}
	_, mport, _ := net.SplitHostPort(e.MasterHTTPAddr())
	ts := hopsOf(d, snapshot.HopFETSO)
	if len(ts) != 1 || ts[0].Outcome != snapshot.OutcomeOK || !strings.HasSuffix(ts[0].Target, ":"+mport) {
		t.Errorf("the TSO hop %+v, want ok on the Master (port %s)", ts, mport)
	}
}

// TestDoctorQueryPortRefused: nothing listens on the query port. The hop is
// refused, every SQL read a gap, and the run still returns.
func TestDoctorQueryPortRefused(t *testing.T) {
	h, ps, _ := net.SplitHostPort(testnet.ClosedPort(t))
	p, _ := strconv.Atoi(ps)
	o := doctor.DoctorOptions{Config: scrape.Config{Host: h, Port: p, HTTPPort: p, Timeout: 300 * time.Millisecond},
		Parts: doctor.DoctorNet | doctor.DoctorConfig}
	d := runDoctor(t, o)
	q := hopsOf(d, snapshot.HopFEQuery)
	if len(q) != 1 || q[0].Outcome != snapshot.OutcomeRefused {
		t.Fatalf("query port hop %+v, want refused", q)
	}
	if f := hopsOf(d, snapshot.HopFEHTTP); len(f) != 1 || f[0].Outcome != snapshot.OutcomeRefused {
		t.Errorf("HTTP hop %+v, want refused", f)
	}
}
