package snapshot

import (
	"strings"
	"testing"
)

func ttlSnap() *Snapshot {
	ttl := int64(86400)
	return &Snapshot{Tables: []Table{{DB: "demo", Name: "orders", PropertyNaming: "binlog", TTLSeconds: &ttl,
		Properties: map[string]string{"binlog.enable": "true", "binlog.ttl_seconds": "86400", "binlog.format": "ROW"}}},
		Capabilities: Capabilities{Sources: map[string]SourceCapability{}}}
}

// TestTTLEnforcementEvidence: what each kind of evidence does to the
// verdict, and that the user's word survives a reload while the rows'
// evidence is recomputed.
func TestTTLEnforcementEvidence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(s *Snapshot)
		verdict string
		kinds   string
	}{
		{"binlog build, nothing tells", func(*Snapshot) {}, TTLUnknown, ""},
		{"changelog spelling", func(s *Snapshot) {
			s.Tables[0].Properties = map[string]string{"changelog.enable": "true", "changelog.ttl_seconds": "86400"}
		}, TTLEnforced, EvidenceChangelogProperties},
		{"expired-offset error in a task", func(s *Snapshot) {
			s.Tasks = []Task{{TaskID: 7, MVName: "mv", MVDatabaseName: "demo", Status: "FAILED",
				ErrorMsg: "errCode = 2, detailMessage = Row binlog offset has expired according to binlog.ttl_seconds"}}
		}, TTLEnforced, EvidenceExpiredOffsetError},
		{"server retention columns", func(s *Snapshot) {
			s.Capabilities.Sources[SourceTableStreamConsumption] = SourceCapability{Present: true, Columns: []string{"DB_NAME", "CAN_RESUME"}}
		}, TTLEnforced, EvidenceServerRetention},
		{"TTL series that moved", func(s *Snapshot) {
			s.Metrics = []MetricsPayload{{Kind: "be", Target: "be1:8040", Body: "# TYPE doris_be_changelog_ttl_cleanup_total counter\n" +
				"doris_be_changelog_ttl_cleanup_total{result=\"success\"} 3\ndoris_be_changelog_ttl_reclaimed_bytes_total 0\n"}}
		}, TTLEnforced, EvidenceTTLSeries},
		{"a read-window series without the expired outcomes is no evidence", func(s *Snapshot) {
			s.Metrics = []MetricsPayload{{Kind: "fe", Target: "fe1:8030", Body: "doris_fe_changelog_read_window_events_total{outcome=\"other\"} 1\n"}}
		}, TTLUnknown, ""},
		{"ttl <= 0 is a hint, never a verdict", func(s *Snapshot) {
			s.Tables[0].Properties["binlog.ttl_seconds"] = "0"
		}, TTLUnknown, EvidenceTTLNotPositive},
		{"the user says yes", func(s *Snapshot) { s.AssumeTTLEnforced(true, "--assume-ttl-enforced") }, TTLEnforced, EvidenceUser},
		{"the user says no", func(s *Snapshot) { s.AssumeTTLEnforced(false, "ttl_enforced: false") }, TTLNotEnforced, EvidenceUser},
		{"the cluster's proof beats the user's no", func(s *Snapshot) {
			s.AssumeTTLEnforced(false, "ttl_enforced: false")
			s.Tables[0].Properties = map[string]string{"changelog.enable": "true", "changelog.ttl_seconds": "86400"}
		}, TTLEnforced, EvidenceChangelogProperties + "," + EvidenceUser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ttlSnap()
			tc.edit(s)
			s.Normalize()
			var kinds []string
			for _, e := range s.TTL().Evidence {
				kinds = append(kinds, e.Kind)
			}
			if got := s.TTL().Verdict; got != tc.verdict || strings.Join(kinds, ",") != tc.kinds {
				t.Errorf("verdict %s evidence %v, want %s %s", got, kinds, tc.verdict, tc.kinds)
			}
			if tc.verdict == TTLUnknown && tc.kinds == "" && s.TTLEnforcement != nil {
				t.Errorf("no evidence must leave ttl_enforcement out, got %+v", s.TTLEnforcement)
			}
			s.Normalize() // idempotent: the user's word stays, the rows' evidence is not doubled
			if len(s.TTL().Evidence) != len(kinds) {
				t.Errorf("a second Normalize changed the evidence: %+v", s.TTL().Evidence)
			}
		})
	}
}

// TestDroppedBaseTableShapes: both shapes of a dropped base table load as
// dropped, and which shape it was is derived from the raw columns.
func TestDroppedBaseTableShapes(t *testing.T) {
	s := &Snapshot{Streams: []Stream{
		{Name: "older", BaseTableCtl: "N/A", BaseTableDB: "N/A", BaseTableName: "N/A", BaseTableType: "N/A", Enabled: true},
		{Name: "newer", BaseTableCtl: "internal", BaseTableDB: "db", BaseTableName: "t", BaseTableType: "N/A", IsStale: true,
			StaleReason: "Base table does not exist"},
		{Name: "alive", BaseTableCtl: "internal", BaseTableDB: "db", BaseTableName: "t", BaseTableType: "OLAP", Enabled: true},
	}}
	s.Normalize()
	want := map[string][2]string{"older": {"true", DroppedAllNA}, "newer": {"true", DroppedTypeNA}, "alive": {"false", ""}}
	for _, st := range s.Streams {
		w := want[st.Name]
		if got := [2]string{map[bool]string{true: "true", false: "false"}[st.BaseTableDropped], st.BaseTableDroppedShape}; got != w {
			t.Errorf("%s: %v, want %v", st.Name, got, w)
		}
	}
}

// TestMatchesExcluded is MTMVPartitionUtilTest.testIsTableNamelike
// (apache/doris fe/fe-core/src/test/java/org/apache/doris/mtmv/MTMVPartitionUtilTest.java
// @39d6e30f) against ctl1.db1.table1.
func TestMatchesExcluded(t *testing.T) {
	for written, want := range map[string]bool{
		"table1": true, "db1.table1": true, "ctl1.db1.table1": true,
		"ctl1.table1": false, "ctl1.db2.table1": false, "ctl1.db1.table2": false, "ctl2.db1.table1": false,
		"Table1": false, // Doris compares names exactly
	} {
		p, err := ParseMvProperties("{excluded_trigger_tables="+written+", partition_sync_limit=100}", "mvdb")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MatchesExcluded("ctl1", "db1", "table1"); got != want {
			t.Errorf("%s: %v, want %v (as written %+v)", written, got, want, p.ExcludedAsWritten)
		}
	}
}
