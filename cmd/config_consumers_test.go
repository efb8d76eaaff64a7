package cmd

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestConfigConsumers: the consumers: list of docs/consumers.md, and each
// mistake an error naming the line and the key as written.
func TestConfigConsumers(t *testing.T) {
	cfg, _, err := parseConfig([]byte(`thresholds:
  max_publish_age: 20m
consumers:
  - name: cdc
    offset_table: ops.flink_offsets
    consumer_id: job-1
    source_table: demo.orders
    increment_type: MIN-DELTA
    time_zone: Asia/Shanghai
    max_publish_age: 1h
  - {name: audit, offset_table: ops.t, consumer_id: j2, source_table: demo.orders, increment_type: detail}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []snapshot.ExternalConsumer{
		{Name: "cdc", OffsetTable: "ops.flink_offsets", ConsumerID: "job-1", SourceTable: "demo.orders", IncrementType: "min_delta", TimeZone: "Asia/Shanghai", MaxPublishAgeSeconds: 3600},
		{Name: "audit", OffsetTable: "ops.t", ConsumerID: "j2", SourceTable: "demo.orders", IncrementType: "detail"},
	}
	if len(cfg.Consumers) != 2 || cfg.Consumers[0].Name != want[0].Name || cfg.Consumers[0].IncrementType != want[0].IncrementType ||
		cfg.Consumers[0].TimeZone != want[0].TimeZone || cfg.Consumers[0].MaxPublishAgeSeconds != 3600 || cfg.Consumers[1].IncrementType != "detail" {
		t.Errorf("consumers = %+v", cfg.Consumers)
	}
	if cfg.Thresholds.MaxPublishAge == nil {
		t.Error("thresholds.max_publish_age not read")
	}
	entry := "consumers:\n  - name: cdc\n    offset_table: ops.t\n    consumer_id: j\n    source_table: demo.orders\n    increment_type: detail\n"
	for _, tc := range []struct{ yaml, want string }{
		{"consumers: cdc\n", `line 1: consumers: want a list`},
		{strings.Replace(entry, "increment_type: detail", "increment_type: delta", 1), `line 6: consumers[1].increment_type: "delta": want min_delta, detail, append_only`},
		{strings.Replace(entry, "offset_table: ops.t", "offset_table: t", 1), `line 3: consumers[1].offset_table: want db.table, got "t"`},
		{strings.Replace(entry, "    consumer_id: j\n", "", 1), `line 2: consumers[1]: missing key "consumer_id"`},
		{strings.Replace(entry, "name: cdc", "name: cdc\n    time_zone: Mars/Olympus", 1), `line 3: consumers[1].time_zone: "Mars/Olympus": want an IANA name`},
		{strings.Replace(entry, "name: cdc", "nmae: cdc", 1), `unknown key "consumers[1].nmae"; did you mean "name"?`},
		{entry + "  - {name: cdc, offset_table: ops.t, consumer_id: k, source_table: demo.orders, increment_type: detail}\n", `consumers[2].name: consumer "cdc" given twice`},
		{strings.Replace(entry, "name: cdc", "name: \"a\\nb\"", 1), `consumers[1].name: want a non-empty name on one line`},
	} {
		_, _, err := parseConfig([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
