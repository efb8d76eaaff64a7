package snapshot

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/tso"
)

func minimal(t *testing.T) []byte {
	t.Helper()
	cur, err := tso.FromTime(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Snapshot{Cluster: Cluster{CurrentTSO: cur}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLoadRoundTrip(t *testing.T) {
	data := minimal(t)
	s, err := Load(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.SchemaVersion != SchemaVersion || !s.Cluster.Now.Equal(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("loaded %+v", s.Cluster)
	}
	if !strings.Contains(string(data), `"current_tso": "470819222323200000"`) {
		t.Errorf("TSO not written as a decimal string:\n%s", data)
	}
}

func TestLoadRefuses(t *testing.T) {
	good := minimal(t)
	for _, tc := range []struct {
		name, data string
		max        int64
		want       string
	}{
		{"over the size limit", string(good), int64(len(good)) - 1, "larger than the"},
		{"newer schema_version", strings.Replace(string(good), `"schema_version": 1`, `"schema_version": 99`, 1), 0, "newer than this dorisdiag reads"},
		{"trailing data", string(good) + `{"x":1}`, 0, "trailing data"},
		{"trailing garbage", string(good) + "garbage", 0, ""},
		{"no schema_version", `{"cluster":{}}`, 0, "no schema_version"},
		{"zero schema_version", `{"schema_version":0}`, 0, "invalid"},
		{"not JSON", `SELECT 1`, 0, "not a dorisdiag snapshot"},
		{"not a real TSO", `{"schema_version":1,"cluster":{"current_tso":"-1"}}`, 0, "not a real TSO"},
		{"TSO as float", `{"schema_version":1,"cluster":{"current_tso":4.7e17}}`, 0, "TSO"},
		{"empty", ``, 0, "not a dorisdiag snapshot"},
		{"TSO of 1970", `{"schema_version":1,"cluster":{"current_tso":"1"}}`, 0, "not a plausible cluster clock"},
		{"TSO of year 3084", `{"schema_version":1,"cluster":{"current_tso":"9223372036854775806"}}`, 0, "not a plausible cluster clock"},
	} {
		_, err := Load(strings.NewReader(tc.data), tc.max)
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

// TestLoadExactlyAtLimit: a file of exactly maxBytes is accepted.
func TestLoadExactlyAtLimit(t *testing.T) {
	good := minimal(t)
	if _, err := Load(bytes.NewReader(good), int64(len(good))); err != nil {
		t.Fatal(err)
	}
}

// TestValidateCountsUninterpretableValues: values no diagnosis can use are
// nil-ed (or the row left out) and counted in Malformed — never used as if
// real (a TTL whose ttl*1000 overflows printed as "-1s", a server age of
// 1e308 s printed as -106751991167d, a task created in year 292277026596),
// never silently dropped — and a second Validate adds nothing.
func TestValidateCountsUninterpretableValues(t *testing.T) {
	const js = `{"schema_version":1,
 "cluster":{"current_tso":"470819222323200000","now":"1970-01-01T00:00:00Z"},
 "tables":[{"db":"d","name":"t","ttl_seconds":9223372036854775807},{"db":"d","name":"ok","ttl_seconds":86400}],
 "streams":[{"db":"d","name":"s","id":7,"max_pending_age_seconds":1e308,"min_retention_headroom_seconds":-5},
            {"db":"d","name":"s_again","id":7}],
 "consumption":[{"db":"d","stream_name":"s","stream_id":7,"unit":"p","consumption_status":"N/A","lag":"N/A",
                 "pending_age_seconds":-1e300,"last_consumption_time_ms":-9223372036854775808},
                {"db":"d","stream_name":"s","stream_id":7,"unit":"p","consumption_status":"N/A","lag":"N/A"}],
 "tasks":[{"task_id":1,"mv_id":1,"mv_name":"m","mv_database_name":"d","status":"RUNNING",
           "create_time_ms":9223372036854775807,"start_time_ms":1796032700000,"duration_ms":-1}],
 "ivm_mv_status":[{"db":"d","mv_name":"m","mv_id":1,"freshness_state":"LAGGING","data_delay_seconds":1e308,"consecutive_failures":-9223372036854775808}]}`
	s, err := Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC); !s.Cluster.Now.Equal(want) {
		t.Errorf("Now = %s, want physical(current_tso) %s", s.Cluster.Now, want)
	}
	if s.Tables[0].TTLSeconds != nil || s.Tables[1].TTLSeconds == nil {
		t.Errorf("TTLs = %v, %v; want the overflowing one nil, the other kept", s.Tables[0].TTLSeconds, s.Tables[1].TTLSeconds)
	}
	if len(s.Streams) != 1 || s.Streams[0].Name != "s" || s.Streams[0].MaxPendingAgeSeconds != nil || s.Streams[0].MinRetentionHeadroomSeconds == nil {
		t.Errorf("streams = %+v", s.Streams)
	}
	if len(s.Consumption) != 1 {
		t.Errorf("consumption rows = %d, want the duplicate (stream, unit) left out", len(s.Consumption))
	}
	c := s.Consumption[0]
	if c.PendingAgeSeconds != nil || c.LastConsumptionTimeMs != nil {
		t.Errorf("consumption = %+v", c)
	}
	tk := s.Tasks[0]
	if tk.CreateTimeMs != nil || tk.StartTimeMs == nil || tk.DurationMs != nil {
		t.Errorf("task = %+v", tk)
	}
	if s.MVStatus[0].DataDelaySeconds != nil || s.MVStatus[0].ConsecutiveFailures != nil {
		t.Errorf("data_delay_seconds kept: %v", *s.MVStatus[0].DataDelaySeconds)
	}
	cols := map[string]bool{}
	for _, m := range s.Malformed {
		cols[m.Source+" "+m.Column] = true
	}
	for _, want := range []string{"snapshot now", SourceTableProperties + " ttl_seconds", SourceTableStreams + " STREAM_ID",
		SourceTableStreams + " MAX_PENDING_AGE_SECONDS", SourceTableStreamConsumption + " PENDING_AGE_SECONDS", SourceTableStreamConsumption + " UNIT",
		SourceTableStreamConsumption + " LAST_CONSUMPTION_TIME", SourceTasks + " CreateTime", SourceTasks + " DurationMs",
		SourceIVMMVStatus + " DATA_DELAY_SECONDS", SourceIVMMVStatus + " CONSECUTIVE_FAILURES"} {
		if !cols[want] {
			t.Errorf("malformed does not count %q: %+v", want, s.Malformed)
		}
	}
	n := len(s.Malformed)
	if err := s.Validate(); err != nil || len(s.Malformed) != n {
		t.Errorf("second Validate: err %v, malformed %d → %d", err, n, len(s.Malformed))
	}
}

// TestValidateCountsTSOAfterClock: an offset or partition end more than a
// day after current_tso is counted (diag reads it as unknown).
func TestValidateCountsTSOAfterClock(t *testing.T) {
	s, err := Decode([]byte(`{"schema_version":1,"cluster":{"current_tso":"470819222323200000"},
 "consumption":[{"db":"d","stream_name":"s","stream_id":1,"unit":"p","consumption_status":"570819222323200000",
  "offset":"570819222323200000","lag":"0","source_end_tso":"470819222323200001"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Malformed) != 1 || s.Malformed[0].Column != "CONSUMPTION_STATUS" {
		t.Errorf("malformed = %+v, want the offset counted once", s.Malformed)
	}
}

// TestLoadFileRefusesBeforeReading: a directory, a device and a file over
// the limit are refused from their metadata, without reading them
// (/dev/zero used to be read up to the limit: 1.2 GB resident). A FIFO:
// TestLoadFileRefusesFIFO.
func TestLoadFileRefusesBeforeReading(t *testing.T) {
	dir := t.TempDir()
	big := dir + "/big.json"
	if err := os.WriteFile(big, append(minimal(t), bytes.Repeat([]byte(" "), 64)...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, "is a directory, not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{big, "larger than the 16-byte limit"},
	} {
		if tc.path == "/dev/zero" {
			if _, err := os.Stat(tc.path); err != nil {
				continue
			}
		}
		_, err := LoadFile(tc.path, 16)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestCreateTimeZeroLoadsAsUnknown: a saved snapshot with create_time_ms 0
// (real Doris CREATE_TIME) loads as unknown, not 1970-01-01 and not
// malformed; a pre-2000 value is malformed and unknown.
func TestCreateTimeZeroLoadsAsUnknown(t *testing.T) {
	doc := `{"schema_version":1,"cluster":{"current_tso":"470819222323200000"},"could_not_read":[],
	"partitions":[{"db":"d","table":"t","name":"p0","create_time_ms":0},{"db":"d","table":"t","name":"p1","create_time_ms":1700000000}]}`
	s, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s.Partitions[0].CreateTimeMs != nil || s.Partitions[1].CreateTimeMs != nil {
		t.Errorf("create times kept: %v %v", s.Partitions[0].CreateTimeMs, s.Partitions[1].CreateTimeMs)
	}
	if len(s.Malformed) != 1 || s.Malformed[0].Row != "d.t p1" {
		t.Errorf("malformed %+v, want only p1 (seconds, not ms)", s.Malformed)
	}
}

// Issue 12: a snapshot file names its kind like every other dorisdiag JSON
// document; files written before that (no kind) still load; a document of
// another kind (a check report saved by mistake) is refused by name.
func TestSnapshotKind(t *testing.T) {
	good := minimal(t)
	if !bytes.HasPrefix(good, []byte("{\n  \"schema_version\": 1,\n  \"kind\": \"snapshot\",\n")) {
		t.Fatalf("Write does not put \"kind\": \"snapshot\" next to schema_version:\n%.200s", good)
	}
	legacy := strings.Replace(string(good), "  \"kind\": \"snapshot\",\n", "", 1)
	if legacy == string(good) {
		t.Fatal("test setup: kind line not found")
	}
	s, err := Load(strings.NewReader(legacy), 0)
	if err != nil {
		t.Fatalf("a snapshot without kind (older file) is refused: %v", err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("{\n  \"schema_version\": 1,\n  \"kind\": \"snapshot\",\n")) {
		t.Errorf("an older file rewritten does not gain its kind:\n%.200s", buf.Bytes())
	}
	for _, kind := range []string{`"check"`, `""`, `"Snapshot"`} {
		bad := strings.Replace(string(good), `"kind": "snapshot"`, `"kind": `+kind, 1)
		_, err := Load(strings.NewReader(bad), 0)
		if err == nil || !strings.Contains(err.Error(), "not a dorisdiag snapshot: kind is "+kind) {
			t.Errorf("kind %s: got %v, want a refusal naming the kind", kind, err)
		}
	}
	if _, err := Load(strings.NewReader(strings.Replace(string(good), `"kind": "snapshot"`, `"kind": 1`, 1)), 0); err == nil {
		t.Error("a numeric kind is accepted")
	}
}
