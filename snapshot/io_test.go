package snapshot

import (
	"bytes"
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
