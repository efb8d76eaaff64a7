package doctor

import (
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Each config rule with a configuration that trips it and one that does
// not (issue 22, "Done when"). The cluster: one changelog table with a one
// day TTL, a user stream consumed an hour ago, an IVM MV refreshed every
// hour over it, a Master FE and one BE whose keys are the declared
// defaults with the gates on, unless a case says otherwise.

const absent = "<absent>"

type cfg map[string]string

// clusterWith builds the snapshot with the FE and BE keys given over the
// healthy defaults; a value absent leaves the key out (not on this build).
func clusterWith(fe, be cfg, mut func(b *diagtest.B)) *snapshot.Snapshot {
	day := diagtest.Day
	on := true
	b := diagtest.New().Table("demo", "orders", "DUP_KEYS", &day)
	b.S.Tables[0].ChangelogEnabled = &on
	b.Stream(1, "s_orders_cdc", "DETAIL", "orders")
	b.Cons(1, "s_orders_cdc", "p1", diagtest.TP(diagtest.TSOAgo(time.Hour)), "0")
	b.MV(100, "mv_orders", "BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 1 HOUR", "orders", 7, 0)
	b.Task(100, "mv_orders", 1, "SUCCESS", 30*time.Minute)
	if mut != nil {
		mut(b)
	}
	s := diagtest.Norm(b.S)
	s.Source.TasksPerMV = 20
	s.Capabilities.Sources[doris.SourceTableStreams] = snapshot.SourceCapability{Present: true} // the objects were read
	healthyFE := cfg{"enable_feature_binlog": "true", "enable_table_stream": "true"}
	healthyBE := cfg{"enable_feature_binlog": "true"}
	s.Doctor = &snapshot.Doctor{Parts: []string{"config"}, Session: snapshot.DoctorSession{Name: "fe1", IsMaster: true, Known: true},
		Config: []snapshot.ConfigReading{
			reading(doris.FE, "fe1", true, doris.SourceShowFEConfig, merge(healthyFE, fe)),
			reading(doris.BE, "10001", false, doris.SourceShowBEConfig, merge(healthyBE, be)),
		}}
	return s
}

func merge(a, b cfg) cfg {
	out := cfg{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func reading(node doris.NodeKind, id string, master bool, source string, over cfg) snapshot.ConfigReading {
	c := snapshot.ConfigReading{Node: string(node), ID: id, Host: id + ".demo.invalid", IsMaster: master, Source: source}
	for _, k := range doris.ConfigKeys() {
		if k.Node != node {
			continue
		}
		v, ok := over[k.Name]
		if !ok {
			v = k.Default
		}
		if v == absent {
			c.Missing = append(c.Missing, k.Name)
			continue
		}
		name := k.Name
		if k.Experimental && source == doris.SourceShowFEConfig {
			name = doris.ExperimentalPrefix + k.Name
		}
		c.Entries = append(c.Entries, snapshot.ConfigEntry{Key: k.Name, Name: name, Value: v, Type: k.Type})
	}
	return c
}

func codes(fs []diag.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code.String())
	}
	return out
}

func has(fs []diag.Finding, code string) *diag.Finding {
	for i := range fs {
		if fs[i].Code.String() == code {
			return &fs[i]
		}
	}
	return nil
}

func TestHealthyConfigRaisesNothing(t *testing.T) {
	s := clusterWith(nil, nil, nil)
	res := Analyze(s, Options{ReplayWindow: time.Hour})
	if len(res.Findings) != 0 {
		t.Fatalf("findings on a healthy configuration: %v", codes(res.Findings))
	}
	for _, c := range res.Checks {
		if c.Status == StatusUnknown {
			t.Errorf("unknown line with every key read: %+v", c)
		}
	}
	// check runs the same rules over the same section.
	if fs := ConfigFindings(s, Options{}); len(fs) != 0 {
		t.Errorf("ConfigFindings: %v", codes(fs))
	}
}

func TestConfigRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fe, be   cfg
		mut      func(b *diagtest.B)
		opt      Options
		code     string // tripped
		notCode  bool   // the case must NOT raise code
		contains string // in the summary
	}{
		{name: "binlog off on the FE", fe: cfg{"enable_feature_binlog": "false"}, code: "CONFIG_BINLOG_OFF", contains: "experimental_enable_feature_binlog = false"},
		{name: "binlog off on a BE", be: cfg{"enable_feature_binlog": "false"}, code: "CONFIG_BINLOG_OFF", contains: "BE 10001"},
		{name: "binlog off, nothing needs it", fe: cfg{"enable_feature_binlog": "false"}, be: cfg{"enable_feature_binlog": "false"}, code: "CONFIG_BINLOG_OFF", notCode: true,
			mut: func(b *diagtest.B) {
				b.S.Tables, b.S.Streams, b.S.MVs, b.S.Consumption, b.S.Tasks, b.S.Jobs = nil, nil, nil, nil, nil, nil
			}},
		{name: "table stream off", fe: cfg{"enable_table_stream": "false"}, code: "CONFIG_TABLE_STREAM_OFF", contains: "IVM fallback"},
		{name: "table stream key not on this build", fe: cfg{"enable_table_stream": absent}, code: "CONFIG_TABLE_STREAM_OFF", notCode: true},
		{name: "compaction off", be: cfg{"disable_auto_compaction": "true"}, code: "CONFIG_TTL_CLEANUP_PAUSED"},
		{name: "compaction on", be: cfg{"disable_auto_compaction": "false"}, code: "CONFIG_TTL_CLEANUP_PAUSED", notCode: true},
		{name: "keep-alive half the TTL", fe: cfg{"ivm_stream_keepalive_interval_second": "43200"}, code: "CONFIG_KEEPALIVE_TOO_SLOW", contains: "at least half"},
		{name: "keep-alive just under half", fe: cfg{"ivm_stream_keepalive_interval_second": "43199"}, code: "CONFIG_KEEPALIVE_TOO_SLOW", notCode: true},
		{name: "keep-alive off", fe: cfg{"enable_ivm_stream_keepalive": "false"}, code: "CONFIG_KEEPALIVE_TOO_SLOW", contains: "no keep-alive TSO"},
		{name: "IVM schedule beyond the window", mut: schedule("BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 12 HOUR"), code: "CONFIG_IVM_SCHEDULE_TOO_SLOW", contains: "42600 s"},
		{name: "IVM schedule within the window", mut: schedule("BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 11 HOUR"), code: "CONFIG_IVM_SCHEDULE_TOO_SLOW", notCode: true},
		{name: "IVM schedule, no keep-alive on the build", fe: cfg{"enable_ivm_stream_keepalive": absent, "ivm_stream_keepalive_interval_second": absent},
			mut: schedule("BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 2 DAY"), code: "CONFIG_IVM_SCHEDULE_TOO_SLOW", contains: "no keep-alive on this build"},
		{name: "user stream consumed two days ago", mut: consumedAgo(48 * time.Hour), code: "CONFIG_STREAM_CONSUMER_SLOW", contains: "longer than its TTL"},
		{name: "user stream consumed 23 h ago", mut: consumedAgo(23 * time.Hour), code: "CONFIG_STREAM_CONSUMER_SLOW", notCode: true},
		{name: "monitor off", fe: cfg{"enable_changelog_ivm_monitor": "false"}, code: "CONFIG_MONITOR_QUOTA"},
		{name: "MV quota below the MVs", fe: cfg{"prom_output_ivm_mv_metrics_limit": "0"}, code: "CONFIG_MONITOR_QUOTA", contains: "below the 1 IVM MV"},
		{name: "stream quota covers", fe: cfg{"prom_output_table_stream_metrics_limit": "1"}, code: "CONFIG_MONITOR_QUOTA", notCode: true},
		{name: "threads below due refreshes", fe: cfg{"job_mtmv_task_consumer_thread_num": "1"}, mut: dueRefreshes(3), code: "CONFIG_MTMV_CAPACITY", contains: "3 MV refreshes pending or running, 1 task threads"},
		{name: "threads <= 0 mean 10", fe: cfg{"job_mtmv_task_consumer_thread_num": "0"}, mut: dueRefreshes(3), code: "CONFIG_MTMV_CAPACITY", notCode: true},
		{name: "queue below automatic MVs", fe: cfg{"mtmv_task_queue_size": "1"}, mut: dueRefreshes(3), code: "CONFIG_MTMV_CAPACITY", contains: "queue holds 1"},
		{name: "task history short", fe: cfg{"max_persistence_task_count": "5"}, code: "CONFIG_TASK_HISTORY_SHORT", contains: "fewer than the 20"},
		{name: "task history equal", fe: cfg{"max_persistence_task_count": "20"}, code: "CONFIG_TASK_HISTORY_SHORT", notCode: true},
		{name: "label window shorter than the replay", opt: Options{ReplayWindow: 24 * time.Hour}, code: "CONFIG_LABEL_WINDOW_SHORT", contains: "loads twice"},
		{name: "label window covers the replay", opt: Options{ReplayWindow: 12 * time.Hour}, code: "CONFIG_LABEL_WINDOW_SHORT", notCode: true},
		{name: "session on a follower", mut: nil, code: "CONFIG_SESSION_ON_FOLLOWER", contains: "300 s behind"},
		{name: "HTTPS only", fe: cfg{"enable_https": "true"}, code: "CONFIG_HTTPS_ONLY", contains: "experimental_enable_https = true"},
		{name: "TLS on the HTTP port", fe: cfg{"enable_tls": "true"}, code: "CONFIG_HTTPS_ONLY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clusterWith(tc.fe, tc.be, tc.mut)
			if tc.code == "CONFIG_SESSION_ON_FOLLOWER" {
				s.Doctor.Session = snapshot.DoctorSession{Name: "fe2", Known: true}
				s.Doctor.Config = append(s.Doctor.Config, reading(doris.FE, "fe2", false, doris.SourceShowFEConfig, cfg{"enable_feature_binlog": "true", "enable_table_stream": "true"}))
			}
			res := Analyze(s, tc.opt)
			f := has(res.Findings, tc.code)
			if tc.notCode {
				if f != nil {
					t.Fatalf("raised %s: %s", tc.code, f.Summary)
				}
				return
			}
			if f == nil {
				t.Fatalf("%s not raised; findings %v", tc.code, codes(res.Findings))
			}
			if !strings.Contains(f.Summary, tc.contains) {
				t.Errorf("summary %q does not say %q", f.Summary, tc.contains)
			}
			if got := ConfigFindings(s, tc.opt); has(got, tc.code) == nil {
				t.Errorf("check's ConfigFindings does not raise %s", tc.code)
			}
			line := false
			for _, c := range res.Checks {
				line = line || c.Code == tc.code && c.Status != StatusPass
			}
			if !line {
				t.Errorf("no report line carries %s", tc.code)
			}
		})
	}
}

func schedule(refresh string) func(b *diagtest.B) {
	return func(b *diagtest.B) {
		b.S.MVs[0].RefreshInfo = refresh
	}
}

func consumedAgo(d time.Duration) func(b *diagtest.B) {
	return func(b *diagtest.B) {
		ms := diagtest.MsAgo(d)
		b.S.Consumption[0].LastConsumptionTimeMs = ms
	}
}

func dueRefreshes(n int) func(b *diagtest.B) {
	return func(b *diagtest.B) {
		for i := 0; i < n; i++ {
			id := int64(200 + i)
			b.MV(id, "mv_more"+string(rune('a'+i)), diagtest.IncrCommit, "", 0, 0)
			b.Task(id, "mv_more", id*10, "PENDING", time.Minute)
		}
	}
}

// A design-only key says "not on this build", never a default or a pass.
func TestDesignKeysNotOnThisBuild(t *testing.T) {
	over := cfg{}
	for _, k := range doris.ConfigKeys() {
		if k.Avail == doris.Design {
			over[k.Name] = absent
		}
	}
	res := Analyze(clusterWith(over, nil, nil), Options{})
	seen := 0
	for _, c := range res.Checks {
		if strings.Contains(c.Summary, "not on this build") {
			seen++
			if c.Status != StatusInfo {
				t.Errorf("%s: status %s, want info", c.Name, c.Status)
			}
		}
	}
	if seen < 2 {
		t.Errorf("%d lines say not on this build, want the keep-alive and the monitor's", seen)
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings: %v", codes(res.Findings))
	}
}

// A key that was not read is unknown, never a pass.
func TestUnreadKeyIsUnknown(t *testing.T) {
	s := clusterWith(nil, nil, nil)
	s.Doctor.Config[0].Entries = nil
	res := Analyze(s, Options{})
	for _, c := range res.Checks {
		if c.Group == "FE fe1" && c.Status == StatusPass && c.Name != "session FE" {
			t.Errorf("%s: pass with nothing read (%s)", c.Name, c.Summary)
		}
	}
}

// Without the cluster's objects, a gate that is off is unknown, never a
// pass ("nothing needs it" is not known).
func TestObjectsNotReadIsUnknown(t *testing.T) {
	s := clusterWith(cfg{"enable_feature_binlog": "false"}, nil, nil)
	s.Tables, s.Streams, s.MVs, s.Consumption, s.Tasks = nil, nil, nil, nil, nil
	s.Capabilities.Sources = map[string]snapshot.SourceCapability{}
	for _, c := range Analyze(s, Options{}).Checks {
		if c.Name == "experimental_enable_feature_binlog" && c.Status != StatusUnknown {
			t.Errorf("binlog off with the objects unread: %s %q", c.Status, c.Summary)
		}
	}
}

// Every code of this package is raised by a test above.
func TestEveryCodeHasATest(t *testing.T) {
	ds, err := diagtest.DeclaredIn(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) < 18 {
		t.Errorf("%d codes declared", len(ds))
	}
}

// The statements the config rules suggest are the contract's templates
// (issue 19 item 5): a hostile MV name stays one quoted identifier and one
// statement of the printed next step.
func TestConfigNextStatements(t *testing.T) {
	hostile := "m`x\nDROP DATABASE prod; -- */"
	for _, tc := range []struct {
		name, code string
		fe         cfg
		mut        func(b *diagtest.B)
		next       string
	}{
		{"monitor off", "CONFIG_MONITOR_QUOTA", cfg{"enable_changelog_ivm_monitor": "false"}, nil,
			`ADMIN SET FRONTEND CONFIG ("enable_changelog_ivm_monitor" = "true");`},
		{"keep-alive half the TTL", "CONFIG_KEEPALIVE_TOO_SLOW", cfg{"ivm_stream_keepalive_interval_second": "43200"}, nil,
			`ADMIN SET FRONTEND CONFIG ("ivm_stream_keepalive_interval_second" = "600");`},
		{"hostile MV on a slow schedule", "CONFIG_IVM_SCHEDULE_TOO_SLOW", nil, func(b *diagtest.B) {
			schedule("BUILD IMMEDIATE REFRESH INCREMENTAL ON SCHEDULE EVERY 12 HOUR")(b)
			b.S.MVs[0].Name = hostile
		}, "ALTER MATERIALIZED VIEW `demo`.`m``x\nDROP DATABASE prod; -- */` REFRESH ON SCHEDULE EVERY 42600 SECOND;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := has(Analyze(clusterWith(tc.fe, nil, tc.mut), Options{}).Findings, tc.code)
			if f == nil {
				t.Fatalf("%s not raised", tc.code)
			}
			if f.Next != tc.next {
				t.Errorf("next\n got %q\nwant %q", f.Next, tc.next)
			}
			if steps := diag.SplitNext(f.Next); len(steps) != 1 {
				t.Errorf("next is %d steps, want one statement: %q", len(steps), steps)
			}
		})
	}
}
