package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// handmade is a small incident-like snapshot, so the stream commands are
// tested before (and beside) the bundled scenarios.
func handmade(t *testing.T) string {
	t.Helper()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	ms := now.UnixMilli()
	ago := func(d time.Duration) tso.TSO { return tso.TSO((ms - d.Milliseconds()) << 18) }
	lag := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds()<<18, 10) }
	day, hour := int64(86400), int64(3600)
	s := &snapshot.Snapshot{SchemaVersion: 1, Source: snapshot.Source{Kind: "file"},
		Cluster: snapshot.Cluster{CurrentTSO: tso.TSO(ms << 18), Now: now, ClockSource: "scenario", Naming: "changelog"},
		Tables: []snapshot.Table{
			{DB: "demo", Name: "orders", KeyModel: "UNIQUE_KEYS", TTLSeconds: &day, PropertyNaming: "changelog"},
			{DB: "demo", Name: "payments", KeyModel: "UNIQUE_KEYS", TTLSeconds: &day, PropertyNaming: "changelog"},
			{DB: "demo", Name: "events", KeyModel: "DUP_KEYS", TTLSeconds: &hour, PropertyNaming: "changelog"},
			{DB: "demo", Name: "customers", KeyModel: "UNIQUE_KEYS", TTLSeconds: &day, PropertyNaming: "changelog"},
		},
	}
	ct, vt := ms-5*3600*1000, ms-2*3600*1000
	s.Partitions = []snapshot.Partition{{DB: "demo", Table: "events", Name: "p_new", CreateTimeMs: &ct, VisibleTimeMs: &vt}}
	st := func(id int64, name, mode, table string) *snapshot.Stream {
		s.Streams = append(s.Streams, snapshot.Stream{DB: "demo", Name: name, ID: id, ConsumeType: mode, BaseTableDB: "demo", BaseTableName: table, Enabled: true})
		return &s.Streams[len(s.Streams)-1]
	}
	cons := func(id int64, name, unit string, off *tso.TSO, l string) {
		c := snapshot.Consumption{DB: "demo", StreamName: name, StreamID: id, Unit: unit, Lag: l, ConsumptionStatus: "N/A"}
		if off != nil {
			c.ConsumptionStatus = off.String()
			c.Offset = off
			p := off.Physical()
			c.LastConsumptionTimeMs = &p
		}
		if v, ok, err := tso.ParseLag(l); err == nil && ok {
			c.LagValue = &v
		}
		s.Consumption = append(s.Consumption, c)
	}
	p := func(t tso.TSO) *tso.TSO { return &t }
	st(1, "s_orders_cdc", "MIN_DELTA", "orders")
	cons(1, "s_orders_cdc", "p20261130", p(ago(26*time.Hour)), lag(26*time.Hour-10*time.Second))
	st(2, "s_orders_audit", "DETAIL", "orders")
	cons(2, "s_orders_audit", "p20261130", p(ago(30*time.Hour)), lag(30*time.Hour-10*time.Second))
	st(3, "s_payments_etl", "APPEND_ONLY", "payments")
	cons(3, "s_payments_etl", "payments", p(ago(23*time.Hour+40*time.Minute)), lag(23*time.Hour+39*time.Minute))
	st(4, "s_events_dup", "APPEND_ONLY", "events")
	cons(4, "s_events_dup", "p_old", p(ago(time.Minute)), "0")
	cons(4, "s_events_dup", "p_new", nil, "N/A")
	st(5, "s_customers_idle", "MIN_DELTA", "customers")
	cons(5, "s_customers_idle", "customers", p(ago(30*time.Hour)), "0")
	st(6, "s_items_slow", "DETAIL", "orders")
	cons(6, "s_items_slow", "p20261130", p(ago(15*time.Minute)), lag(14*time.Minute))
	d := st(7, "s_dropped", "DETAIL", "N/A")
	d.BaseTableDB, d.BaseTableDropped, d.IsStale, d.StaleReason = "N/A", true, true, "base table dropped"
	cons(7, "s_dropped", "t", nil, "N/A")
	st(8, "s_paused", "DETAIL", "orders").Enabled = false
	cons(8, "s_paused", "p20261130", p(ago(time.Hour)), lag(time.Hour))
	st(9, "s_orders_ok", "MIN_DELTA", "orders")
	cons(9, "s_orders_ok", "p20261130", p(ago(5*time.Second)), "0")
	st(10, "__doris_ivm_stream_mv_customer_ltv_9ix_ll", "MIN_DELTA", "customers")
	cons(10, "__doris_ivm_stream_mv_customer_ltv_9ix_ll", "customers", p(ago(30*time.Hour)), "0")

	path := filepath.Join(t.TempDir(), "handmade.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := snapshot.Write(f, s); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("DORISDIAG_WRITE_HANDMADE"); out != "" {
		b, _ := os.ReadFile(path)
		_ = os.WriteFile(out, b, 0o644)
	}
	return path
}

func TestStreamsHandmadeGolden(t *testing.T) {
	path := handmade(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"streams_handmade_table.golden", []string{"streams"}, cmdutil.ExitOK},
		{"streams_handmade_wide.golden", []string{"streams", "-o", "wide"}, cmdutil.ExitOK},
		{"streams_handmade_markdown.golden", []string{"streams", "-o", "markdown"}, cmdutil.ExitOK},
		{"streams_handmade_user_cannot.golden", []string{"streams", "--kind", "user", "--state", "cannot_resume"}, cmdutil.ExitOK},
		{"streams_handmade_show_cdc.golden", []string{"streams", "show", "demo.s_orders_cdc"}, cmdutil.ExitOK},
		{"streams_handmade_show_audit.golden", []string{"streams", "show", "demo.s_orders_audit"}, cmdutil.ExitOK},
		{"streams_handmade_show_dup.golden", []string{"streams", "show", "demo.s_events_dup"}, cmdutil.ExitOK},
		{"streams_handmade_headroom_20h.golden", []string{"headroom", "--in", "20h"}, cmdutil.ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, nil, "", append(tc.args, "--snapshot", path)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

func TestStreamsJSONFields(t *testing.T) {
	path := handmade(t)
	out, errOut, code := run(t, nil, "", "streams", "-o", "json", "--snapshot", path)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "kind", "now", "current_tso", "streams", "findings", "snapshots"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
	if doc["kind"] != "streams" {
		t.Errorf("kind %v", doc["kind"])
	}
	s0 := doc["streams"].([]any)[0].(map[string]any)
	for _, k := range []string{"db", "name", "id", "kind", "consume_type", "read_mode", "state", "partitions", "pending_partitions", "max_pending_age", "next_read", "verdict"} {
		if _, ok := s0[k]; !ok {
			t.Errorf("stream JSON missing %s", k)
		}
	}
}

func TestStreamsFailOnAndUsage(t *testing.T) {
	path := handmade(t)
	if _, _, code := run(t, nil, "", "streams", "--snapshot", path, "--fail-on", "critical"); code != cmdutil.ExitFindings {
		t.Errorf("--fail-on critical: exit %d", code)
	}
	for _, args := range [][]string{
		{"streams", "--kind", "bogus"},
		{"streams", "--state", "bogus"},
		{"streams", "show", "nodot"},
		{"headroom", "--at", "x"},
		{"headroom", "--at", "2026-12-01T00:00:00Z", "--in", "1h"},
		{"headroom", "--ttl", "soon"},
	} {
		if _, stderr, code := run(t, nil, "", append(args, "--snapshot", path)...); code != cmdutil.ExitError {
			t.Errorf("%v: exit %d (%s)", args, code, stderr)
		}
	}
	if _, stderr, code := run(t, nil, "", "streams", "show", "demo.nope", "--snapshot", path); code != cmdutil.ExitError || !strings.Contains(stderr, `no stream "demo.nope"`) {
		t.Errorf("missing stream: %d %s", code, stderr)
	}
}

// TestStreamsTTYBars pins the TTY rendering: colour and a headroom bar per
// stream (full = a whole TTL, empty = expired).
func TestStreamsTTYBars(t *testing.T) {
	path := handmade(t)
	var out, errb strings.Builder
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, IsTTY: true, Getenv: func(string) string { return "" }}
	if code := Main([]string{"streams", "--snapshot", path}, ios); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "░░░░░░░░") || !strings.Contains(out.String(), "\x1b[") {
		t.Errorf("no coloured bar on a TTY:\n%s", out.String())
	}
	golden(t, "streams_handmade_tty.golden", out.String())
}

func TestStreamsScenarioGoldens(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"streams_incident.golden", []string{"streams", "--demo", "incident"}},
		{"streams_incident_wide.golden", []string{"streams", "--demo=incident", "-o", "wide"}},
		{"streams_incident.json", []string{"streams", "--demo", "incident", "-o", "json"}},
		{"streams_incident.md", []string{"streams", "--demo", "incident", "-o", "markdown"}},
		{"streams_legacy.golden", []string{"streams", "--demo", "legacy", "-o", "wide"}},
		{"streams_healthy.golden", []string{"streams", "--demo", "healthy"}},
		{"streams_incident_ivm.golden", []string{"streams", "--demo", "incident", "--kind", "ivm", "--state", "cannot_resume"}},
		{"streams_show_incident_t12.golden", []string{"streams", "show", "demo.s_events_dup", "--demo", "incident"}},
		{"streams_show_incident_cdc.golden", []string{"streams", "show", "demo.s_orders_cdc", "--demo", "incident"}},
		{"streams_show_incident_audit.golden", []string{"streams", "show", "demo.s_orders_audit", "--demo", "incident"}},
		{"streams_show_incident_idle.golden", []string{"streams", "show", "demo.s_customers_idle", "--demo", "incident"}},
		{"streams_show_incident_ivm.golden", []string{"streams", "show", "demo.__doris_ivm_stream_mv_customer_ltv_144i_vnq", "--demo", "incident"}},
		{"streams_show_incident_dropped.golden", []string{"streams", "show", "demo.s_dropped", "--demo", "incident"}},
		{"streams_show_legacy_t12.golden", []string{"streams", "show", "demo.s_events_dup", "--demo", "legacy"}},
		{"streams_show_incident_t12.json", []string{"streams", "show", "demo.s_events_dup", "--demo", "incident", "-o", "json"}},
		{"streams_show_incident_t12.md", []string{"streams", "show", "demo.s_events_dup", "--demo", "incident", "-o", "markdown"}},
		{"streams_headroom_healthy_20h.golden", []string{"headroom", "--demo", "healthy", "--in", "20h"}},
		{"streams_headroom_healthy_20h_ttl.golden", []string{"headroom", "--demo", "healthy", "--in", "20h", "--ttl", "48h", "--all"}},
		{"streams_headroom_healthy_20h.json", []string{"headroom", "--demo", "healthy", "--in", "20h", "-o", "json"}},
		{"streams_headroom_incident_at.golden", []string{"headroom", "--demo", "incident", "--at", "2026-11-30T12:00:00Z", "-o", "wide"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, nil, "", tc.args...)
			if code != cmdutil.ExitOK {
				t.Fatalf("exit %d; stderr %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

// TestStreamsWatchPipe: --watch on a pipe appends rounds, each under a
// header, and the series narrows nothing wrong (same snapshot twice).
func TestStreamsWatchPipe(t *testing.T) {
	out, errOut, code := run(t, nil, "", "streams", "--demo", "healthy", "--watch", "1ms", "--watch-rounds", "2")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Count(out, "# round ") != 2 || !strings.Contains(out, "2 snapshots in the series") || strings.Contains(out, "\x1b[") {
		t.Errorf("watch on a pipe:\n%s", out)
	}
	out, _, code = run(t, nil, "", "streams", "show", "demo.s_items_slow", "--demo", "incident", "--watch", "1ms", "--watch-rounds", "2")
	if code != cmdutil.ExitOK || strings.Count(out, "# round ") != 2 {
		t.Errorf("show --watch: exit %d\n%s", code, out)
	}
}

// streamVerdicts runs `streams -o json` with args and reduces the result to
// one line per stream: state, next read, can_resume and its finding codes
// (without the server-only SERVER_CLIENT_MISMATCH and MONITOR_STALE).
func streamVerdicts(t *testing.T, args ...string) map[string]string {
	t.Helper()
	out, errOut, code := run(t, nil, "", append([]string{"streams", "-o", "json"}, args...)...)
	if code != cmdutil.ExitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var doc struct {
		Streams []struct {
			DB, Name, State string
			NextRead        string `json:"next_read"`
			CanResume       *bool  `json:"can_resume"`
		}
		Findings []struct {
			Code   string
			Object struct{ DB, Name, Partition string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range doc.Streams {
		cr := "-"
		if s.CanResume != nil {
			cr = strconv.FormatBool(*s.CanResume)
		}
		m[s.DB+"."+s.Name] = s.State + " " + s.NextRead + " " + cr
	}
	for _, f := range doc.Findings {
		if f.Code == "SERVER_CLIENT_MISMATCH" || f.Code == "MONITOR_STALE" {
			continue // server columns exist only on the new build
		}
		k := f.Object.DB + "." + f.Object.Name
		m[k] += " " + f.Code + "[" + f.Object.Partition + "]"
	}
	return m
}

func sameVerdicts(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s: want %q, got %q", what, k, v, got[k])
		}
	}
	if len(want) != len(got) {
		t.Errorf("%s: %d streams, want %d", what, len(got), len(want))
	}
}

// TestStreamsSameVerdictsLegacy: the legacy schema (no seed columns, binlog
// naming) gives the same state and next read for every planted stream.
func TestStreamsSameVerdictsLegacy(t *testing.T) {
	sameVerdicts(t, "legacy vs incident", streamVerdicts(t, "--demo", "incident"), streamVerdicts(t, "--demo", "legacy"))
}

// TestStreamsSeriesNarrows: two --snapshot files 30 s apart, the first with
// s_items_slow still at its offset: the pending age becomes PRECISE (the
// seed's change-point rule) and show prints the rates.
func TestStreamsSeriesNarrows(t *testing.T) {
	latest := handmade(t)
	s, err := snapshot.LoadFile(latest, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Cluster.CurrentTSO -= tso.TSO(30_000 << 18)
	s.Cluster.Now = s.Cluster.Now.Add(-30 * time.Second)
	for i := range s.Consumption {
		if s.Consumption[i].StreamName == "s_items_slow" {
			zero := int64(0)
			s.Consumption[i].Lag, s.Consumption[i].LagValue = "0", &zero
		}
	}
	earlier := filepath.Join(t.TempDir(), "earlier.json")
	f, err := os.Create(earlier)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Write(f, s); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, errOut, code := run(t, nil, "", "streams", "show", "demo.s_items_slow", "--snapshot", earlier, "--snapshot", latest, "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Snapshots int
		Stream    struct {
			MaxPendingAge struct {
				Seconds   float64
				Lower     float64 `json:"lower_seconds"`
				Precision string
			} `json:"max_pending_age"`
			Rates *struct {
				ConsumerRate *float64 `json:"consumer_rate"`
				SourceRate   *float64 `json:"source_rate"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	pa := doc.Stream.MaxPendingAge
	if doc.Snapshots != 2 || pa.Precision != "PRECISE" || pa.Seconds != 30 || pa.Lower != 0 {
		t.Errorf("series: snapshots %d, pending %+v", doc.Snapshots, pa)
	}
	if doc.Stream.Rates == nil || doc.Stream.Rates.ConsumerRate == nil || *doc.Stream.Rates.ConsumerRate != 0 {
		t.Errorf("rates: %+v", doc.Stream.Rates)
	}
	text, _, _ := run(t, nil, "", "streams", "show", "demo.s_items_slow", "--snapshot", earlier, "--snapshot", latest)
	golden(t, "streams_handmade_series_show.golden", text)
}
