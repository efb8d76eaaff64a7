package snapshot

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/tso"
)

func normBase(t *testing.T) *Snapshot {
	t.Helper()
	cur, err := tso.FromTime(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), 0)
	if err != nil {
		t.Fatal(err)
	}
	return &Snapshot{SchemaVersion: 1, Cluster: Cluster{CurrentTSO: cur}}
}

func malformedOf(s *Snapshot, col string) *Malformed {
	for i := range s.Malformed {
		if s.Malformed[i].Column == col {
			return &s.Malformed[i]
		}
	}
	return nil
}

// TestTTL7dIsMalformedNotDefault: a ttl_seconds the collector cannot read
// used to become the 86400 default (scrape deriveTTL), and every headroom
// was computed from it. It is malformed and unknown — on the live path and
// when an old snapshot that carried the default is loaded.
func TestTTL7dIsMalformedNotDefault(t *testing.T) {
	def := int64(86400)
	s := normBase(t)
	s.Tables = []Table{{DB: "demo", Name: "orders", TTLSource: "default", TTLSeconds: &def,
		Properties: map[string]string{"binlog.enable": "true", "binlog.ttl_seconds": "7d"}}}
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tb := got.Tables[0]
	if tb.TTLSeconds != nil {
		t.Fatalf("TTLSeconds = %d from ttl_seconds \"7d\", want unknown (nil)", *tb.TTLSeconds)
	}
	if tb.TTLSource == "default" {
		t.Error(`TTLSource "default": a malformed TTL is not an absent one`)
	}
	if tb.ChangelogEnabled == nil || !*tb.ChangelogEnabled || tb.PropertyNaming != "binlog" || got.Cluster.Naming != "binlog" {
		t.Errorf("enable/naming lost: %+v naming %q", tb, got.Cluster.Naming)
	}
	m := malformedOf(got, "binlog.ttl_seconds")
	if m == nil || m.Value != "7d" || m.Row != "demo.orders" || m.Source != SourceTableProperties {
		t.Fatalf("malformed entry: %+v (all %+v)", m, got.Malformed)
	}
	// Idempotent: Validate again adds nothing.
	n := len(got.Malformed)
	if err := got.Validate(); err != nil || len(got.Malformed) != n || got.Tables[0].TTLSeconds != nil {
		t.Errorf("second Validate: err %v, malformed %d → %d", err, n, len(got.Malformed))
	}

	// The default still applies when the TTL property is absent.
	s = normBase(t)
	s.Tables = []Table{{DB: "demo", Name: "t", Properties: map[string]string{"binlog.enable": "true"}}}
	s.Normalize()
	if tt := s.Tables[0]; tt.TTLSeconds == nil || *tt.TTLSeconds != 86400 || tt.TTLSource != "default" {
		t.Errorf("absent ttl_seconds: %+v, want the 86400 default, said so", tt)
	}
}

// TestNormalizeMVAndTasks: the raw text is kept, the typed fields are
// filled on load, and what does not parse is counted.
func TestNormalizeMVAndTasks(t *testing.T) {
	s := normBase(t)
	s.MVs = []MVInfo{
		{ID: 1, DB: "shop", Name: "mv1", RefreshInfo: "BUILD IMMEDIATE REFRESH INCREMENTAL ON COMMIT",
			MvProperties: "{excluded_trigger_tables=shop.t1,shop.t2, partition_sync_limit=100}", RefreshState: `\N`},
		{ID: 2, DB: "shop", Name: "mv2", RefreshInfo: `\N`, MvProperties: "not a map", IvmBaseTableStreams: "[1,2]"},
	}
	s.Tasks = []Task{
		{TaskID: 10, MVID: 1, MVName: "mv1", MVDatabaseName: "shop", Status: "SUCCESS", TaskContext: `{"triggerMode":"commit","partitions":["p1"]}`,
			RefreshMode: `\N`, ErrorMsg: "NULL", IvmRefreshMethod: ptrS(`\N`)},
		{TaskID: 11, MVID: 1, MVName: "mv1", MVDatabaseName: "shop", Status: "FAILED", TaskContext: "{oops"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"Refresh"`) || strings.Contains(buf.String(), "excluded_trigger_tables\":[") {
		t.Fatal("derived fields must not be written into a snapshot")
	}
	got, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m := got.MVs[0]
	if m.MvProperties != s.MVs[0].MvProperties || m.RefreshInfo != s.MVs[0].RefreshInfo {
		t.Error("raw text not kept")
	}
	if !m.Refresh.IsIncremental() || m.Refresh.Trigger != "COMMIT" || m.RefreshState != "" {
		t.Errorf("MV 1: refresh %+v, RefreshState %q", m.Refresh, m.RefreshState)
	}
	if !m.Properties.IsExcluded("shop", "t1") || !m.Properties.IsExcluded("shop", "t2") || m.Properties.Properties["partition_sync_limit"] != "100" {
		t.Errorf("MV 1 properties: %+v", m.Properties)
	}
	if mm := malformedOf(got, "MvProperties"); mm == nil || mm.Value != "not a map" || mm.Row != "shop.mv2" || mm.Source != SourceMVInfos {
		t.Errorf("malformed MvProperties: %+v", mm)
	}
	if mm := malformedOf(got, "IvmBaseTableStreams"); mm == nil || got.MVs[1].BaseTableStreams.Readable || !got.MVs[1].BaseTableStreams.Present {
		t.Errorf("malformed IvmBaseTableStreams: %+v, %+v", mm, got.MVs[1].BaseTableStreams)
	}
	tk := got.Tasks[0]
	if tk.Context.TriggerMode != "COMMIT" || len(tk.Context.Partitions) != 1 || tk.RefreshMode != "" || tk.ErrorMsg != "" || tk.IvmRefreshMethod != nil {
		t.Errorf("task 10: %+v", tk)
	}
	if mm := malformedOf(got, "TaskContext"); mm == nil || mm.Value != "{oops" || !strings.Contains(mm.Row, "task 11") {
		t.Errorf("malformed TaskContext: %+v", mm)
	}
}

func ptrS(s string) *string { return &s }

// TestNormalizeOpenSeedColumns: the seed's count-or-list columns, as a
// BIGINT (text "0", "2") and as a list.
func TestNormalizeOpenSeedColumns(t *testing.T) {
	s := normBase(t)
	zero := int64(0)
	s.MVStatus = []MVStatus{
		{DB: "d", MVName: "count0", ExcludedOutdatedDependencies: "0", DirtyPartitions: "0", LaggingDependencies: "0", PendingPublishTxnsText: "0"},
		{DB: "d", MVName: "count2", ExcludedOutdatedDependencies: "2", PendingPublishTxnsText: "3"},
		{DB: "d", MVName: "list", ExcludedOutdatedDependencies: "d.a,d.b", DirtyPartitions: `["p1"]`, PendingPublishTxnsText: "txn1,txn2"},
		{DB: "d", MVName: "old", PendingPublishTxns: &zero},
		{DB: "d", MVName: "bad", ExcludedOutdatedDependencies: "-4"},
	}
	s.Normalize()
	c0, c2, l, old, bad := s.MVStatus[0], s.MVStatus[1], s.MVStatus[2], s.MVStatus[3], s.MVStatus[4]
	if !c0.ExcludedOutdated.None() || c0.ExcludedOutdated.Shape != ShapeCount || !c0.Dirty.None() || !c0.Lagging.None() || !c0.PendingPublish.None() {
		t.Errorf("count 0 must be none: %+v", c0)
	}
	if c0.PendingPublishTxns == nil || *c0.PendingPublishTxns != 0 {
		t.Errorf("PendingPublishTxns from text \"0\": %v", c0.PendingPublishTxns)
	}
	if c2.ExcludedOutdated.N() != 2 || len(c2.ExcludedOutdated.Names) != 0 || c2.PendingPublishTxns == nil || *c2.PendingPublishTxns != 3 {
		t.Errorf("count 2: %+v", c2)
	}
	if l.ExcludedOutdated.Shape != ShapeList || strings.Join(l.ExcludedOutdated.Names, " ") != "d.a d.b" || l.Dirty.Names[0] != "p1" ||
		l.PendingPublish.N() != 2 || l.PendingPublishTxns != nil {
		t.Errorf("list: %+v", l)
	}
	if old.PendingPublish.Shape != ShapeCount || old.PendingPublishTxns == nil {
		t.Errorf("a snapshot with the numeric field only: %+v", old)
	}
	if bad.ExcludedOutdated.Shape != ShapeNone || malformedOf(s, "EXCLUDED_OUTDATED_DEPENDENCIES") == nil {
		t.Errorf("negative count: %+v, malformed %+v", bad.ExcludedOutdated, s.Malformed)
	}
	// Serialised, the typed values do not appear; the text does.
	b, _ := json.Marshal(s.MVStatus[2])
	if !strings.Contains(string(b), `"pending_publish_txns_text":"txn1,txn2"`) || strings.Contains(string(b), "Names") {
		t.Errorf("serialised: %s", b)
	}
}
