package cmd

import (
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	doctorcmd "github.com/dorisdiag/dorisdiag/cmd/doctor"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/doris/doristest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// dorisdiag doctor end to end (issue 22, "Done when"): the emulator over
// the real MySQL protocol and real HTTP on loopback, one BE that accepts
// and never answers; every statement and request checked against the wire
// contract.

const doctorTestPass = "doctor-cmd-secret"

// healthyDoctorConfig turns the feature gates on: the healthy scenario has
// changelog tables, streams and IVM MVs.
var (
	healthyFE = map[string]string{"enable_feature_binlog": "true", "enable_table_stream": "true"}
	healthyBE = map[string]string{"enable_feature_binlog": "true"}
)

func doctorEmulator(t *testing.T, opts emulator.Options) (*emulator.Emulator, []string, map[string]string) {
	t.Helper()
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	opts.BEHTTP, opts.QueryLog, opts.WallClockTSO = true, true, true
	opts.User, opts.Password = "diag", doctorTestPass
	if opts.FEConfig == nil {
		opts.FEConfig = healthyFE
	}
	if opts.BEConfig == nil {
		opts.BEConfig = healthyBE
	}
	e, err := emulator.New(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	return e, []string{"--host", host, "--port", port, "--http-port", hport, "--user", "diag"}, map[string]string{"DORISDIAG_PASSWORD": doctorTestPass}
}

// doctorContract: nothing outside the wire contract was sent, GET only, no
// mutating endpoint.
func doctorContract(t *testing.T, e *emulator.Emulator) {
	t.Helper()
	for _, q := range e.Queries() {
		if _, _, ok := doristest.Match(q); !ok {
			t.Errorf("statement outside the wire contract: %s", q)
		}
	}
	for _, r := range e.HTTPRequests() {
		if r.Server == "stalled-be" {
			continue // accepted, never answered: nothing was read of the request
		}
		p := r.Path
		if u, err := url.Parse(p); err == nil {
			p = u.Path
		}
		if r.Method != "GET" {
			t.Errorf("%s %s %s: only GET is ever sent", r.Server, r.Method, r.Path)
		}
		if _, ok := doris.Endpoint(p); !ok {
			t.Errorf("%s: GET %s is no endpoint of the wire contract", r.Server, r.Path)
		}
		if f, ok := doris.Forbidden(p); ok {
			t.Errorf("%s: GET %s reaches the mutating %s", r.Server, r.Path, f.Path)
		}
	}
}

type doctorJSON struct {
	Kind   string `json:"kind"`
	Checks []struct {
		Group, Name, Status, Summary, Code string
	} `json:"checks"`
	Findings []struct {
		Code     string            `json:"code"`
		Severity string            `json:"severity"`
		Summary  string            `json:"summary"`
		Evidence map[string]string `json:"evidence"`
	} `json:"findings"`
	TimeoutMs    int64 `json:"timeout_ms"`
	NetElapsedMs int64 `json:"net_elapsed_ms"`
}

func parseDoctor(t *testing.T, out string) doctorJSON {
	t.Helper()
	var d doctorJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Kind != "doctor" {
		t.Fatalf("doctor -o json: %v\n%s", err, out)
	}
	return d
}

// TestDoctorNetNamesTheSilentBE is the "done when": with one BE that
// accepts and never answers, doctor net names that BE and the 307 hang,
// bounded by --timeout, and exits 1.
func TestDoctorNetNamesTheSilentBE(t *testing.T) {
	e, args, env := doctorEmulator(t, emulator.Options{StalledBEs: []string{"10002"}})
	out, stderr, code := run(t, env, "", append([]string{"doctor", "net", "--timeout", "1s", "-o", "json"}, args...)...)
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1; stderr %s\n%s", code, stderr, out)
	}
	d := parseDoctor(t, out)
	var hang int
	for _, f := range d.Findings {
		switch {
		case f.Code == "NET_STREAM_LOAD_HANG":
			hang++
			if !strings.Contains(f.Summary, "BE 10002") || !strings.Contains(f.Summary, "hangs until the client's own timeout") || f.Severity != "critical" {
				t.Errorf("the hang: %+v", f)
			}
			if f.Evidence["timeout_ms"] != "1000" || f.Evidence["outcome"] != "read_timeout" {
				t.Errorf("the hang's evidence %v: want read_timeout bounded by --timeout 1s", f.Evidence)
			}
		default:
			t.Errorf("another finding: %+v", f)
		}
	}
	if hang != 1 {
		t.Errorf("%d hang findings, want 1 (BE 10002)", hang)
	}
	if d.TimeoutMs != 1000 || d.NetElapsedMs <= 0 {
		t.Errorf("timeout_ms %d, net_elapsed_ms %d", d.TimeoutMs, d.NetElapsedMs)
	}
	// The table names it too, first.
	out, _, code = run(t, env, "", append([]string{"doctor", "net", "--timeout", "1s"}, args...)...)
	if os.Getenv("DOCTOR_SHOW") != "" {
		t.Log(out)
	}
	if code != cmdutil.ExitFindings || !strings.Contains(out, "[✗] BE 10002") || strings.Index(out, "BE 10002") > strings.Index(out, "[✓]") {
		t.Errorf("table: exit %d, want the silent BE first:\n%s", code, out)
	}
	doctorContract(t, e)
}

// TestDoctorHealthyExitsZero: the healthy setup passes doctor (config and
// net) and doctor net.
func TestDoctorHealthyExitsZero(t *testing.T) {
	e, args, env := doctorEmulator(t, emulator.Options{})
	for _, sub := range [][]string{{"doctor"}, {"doctor", "net"}, {"doctor", "config"}} {
		out, stderr, code := run(t, env, "", append(append(sub, "--timeout", "5s", "-o", "json"), args...)...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d; stderr %s\n%s", sub, code, stderr, out)
		}
		for _, f := range parseDoctor(t, out).Findings {
			if f.Severity == "critical" {
				t.Errorf("%v: %+v", sub, f)
			}
		}
	}
	if os.Getenv("DOCTOR_SHOW") != "" {
		out, _, _ := run(t, env, "", append([]string{"doctor", "--timeout", "5s"}, args...)...)
		t.Log(out)
	}
	doctorContract(t, e)
}

// TestDoctorConfigRuleThroughTheWire: a BE with compaction off trips the
// TTL cleanup rule, read over SHOW BACKEND CONFIG; --fail-on warning gates
// on it; --save carries the readings into check.
func TestDoctorConfigRuleThroughTheWire(t *testing.T) {
	e, args, env := doctorEmulator(t, emulator.Options{BEConfigByID: map[string]map[string]string{"10003": {"disable_auto_compaction": "true"}}})
	save := filepath.Join(t.TempDir(), "doctor.json")
	out, stderr, code := run(t, env, "", append([]string{"doctor", "config", "--fail-on", "warning", "--save", save, "-o", "json"}, args...)...)
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1 with --fail-on warning; stderr %s\n%s", code, stderr, out)
	}
	var found bool
	for _, f := range parseDoctor(t, out).Findings {
		found = found || f.Code == "CONFIG_TTL_CLEANUP_PAUSED" && strings.Contains(f.Summary, "BE 10003")
	}
	if !found {
		t.Errorf("CONFIG_TTL_CLEANUP_PAUSED on BE 10003 not raised:\n%s", out)
	}
	doctorContract(t, e)
	if _, err := os.Stat(save); err != nil {
		t.Fatal(err)
	}
	// check over the saved snapshot raises the same rule, offline.
	out, _, _ = run(t, nil, "", "check", "--snapshot", save, "-o", "json", "--no-metrics")
	if !strings.Contains(out, "CONFIG_TTL_CLEANUP_PAUSED") {
		t.Errorf("check --snapshot of a doctor --save does not run the config rules:\n%.3000s", out)
	}
	// doctor over the saved file renders the same reading, offline.
	if out, _, code := run(t, nil, "", "doctor", "--snapshot", save, "-o", "json"); code != cmdutil.ExitOK || !strings.Contains(out, "CONFIG_TTL_CLEANUP_PAUSED") {
		t.Errorf("doctor --snapshot: exit %d\n%.2000s", code, out)
	}
}

// TestDoctorLabels: UNKNOWN is explained with the purge window read from
// the Master; a VISIBLE label passes.
func TestDoctorLabels(t *testing.T) {
	e, args, env := doctorEmulator(t, emulator.Options{LoadStates: map[string]string{"demo/sink-1": "VISIBLE"},
		FEConfig: map[string]string{"enable_feature_binlog": "true", "enable_table_stream": "true", "streaming_label_keep_max_second": "7200"}})
	file := filepath.Join(t.TempDir(), "labels.txt")
	if err := os.WriteFile(file, []byte("# from the sink's log\ndemo/sink-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, env, "", append([]string{"doctor", "labels", "--db", "demo", "sink-1", "--file", file, "-o", "json"}, args...)...)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d; stderr %s\n%s", code, stderr, out)
	}
	d := parseDoctor(t, out)
	if len(d.Findings) != 1 || d.Findings[0].Code != "LABEL_UNKNOWN" || !strings.Contains(d.Findings[0].Summary, "7200 s (2h)") {
		t.Errorf("findings %+v, want LABEL_UNKNOWN with the Master's 2 h window", d.Findings)
	}
	var visible bool
	for _, c := range d.Checks {
		visible = visible || c.Name == "demo/sink-1" && c.Status == "pass"
	}
	if !visible {
		t.Errorf("demo/sink-1 not a pass: %+v", d.Checks)
	}
	doctorContract(t, e)
}

func TestNewCmdDoctorFlags(t *testing.T) {
	f := testFactory(&cmdutil.Config{Output: "table", Conn: cmdutil.ConnOptions{Host: "fe1"}})
	o, err := parse(t, func(runF func(*doctorcmd.DoctorOptions) error) *cobra.Command { return doctorcmd.NewCmdDoctor(f, runF) },
		"--redirect-policy", "public", "--load-host", "fe.example", "--replay-window", "24h")
	if err != nil || o == nil || o.RedirectPolicy != "public" || o.LoadHost != "fe.example" || o.ReplayWindow.Hours() != 24 {
		t.Fatalf("valid flags: %+v, %v", o, err)
	}
	_, err = parse(t, func(runF func(*doctorcmd.DoctorOptions) error) *cobra.Command { return doctorcmd.NewCmdDoctor(f, runF) }, "--redirect-policy", "nearest")
	wantUsage(t, err, `--redirect-policy "nearest"`)
	_, err = parse(t, func(runF func(*doctorcmd.DoctorLabelsOptions) error) *cobra.Command {
		return doctorcmd.NewCmdDoctorLabels(f, runF)
	}, "sink-1")
	wantUsage(t, err, "need --db")
	_, err = parse(t, func(runF func(*doctorcmd.DoctorLabelsOptions) error) *cobra.Command {
		return doctorcmd.NewCmdDoctorLabels(f, runF)
	}, "--db", "demo")
	wantUsage(t, err, "give labels")
	lo, err := parse(t, func(runF func(*doctorcmd.DoctorLabelsOptions) error) *cobra.Command {
		return doctorcmd.NewCmdDoctorLabels(f, runF)
	}, "--db", "demo", "a", "b")
	if err != nil || len(lo.Names) != 2 || lo.DB != "demo" {
		t.Errorf("labels: %+v, %v", lo, err)
	}
}

// writeDoctorSnapshot writes the healthy scenario with a doctor section as
// `doctor --save` would: the Master's configuration with the binlog gate
// off on one BE, a BE that never answers, a clock reading, an UNKNOWN label.
func writeDoctorSnapshot(t *testing.T, path string) {
	t.Helper()
	s, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	now := s.Cluster.Now.UnixMilli()
	yes := true
	s.Doctor = &snapshot.Doctor{TakenAtMs: now, TimeoutMs: 2000, NetElapsedMs: 2004, Parts: []string{"config", "net"}, EffectivePolicy: "", PolicySource: "SHOW FRONTEND CONFIG (fe_1)",
		Session:   snapshot.DoctorSession{Host: "fe1.demo.invalid:9030", Name: "fe_1", IsMaster: true, Known: true},
		Frontends: []snapshot.DoctorNode{{Kind: "fe", ID: "fe_1", Host: "fe1.demo.invalid", HTTPPort: 8030, QueryPort: 9030, IsMaster: true, Alive: true, Version: "doris-5.0.0-rc01"}},
		Backends: []snapshot.DoctorNode{{Kind: "be", ID: "10001", Host: "be1.demo.invalid", HTTPPort: 8040, Alive: true, Version: "doris-5.0.0-rc01"},
			{Kind: "be", ID: "10002", Host: "be2.demo.invalid", HTTPPort: 8040, Alive: true, Version: "doris-5.0.0-rc01"}},
		Config: []snapshot.ConfigReading{
			{Node: "fe", ID: "fe_1", Host: "fe1.demo.invalid", IsMaster: true, Source: doris.SourceShowFEConfig, Entries: []snapshot.ConfigEntry{
				{Key: "enable_feature_binlog", Name: "experimental_enable_feature_binlog", Value: "true", Type: "boolean"},
				{Key: "enable_table_stream", Name: "enable_table_stream", Value: "true", Type: "boolean"},
				{Key: "streaming_label_keep_max_second", Name: "streaming_label_keep_max_second", Value: "43200", Type: "int", Mutable: &yes, MasterOnly: &yes},
				{Key: "label_num_threshold", Name: "label_num_threshold", Value: "2000", Type: "int"},
				{Key: "max_persistence_task_count", Name: "max_persistence_task_count", Value: "100", Type: "int"},
				{Key: "job_mtmv_task_consumer_thread_num", Name: "job_mtmv_task_consumer_thread_num", Value: "10", Type: "int"},
				{Key: "mtmv_task_queue_size", Name: "mtmv_task_queue_size", Value: "1024", Type: "int"},
				{Key: "enable_https", Name: "experimental_enable_https", Value: "false", Type: "boolean"}},
				Missing: []string{"enable_ivm_stream_keepalive", "ivm_stream_keepalive_interval_second", "enable_changelog_ivm_monitor", "enable_tls"}},
			{Node: "be", ID: "10001", Host: "be1.demo.invalid", Source: doris.SourceShowBEConfig, Entries: []snapshot.ConfigEntry{
				{Key: "enable_feature_binlog", Name: "enable_feature_binlog", Value: "false", Type: "bool"},
				{Key: "disable_auto_compaction", Name: "disable_auto_compaction", Value: "false", Type: "bool"}}},
		},
		Hops: []snapshot.Hop{
			{Kind: snapshot.HopFEQuery, Target: "fe1.demo.invalid:9030", Via: "--host:--port", Outcome: snapshot.OutcomeOK, Reachable: true, ElapsedMs: 3, TimeoutMs: 2000},
			{Kind: snapshot.HopFEHTTP, Node: "fe_1", Target: "fe1.demo.invalid:8030", Outcome: snapshot.OutcomeOK, Reachable: true, ElapsedMs: 2, TimeoutMs: 2000},
			{Kind: snapshot.HopBEHTTP, Node: "10001", Target: "be1.demo.invalid:8040", Via: "Host:HttpPort", Policies: []string{"default", "direct"}, Outcome: snapshot.OutcomeOK, Reachable: true, ElapsedMs: 2, TimeoutMs: 2000},
			{Kind: snapshot.HopBEHTTP, Node: "10002", Target: "be2.demo.invalid:8040", Via: "Host:HttpPort", Policies: []string{"default", "direct"}, Outcome: snapshot.OutcomeReadTimeout,
				Error: "be2.demo.invalid:8040: no answer within 2s (connected)", ElapsedMs: 2000, TimeoutMs: 2000},
		},
		Clocks: []snapshot.ClockReading{{Source: doris.SourceHTTPTSO, Node: "fe fe_1", Target: "fe1.demo.invalid:8030", ServerMs: now, ResolutionMs: 1, SentMs: now - 2, ReceivedMs: now + 2}},
		Gaps:   []snapshot.DoctorGap{},
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := snapshot.Write(f, s); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorSavedGolden: a saved reading renders the same way tomorrow, in
// every format, offline.
func TestDoctorSavedGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doctor.json")
	writeDoctorSnapshot(t, path)
	for _, f := range []struct{ format, golden string }{{"table", "doctor_saved.txt"}, {"wide", "doctor_saved_wide.txt"}, {"markdown", "doctor_saved.md"}, {"json", "doctor_saved.json"}} {
		out, stderr, code := run(t, nil, "", "doctor", "--snapshot", path, "-o", f.format)
		if code != cmdutil.ExitFindings {
			t.Errorf("-o %s: exit %d, want 1 (the silent BE, the binlog gate); stderr %s", f.format, code, stderr)
		}
		golden(t, f.golden, out)
	}
}
