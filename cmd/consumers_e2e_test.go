package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/doris/doristest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

type consumersJSON struct {
	Consumers []struct {
		Name            string   `json:"name"`
		State           string   `json:"state"`
		TimeZone        string   `json:"time_zone"`
		TimeZoneSource  string   `json:"time_zone_source"`
		OffsetTimestamp string   `json:"offset_timestamp"`
		OffsetUTC       string   `json:"offset_utc"`
		HeadroomSeconds *float64 `json:"headroom_seconds"`
		Error           string   `json:"error"`
		Restart         struct {
			Options []string `json:"options"`
			Now     string   `json:"now"`
			In      string   `json:"in"`
		} `json:"restart"`
	} `json:"consumers"`
	Findings []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Object   struct {
			Name string `json:"name"`
		} `json:"object"`
	} `json:"findings"`
}

// offsetRows are a DUPLICATE offset table's history of one consumer: the
// newest offset ago before now, and three older ones a minute apart, in
// zone loc (as the connector's session wrote them).
func offsetRows(id string, now time.Time, ago time.Duration, loc *time.Location) []emulator.OffsetRow {
	var rows []emulator.OffsetRow
	for i := 3; i >= 0; i-- {
		t := now.Add(-ago - time.Duration(i)*time.Minute)
		rows = append(rows, emulator.OffsetRow{ConsumerID: id, OffsetTimestamp: t.In(loc).Format("2006-01-02 15:04:05"),
			UpdateTime: now.Add(-time.Duration(i) * time.Minute).Add(-30 * time.Second).In(loc).Format("2006-01-02 15:04:05.000")})
	}
	return rows
}

// TestConsumersE2EEmulator is issue 23's "done when" over the real MySQL
// wire: against the emulator, a consumer whose offset is past the TTL is
// rejected (min_delta) or clipped (detail) with the headroom within a
// second of the planner's formula, a current one is fine, an unreadable
// offset table is a finding, and offsets written in a non-UTC session zone
// are read in it.
func TestConsumersE2EEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	for _, zone := range []string{"+00:00", "Asia/Shanghai"} {
		t.Run(zone, func(t *testing.T) {
			snap := emulator.Sample() // demo.orders: changelog.ttl_seconds 86400
			loc, ok := snapshot.ParseTimeZone(zone)
			if !ok {
				t.Fatal(zone)
			}
			now := snap.Cluster.CurrentTSO.Time()
			var rows []emulator.OffsetRow
			rows = append(rows, offsetRows("job-expired", now, 26*time.Hour, loc)...)
			rows = append(rows, offsetRows("job-clipped", now, 30*time.Hour, loc)...)
			rows = append(rows, offsetRows("job-current", now, 2*time.Minute, loc)...)
			e, err := emulator.New(snap, emulator.Options{QueryLog: true, TimeZone: zone,
				OffsetTables: []emulator.OffsetTable{{DB: "ops", Name: "flink_offsets", Rows: rows}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			host, port, _ := strings.Cut(e.Addr(), ":")
			_, hport, _ := strings.Cut(e.HTTPAddr(), ":")
			cfg := filepath.Join(t.TempDir(), "dorisdiag.yaml")
			if err := os.WriteFile(cfg, []byte(`consumers:
  - {name: cdc-expired, offset_table: ops.flink_offsets, consumer_id: job-expired, source_table: demo.orders, increment_type: min_delta}
  - {name: audit-clipped, offset_table: ops.flink_offsets, consumer_id: job-clipped, source_table: demo.orders, increment_type: detail}
  - {name: search-current, offset_table: ops.flink_offsets, consumer_id: job-current, source_table: demo.orders, increment_type: detail}
  - {name: lost-table, offset_table: ops.no_such_table, consumer_id: job-x, source_table: demo.orders, increment_type: append_only}
`), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, nil, "", "consumers", "--host", host, "--port", port, "--http-port", hport, "--config", cfg, "--in", "8h", "-o", "json")
			if code != cmdutil.ExitFindings {
				t.Fatalf("exit %d, want %d (critical findings): %s", code, cmdutil.ExitFindings, errOut)
			}
			var doc consumersJSON
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			// The planner's formula: headroom = offset_ms − (ref_ms − ttl·1000).
			want := map[string]struct {
				state, now, in string
				headroom       float64
			}{
				"cdc-expired":    {"rejected", "rejected", "rejected", (-26*time.Hour + 24*time.Hour).Seconds()},
				"audit-clipped":  {"clipped", "clipped", "clipped", (-30*time.Hour + 24*time.Hour).Seconds()},
				"search-current": {"ok", "ok", "ok", (24*time.Hour - 2*time.Minute).Seconds()},
			}
			seen := 0
			for _, c := range doc.Consumers {
				if c.Name == "lost-table" {
					if c.State != "unreadable" || c.Error == "" || c.HeadroomSeconds != nil {
						t.Errorf("unreadable offset table: %+v", c)
					}
					continue
				}
				w, ok := want[c.Name]
				if !ok {
					t.Errorf("unexpected consumer %q", c.Name)
					continue
				}
				seen++
				if c.State != w.state || c.Restart.Now != w.now || c.Restart.In != w.in {
					t.Errorf("%s: state %s now %s in %s, want %s %s %s", c.Name, c.State, c.Restart.Now, c.Restart.In, w.state, w.now, w.in)
				}
				if c.HeadroomSeconds == nil || math.Abs(*c.HeadroomSeconds-w.headroom) >= 1 {
					t.Errorf("%s: headroom %v, want %v within 1 s", c.Name, c.HeadroomSeconds, w.headroom)
				}
				if c.TimeZone != zone || c.TimeZoneSource != "session" {
					t.Errorf("%s: zone %q (%s), want the session's %q", c.Name, c.TimeZone, c.TimeZoneSource, zone)
				}
				if len(c.Restart.Options) != 2 || c.Restart.Options[1] != "source.scan.timestamp="+c.OffsetTimestamp {
					t.Errorf("%s: restart %v, want source.scan.timestamp=%s", c.Name, c.Restart.Options, c.OffsetTimestamp)
				}
			}
			if seen != 3 {
				t.Errorf("saw %d of the 3 readable consumers: %s", seen, out)
			}
			codes := map[string]string{}
			for _, f := range doc.Findings {
				codes[f.Object.Name] += f.Code + " "
			}
			for name, code := range map[string]string{"cdc-expired": "CONSUMER_OFFSET_EXPIRED_REJECTED", "audit-clipped": "CONSUMER_OFFSET_EXPIRED_CLIPPED", "lost-table": "CONSUMER_OFFSET_TABLE_UNREADABLE"} {
				if !strings.Contains(codes[name], code) {
					t.Errorf("%s: findings %q, want %s", name, codes[name], code)
				}
			}
			if codes["search-current"] != "" {
				t.Errorf("the current consumer has findings: %s", codes["search-current"])
			}
			// Every statement sent is in the wire contract, and one read
			// per consumer went to the offset table.
			n := 0
			for _, q := range e.Queries() {
				rel, _, ok := doristest.Match(q)
				if !ok {
					t.Errorf("statement not in the wire contract: %s", q)
					continue
				}
				if rel.Source == "offset table" {
					n++
				}
			}
			if n != 4 {
				t.Errorf("%d offset-table reads, want 4", n)
			}
		})
	}
}

// consumersConfig writes a config file declaring snap's external consumers
// (docs/consumers.md "Config"); "" when it has none.
func consumersConfig(t *testing.T, snap *snapshot.Snapshot) string {
	t.Helper()
	if len(snap.ExternalConsumers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("consumers:\n")
	for _, c := range snap.ExternalConsumers {
		fmt.Fprintf(&b, "  - {name: %q, offset_table: %q, consumer_id: %q, source_table: %q, increment_type: %s", c.Name, c.OffsetTable, c.ConsumerID, c.SourceTable, c.IncrementType)
		if c.TimeZone != "" {
			fmt.Fprintf(&b, ", time_zone: %q", c.TimeZone)
		}
		b.WriteString("}\n")
	}
	path := filepath.Join(t.TempDir(), "consumers.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
