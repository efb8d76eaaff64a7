package doctor

import (
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

func netSnapshot(hops ...snapshot.Hop) *snapshot.Snapshot {
	s := diagtest.New().S
	s.Doctor = &snapshot.Doctor{Parts: []string{"net"}, TimeoutMs: 1000, PolicySource: "SHOW FRONTEND CONFIG (fe1)",
		Session:   snapshot.DoctorSession{Name: "fe1", IsMaster: true, Known: true},
		Frontends: []snapshot.DoctorNode{{Kind: "fe", ID: "fe1", Version: "doris-5.0.0"}},
		Backends:  []snapshot.DoctorNode{{Kind: "be", ID: "10001", Version: "doris-5.0.0"}, {Kind: "be", ID: "10002", Version: "doris-5.0.0"}},
		Hops: append([]snapshot.Hop{
			{Kind: snapshot.HopFEQuery, Target: "fe1.demo.invalid:9030", Outcome: snapshot.OutcomeOK, Reachable: true},
			{Kind: snapshot.HopFEHTTP, Node: "fe1", Target: "fe1.demo.invalid:8030", Outcome: snapshot.OutcomeOK, Reachable: true},
		}, hops...)}
	return s
}

func beHop(node, target, outcome string, policies ...string) snapshot.Hop {
	if len(policies) == 0 {
		policies = []string{"default", "direct"}
	}
	return snapshot.Hop{Kind: snapshot.HopBEHTTP, Node: node, Target: target, Outcome: outcome, Policies: policies, Via: "Host:HttpPort", TimeoutMs: 1000}
}

func TestNetVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hop      snapshot.Hop
		policy   string // effective; "?" unknown
		code     string
		sev      diag.Severity
		contains string
	}{
		{"BE read timeout: the 307 hang", beHop("10002", "be2:8040", snapshot.OutcomeReadTimeout), "", "NET_STREAM_LOAD_HANG", diag.SeverityCritical, "hangs until the client's own timeout"},
		{"BE connect timeout: the 307 hang", beHop("10002", "be2:8040", snapshot.OutcomeConnectTimeout), "", "NET_STREAM_LOAD_HANG", diag.SeverityCritical, "did not connect within 1 s"},
		{"policy unknown: every candidate counts", beHop("10002", "pub:8040", snapshot.OutcomeReadTimeout, "public"), "?", "NET_STREAM_LOAD_HANG", diag.SeverityCritical, "BE 10002"},
		{"another policy's address: a warning", beHop("10002", "pub:8040", snapshot.OutcomeReadTimeout, "public"), "", "NET_HOP_UNREACHABLE", diag.SeverityWarning, "not where a Stream Load goes under policy default"},
		{"BE refused", beHop("10002", "be2:8040", snapshot.OutcomeRefused), "random-be", "NET_HOP_UNREACHABLE", diag.SeverityCritical, "a Stream Load redirected here fails"},
		{"FE unresolvable", snapshot.Hop{Kind: snapshot.HopFEHTTP, Node: "fe2", Target: "fe2.demo.invalid:8030", Outcome: snapshot.OutcomeUnresolvable}, "", "NET_HOP_UNREACHABLE", diag.SeverityCritical, "unresolvable"},
		{"TLS mismatch", snapshot.Hop{Kind: snapshot.HopFEHTTP, Node: "fe2", Target: "fe2:8030", Outcome: snapshot.OutcomeTLSMismatch}, "", "NET_TLS_MISMATCH", diag.SeverityWarning, "tls_mismatch"},
		{"redirected to HTTPS", snapshot.Hop{Kind: snapshot.HopFEHTTP, Node: "fe2", Target: "fe2:8030", Outcome: snapshot.OutcomeRedirected, Status: 307, Location: "https://fe2:8050/api/health"}, "", "NET_TLS_MISMATCH", diag.SeverityWarning, "Location https://fe2:8050"},
		{"401", beHop("10002", "be2:8040", snapshot.OutcomeUnauthorized), "", "NET_UNAUTHORIZED", diag.SeverityWarning, "HTTP 0"},
		{"403", snapshot.Hop{Kind: snapshot.HopFETSO, Node: "fe1", Target: "fe1:8030", Outcome: snapshot.OutcomeForbidden, Status: 403}, "", "NET_UNAUTHORIZED", diag.SeverityWarning, "HTTP 403"},
		{"not ready", snapshot.Hop{Kind: snapshot.HopFEHTTP, Node: "fe2", Target: "fe2:8030", Outcome: snapshot.OutcomeNotReady, Status: 503}, "", "NET_NODE_NOT_READY", diag.SeverityWarning, "not_ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := netSnapshot(beHop("10001", "be1:8040", snapshot.OutcomeOK), tc.hop)
			s.Doctor.EffectivePolicy = tc.policy
			if tc.policy == "?" {
				s.Doctor.EffectivePolicy, s.Doctor.PolicySource = "", "unknown"
			}
			res := Analyze(s, Options{})
			if len(res.Findings) != 1 {
				t.Fatalf("findings %v, want one", codes(res.Findings))
			}
			f := res.Findings[0]
			if f.Code.String() != tc.code || f.Severity != tc.sev || !strings.Contains(f.Summary, tc.contains) {
				t.Errorf("got %s %s %q; want %s %s containing %q", f.Code, f.Severity, f.Summary, tc.code, tc.sev, tc.contains)
			}
			// The worst line leads the report.
			if res.Checks[0].Code != tc.code {
				t.Errorf("first line %+v, want the %s", res.Checks[0], tc.code)
			}
		})
	}
}

func TestHealthyNetPasses(t *testing.T) {
	s := netSnapshot(beHop("10001", "be1:8040", snapshot.OutcomeOK), beHop("10002", "be2:8040", snapshot.OutcomeOK))
	now := diagtest.NowMs()
	s.Doctor.Clocks = []snapshot.ClockReading{{Source: "GET /api/tso", Node: "fe1", ServerMs: now, ResolutionMs: 1, SentMs: now - 5, ReceivedMs: now + 5}}
	res := Analyze(s, Options{})
	if len(res.Findings) != 0 {
		t.Fatalf("findings %v", codes(res.Findings))
	}
	if res.Counts.Pass != len(res.Checks) {
		t.Errorf("counts %+v over %d lines", res.Counts, len(res.Checks))
	}
}

func TestClockSkew(t *testing.T) {
	now := diagtest.NowMs()
	for _, tc := range []struct {
		offset time.Duration
		want   bool
	}{{10 * time.Second, true}, {-10 * time.Second, true}, {3 * time.Second, false}} {
		s := netSnapshot()
		s.Doctor.Clocks = []snapshot.ClockReading{{Source: "Date header", Target: "fe1:8030", ServerMs: now + tc.offset.Milliseconds(), ResolutionMs: 1000, SentMs: now - 10, ReceivedMs: now + 10}}
		got := has(Analyze(s, Options{}).Findings, "NET_CLOCK_SKEW") != nil
		if got != tc.want {
			t.Errorf("offset %s: skew raised %v, want %v", tc.offset, got, tc.want)
		}
	}
}

func TestVersionMismatch(t *testing.T) {
	s := netSnapshot()
	if has(Analyze(s, Options{}).Findings, "NET_VERSION_MISMATCH") != nil {
		t.Fatal("one version raised a mismatch")
	}
	s.Doctor.Backends[1].Version = "doris-4.0.8"
	f := has(Analyze(s, Options{}).Findings, "NET_VERSION_MISMATCH")
	if f == nil || !strings.Contains(f.Summary, "doris-4.0.8 on BE 10002") {
		t.Fatalf("mismatch: %+v", f)
	}
}

func TestLabels(t *testing.T) {
	s := clusterWith(cfg{"streaming_label_keep_max_second": "3600"}, nil, nil)
	s.Doctor.Parts = []string{"labels"}
	s.Doctor.Labels = []snapshot.LabelState{{DB: "demo", Label: "a", State: "VISIBLE"}, {DB: "demo", Label: "b", State: "UNKNOWN"}, {DB: "nodb", Label: "c", Error: "database nodb does not exist"}}
	res := Analyze(s, Options{})
	f := has(res.Findings, "LABEL_UNKNOWN")
	if f == nil || len(res.Findings) != 1 {
		t.Fatalf("findings %v, want LABEL_UNKNOWN only", codes(res.Findings))
	}
	if !strings.Contains(f.Summary, "never loaded, or loaded and removed") || !strings.Contains(f.Summary, "3600 s (1h)") || !strings.Contains(f.Summary, "2000 finished") {
		t.Errorf("summary %q: want both causes and the purge window read from the Master", f.Summary)
	}
	var st []Status
	for _, c := range res.Checks {
		st = append(st, c.Status)
	}
	if len(st) != 3 || st[0] != StatusWarn || st[1] != StatusUnknown || st[2] != StatusPass {
		t.Errorf("statuses %v, want warn, unknown, pass (worst first)", st)
	}
	// Without the configuration, the declared default says it is one.
	s.Doctor.Config = nil
	f = has(Analyze(s, Options{}).Findings, "LABEL_UNKNOWN")
	if f == nil || !strings.Contains(f.Summary, "43200 s (12h) (default; not read)") {
		t.Errorf("without config: %+v", f)
	}
}

// A privilege gap is an unknown line naming the privilege, never a finding.
func TestGapIsUnknown(t *testing.T) {
	s := netSnapshot()
	s.Doctor.Gaps = []snapshot.DoctorGap{{Source: "SHOW FRONTEND CONFIG", Kind: snapshot.GapPrivilege, Privilege: "ADMIN", Error: "Access denied"}}
	res := Analyze(s, Options{})
	if len(res.Findings) != 0 || res.Counts.Unknown != 1 {
		t.Fatalf("findings %v counts %+v", codes(res.Findings), res.Counts)
	}
	// The GRANT it suggests names the privilege only when it is a known
	// one: the text comes from the server's error (doris.GrantGlobal).
	for priv, want := range map[string]string{
		"ADMIN":                     "GRANT ADMIN_PRIV ON *.*.* TO USER  -- or run doctor as a user that has it",
		"x\nDROP DATABASE prod; --": "GRANT <privilege>_PRIV ON *.*.* TO USER  -- or run doctor as a user that has it",
	} {
		s.Doctor.Gaps[0].Privilege = priv
		seen := 0
		for _, c := range Analyze(s, Options{}).Checks {
			if c.Status == StatusUnknown {
				seen++
				if c.Next != want {
					t.Errorf("privilege %q: next %q, want %q", priv, c.Next, want)
				}
			}
		}
		if seen != 1 {
			t.Errorf("privilege %q: %d unknown lines, want 1", priv, seen)
		}
	}
}
