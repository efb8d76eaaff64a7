package collect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/scrape/collect"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/roundtrip"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestTimeoutSilentListener: an FE that accepts the connection and never
// answers makes Collect fail within --timeout, naming the host (seed 002
// measured a silent hang; design.md "Timeouts on every network hop").
func TestTimeoutSilentListener(t *testing.T) {
	addr := testnet.SilentListener(t)
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	done := make(chan error, 1)
	go func() {
		_, err := collect.Collect(context.Background(), scrape.Config{Host: host, Port: p, HTTPPort: 1, Timeout: 300 * time.Millisecond})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Collect against a silent listener succeeded")
		}
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("error does not name the host %s: %v", addr, err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("Collect hung on a silent listener")
	}
}

// TestPasswordNeverAppears: the password is in no snapshot, no error and no
// gap — neither when it is right nor when it is wrong.
func TestPasswordNeverAppears(t *testing.T) {
	const secret = "Zq9-s3cr3t-p4ss"
	snap := emulator.Sample()
	_, cfg := startEmulator(t, snap, emulator.Options{User: "diag", Password: secret})
	cfg.Password = secret
	cfg.WithMetrics = true
	got := collectLive(t, cfg)
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), secret) {
		t.Fatal("the snapshot contains the password")
	}
	if got.Source.User != "diag" {
		t.Errorf("source user %q", got.Source.User)
	}

	// A wrong password: the error names the host, never the password tried.
	wrong := "Wr0ng-" + secret
	cfg.Password = wrong
	_, err := collect.Collect(context.Background(), cfg)
	if err == nil {
		t.Fatal("a wrong password was accepted")
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), secret) {
		t.Fatalf("the error carries the password: %v", err)
	}

	// The HTTP clock fallback sends the password as basic auth: its errors
	// must not carry it either.
	_, cfg2 := startEmulator(t, snap, emulator.Options{NoTSOStatus: true, NoShowTSO: true})
	cfg2.Password = secret
	cfg2.HTTPPort = 1 // nothing listens: the fallback fails
	_, err = collect.Collect(context.Background(), cfg2)
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("clock fallback error: %v", err)
	}
}

// scaled returns the sample with every stream, consumption row, MV, job,
// task and table repeated k times under new names in the same databases.
func scaled(k int) *snapshot.Snapshot {
	s := emulator.Sample()
	base := *s
	for i := 1; i < k; i++ {
		suf := fmt.Sprintf("_%d", i)
		for _, st := range base.Streams {
			st.Name += suf
			st.ID += int64(i) * 100000
			if !st.BaseTableDropped {
				st.BaseTableName += suf
			}
			s.Streams = append(s.Streams, st)
		}
		for _, c := range base.Consumption {
			c.StreamName += suf
			c.StreamID += int64(i) * 100000
			s.Consumption = append(s.Consumption, c)
		}
		for _, t := range base.Tables {
			t.Name += suf
			s.Tables = append(s.Tables, t)
		}
		for _, m := range base.MVs {
			m.Name += suf
			m.ID += int64(i) * 100000
			s.MVs = append(s.MVs, m)
		}
		for _, j := range base.Jobs {
			j.MVName += suf
			j.MVID += int64(i) * 100000
			j.ID += int64(i) * 100000
			s.Jobs = append(s.Jobs, j)
		}
		for _, tk := range base.Tasks {
			tk.MVName += suf
			tk.MVID += int64(i) * 100000
			tk.TaskID += int64(i) * 100000
			s.Tasks = append(s.Tasks, tk)
		}
	}
	return s
}

// TestQueryCountConstant: the statements sent do not grow with the number
// of streams, MVs or tasks — only with the databases that hold MVs (one
// mv_infos() each) and, for S5, with the changelog tables of databases whose
// BinlogSize is not 0 (one SHOW DATA FROM db.tbl each, at most MaxShowData).
func TestQueryCountConstant(t *testing.T) {
	count := func(s *snapshot.Snapshot) ([]string, *snapshot.Snapshot) {
		e, cfg := startEmulator(t, s, emulator.Options{QueryLog: true})
		got := collectLive(t, cfg)
		return e.Queries(), got
	}
	small, _ := count(scaled(1))
	large, got := count(scaled(40))
	if len(got.Streams) != 160 || len(got.Tasks) != 80 {
		t.Errorf("scaled collection read %d streams, %d tasks", len(got.Streams), len(got.Tasks))
	}
	// 2 session/probe + 1 clock + 2 SHOW FRONTENDS/BACKENDS + 2 streams +
	// jobs + tasks + 2 seed tables + 4 table sources = 15 fixed, plus one
	// mv_infos() per database (2 here), one SHOW DATA PROPERTIES, and one
	// SHOW DATA per database with changelog tables (2), on a session whose
	// current database is it: the same at 40× the objects.
	if want := 15 + 2 + 1 + 2; len(small) != want {
		t.Errorf("statements: %d, want %d:\n%s", len(small), want, strings.Join(small, "\n"))
	}
	if want := 15 + 2 + 1 + 2; len(large) != want {
		t.Errorf("statements at 40×: %d, want %d", len(large), want)
	}
}

// TestTasksWindow: only the latest TasksPerMV tasks of each MV are kept.
func TestTasksWindow(t *testing.T) {
	s := emulator.Sample()
	base := s.Tasks[0]
	for i := 1; i <= 30; i++ {
		tk := base
		tk.TaskID = 10000 + int64(i)
		ct := *tk.CreateTimeMs - int64(i)*60000
		tk.CreateTimeMs = &ct
		s.Tasks = append(s.Tasks, tk)
	}
	_, cfg := startEmulator(t, s, emulator.Options{})
	cfg.TasksPerMV = 5
	got := collectLive(t, cfg)
	per := map[int64]int{}
	for _, tk := range got.Tasks {
		per[tk.MVID]++
	}
	if per[7001] != 5 {
		t.Errorf("mv 7001: %d tasks, want 5", per[7001])
	}
	if got.Tasks[0].TaskID != 9002 {
		t.Errorf("newest task first: got %d", got.Tasks[0].TaskID)
	}
}

// TestClockFallbacks: without tso_status the collector reads SHOW TSO
// STATUS, then GET /api/tso, and says which clock it used.
func TestClockFallbacks(t *testing.T) {
	want := emulator.Sample().Cluster.CurrentTSO
	for _, tc := range []struct {
		opts  emulator.Options
		clock string
	}{
		{emulator.Options{}, snapshot.SourceTSOStatus},
		{emulator.Options{NoTSOStatus: true}, snapshot.SourceShowTSOStatus},
		{emulator.Options{NoTSOStatus: true, NoShowTSO: true, Legacy: true}, snapshot.SourceHTTPTSO},
	} {
		_, cfg := startEmulator(t, emulator.Sample(), tc.opts)
		got := collectLive(t, cfg)
		if got.Cluster.ClockSource != tc.clock || got.Cluster.CurrentTSO != want {
			t.Errorf("%+v: clock %q %d, want %q %d", tc.opts, got.Cluster.ClockSource, got.Cluster.CurrentTSO, tc.clock, want)
		}
	}
}

// TestFailingSourceIsAGap: a source the build lacks becomes an entry of
// could_not_read; everything else still lands.
func TestFailingSourceIsAGap(t *testing.T) {
	s := emulator.Sample()
	s.Capabilities.Sources = map[string]snapshot.SourceCapability{
		snapshot.SourceTasks:                  {Present: false},
		snapshot.SourceTableStreamConsumption: {Present: false},
	}
	_, cfg := startEmulator(t, s, emulator.Options{})
	got := collectLive(t, cfg)
	gaps := map[string]bool{}
	for _, g := range got.CouldNotRead {
		gaps[g.Source] = true
	}
	if !gaps[snapshot.SourceTasks] || !gaps[snapshot.SourceTableStreamConsumption] {
		t.Errorf("gaps %+v, want tasks() and table_stream_consumption", got.CouldNotRead)
	}
	if len(got.Streams) != 4 || len(got.MVs) != 2 || len(got.Jobs) != 2 {
		t.Errorf("other sources did not land: %d streams, %d MVs, %d jobs", len(got.Streams), len(got.MVs), len(got.Jobs))
	}
	if got.Capabilities.Sources[snapshot.SourceTableStreamConsumption].Present {
		t.Error("table_stream_consumption recorded as present")
	}
}

// TestMalformedValuesAreCounted: a value the collector cannot read is nil
// in its row and listed in malformed, never dropped silently.
func TestMalformedValuesAreCounted(t *testing.T) {
	s := emulator.Sample()
	s.Consumption[0].ConsumptionStatus = "12abc"
	s.Consumption[0].Lag = "lots"
	_, cfg := startEmulator(t, s, emulator.Options{})
	got := collectLive(t, cfg)
	cols := map[string]bool{}
	for _, m := range got.Malformed {
		cols[m.Column] = true
	}
	if !cols["CONSUMPTION_STATUS"] || !cols["LAG"] {
		t.Errorf("malformed %+v, want CONSUMPTION_STATUS and LAG", got.Malformed)
	}
	if got.Consumption[0].Offset != nil || got.Consumption[0].ConsumptionStatus != "12abc" {
		t.Errorf("malformed offset: %+v (raw text must be kept, offset nil)", got.Consumption[0])
	}
}

// TestShowCreateTableFallback: on a build without table_properties, the
// TTL comes from SHOW CREATE TABLE — one per base table, bounded.
func TestShowCreateTableFallback(t *testing.T) {
	s := emulator.Sample()
	s.Capabilities.Sources = map[string]snapshot.SourceCapability{snapshot.SourceTableProperties: {Present: false}}
	_, cfg := startEmulator(t, s, emulator.Options{})
	got := collectLive(t, cfg)
	if len(got.CouldNotRead) != 0 {
		t.Errorf("gaps: %+v", got.CouldNotRead)
	}
	for _, tb := range got.Tables {
		if tb.TTLSource != "SHOW CREATE TABLE" || tb.TTLSeconds == nil || tb.ChangelogEnabled == nil || !*tb.ChangelogEnabled {
			t.Errorf("%s.%s: ttl %v from %q", tb.DB, tb.Name, tb.TTLSeconds, tb.TTLSource)
		}
	}
	diffJSON(t, "show create fallback", roundtrip.Comparable(s, false), roundtrip.Comparable(got, false))

	cfg.MaxShowCreate = 1
	got = collectLive(t, cfg)
	if len(got.CouldNotRead) != 1 || got.CouldNotRead[0].Source != snapshot.SourceShowCreateTable {
		t.Errorf("over the limit: gaps %+v, want one SHOW CREATE TABLE entry", got.CouldNotRead)
	}
}
