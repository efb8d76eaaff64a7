package sources

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// TestSourceSeverityFollowsCost: the severity of an unreadable source is
// what it costs — critical for a source the diagnosis needs, a warning that
// names what is not diagnosed for an optional one, no finding for a
// fallback another source superseded (design.md "Partial failures").
func TestSourceSeverityFollowsCost(t *testing.T) {
	clock := snapshot.Cluster{CurrentTSO: tso.TSO(1_780_000_000_000 << tso.LogicalBits), ClockSource: snapshot.SourceTSOStatus}
	withMV := func(s *snapshot.Snapshot) {
		s.Jobs = []snapshot.Job{{ID: 1, MVID: 7, MVName: "mv", MVDatabaseName: "d"}}
	}
	withIVMStream := func(s *snapshot.Snapshot) {
		s.Streams = []snapshot.Stream{{DB: "d", Name: "__doris_ivm_stream_mv_7_8", ID: 3}}
	}
	for _, tc := range []struct {
		name     string
		gap      snapshot.ReadGap
		clock    string // Cluster.ClockSource; "" keeps tso_status
		setup    func(*snapshot.Snapshot)
		want     diag.Severity // 0: no finding
		mentions string        // the summary names what is not diagnosed
	}{
		// Needed.
		{name: "table_streams", gap: snapshot.ReadGap{Source: snapshot.SourceTableStreams, Error: "denied"}, want: diag.SeverityCritical, mentions: "stream state not diagnosed"},
		{name: "table_stream_consumption", gap: snapshot.ReadGap{Source: snapshot.SourceTableStreamConsumption, Error: "timeout"}, want: diag.SeverityCritical, mentions: "the next read not diagnosed"},
		{name: "clock not replaced", gap: snapshot.ReadGap{Source: snapshot.SourceHTTPTSO, Error: "refused"}, clock: snapshot.SourceHTTPTSO, want: diag.SeverityCritical, mentions: "clock"},
		{name: "unknown source", gap: snapshot.ReadGap{Source: "SHOW SOMETHING NEW", Error: "x"}, want: diag.SeverityCritical},
		// MV sources: needed when MVs exist.
		{name: "tasks no MV known", gap: snapshot.ReadGap{Source: snapshot.SourceTasks, Error: "x"}, want: diag.SeverityWarning, mentions: "fallback refreshes not diagnosed"},
		{name: "tasks with MVs", gap: snapshot.ReadGap{Source: snapshot.SourceTasks, Error: "x"}, setup: withMV, want: diag.SeverityCritical, mentions: "fallback refreshes not diagnosed"},
		{name: "mv_infos with an IVM stream", gap: snapshot.ReadGap{Source: snapshot.SourceMVInfos, Error: "x"}, setup: withIVMStream, want: diag.SeverityCritical},
		{name: "jobs no MV known", gap: snapshot.ReadGap{Source: snapshot.SourceJobs, Error: "x"}, want: diag.SeverityWarning},
		// Optional.
		{name: "SHOW DATA", gap: snapshot.ReadGap{Source: snapshot.SourceShowData, Error: "No database selected"}, want: diag.SeverityWarning, mentions: "changelog size not diagnosed"},
		{name: "partitions", gap: snapshot.ReadGap{Source: snapshot.SourcePartitions, Error: "x"}, want: diag.SeverityWarning, mentions: "no offset"},
		{name: "one node's metrics", gap: snapshot.ReadGap{Source: snapshot.SourceMetrics, Error: "401"}, want: diag.SeverityWarning, mentions: "exposition lint"},
		{name: "SHOW FRONTENDS denied", gap: snapshot.ReadGap{Source: snapshot.SourceFrontends, Error: "Access denied"}, want: diag.SeverityWarning},
		{name: "SHOW BACKENDS denied", gap: snapshot.ReadGap{Source: snapshot.SourceBackends, Error: "Access denied"}, want: diag.SeverityWarning},
		{name: "table_properties not replaced", gap: snapshot.ReadGap{Source: snapshot.SourceTableProperties, Error: "x"}, want: diag.SeverityWarning, mentions: "TTL"},
		{name: "metadata_name_ids", gap: snapshot.ReadGap{Source: snapshot.SourceMetadataNameIDs, Error: "x"}, want: diag.SeverityInfo},
		// Superseded: no finding.
		{name: "SHOW TSO STATUS replaced by /api/tso", gap: snapshot.ReadGap{Source: snapshot.SourceShowTSOStatus, Error: "disabled", Superseded: snapshot.SourceHTTPTSO}, clock: snapshot.SourceHTTPTSO},
		{name: "old snapshot: clock gap, other clock", gap: snapshot.ReadGap{Source: snapshot.SourceShowTSOStatus, Error: "disabled"}, clock: snapshot.SourceHTTPTSO},
		{name: "tasks windowed read replaced", gap: snapshot.ReadGap{Source: snapshot.SourceTasks, Error: "windowed read failed", Superseded: "tasks() read whole"}, setup: withMV},
		{name: "probe replaced by SELECT *", gap: snapshot.ReadGap{Source: snapshot.SourceColumns, Error: "x"}},
		{name: "table_properties replaced by SHOW CREATE TABLE", gap: snapshot.ReadGap{Source: snapshot.SourceTableProperties, Error: "x", Superseded: snapshot.SourceShowCreateTable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &snapshot.Snapshot{Cluster: clock, CouldNotRead: []snapshot.ReadGap{tc.gap}}
			if tc.clock != "" {
				s.Cluster.ClockSource = tc.clock
			}
			if tc.setup != nil {
				tc.setup(s)
			}
			fs := Findings(s)
			if tc.want == 0 {
				if len(fs) != 0 {
					t.Fatalf("a superseded gap is no finding: got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Code != CodeUnreachable {
				t.Fatalf("want one SOURCE_UNREACHABLE, got %+v", fs)
			}
			if fs[0].Severity != tc.want {
				t.Errorf("severity %v, want %v", fs[0].Severity, tc.want)
			}
			if !strings.Contains(fs[0].Summary, tc.mentions) || fs[0].Evidence["not_diagnosed"] == "" {
				t.Errorf("summary %q should name what is not diagnosed (%q)", fs[0].Summary, tc.mentions)
			}
		})
	}
}

// TestEverySourceHasACost: every source name the collector can record as a
// gap has a row in the table (an unknown one would be critical by default).
func TestEverySourceHasACost(t *testing.T) {
	for _, src := range []string{snapshot.SourceTSOStatus, snapshot.SourceShowTSOStatus, snapshot.SourceHTTPTSO,
		snapshot.SourceTableStreams, snapshot.SourceTableStreamConsumption, snapshot.SourceTableProperties,
		snapshot.SourceTableOptions, snapshot.SourceMetadataNameIDs, snapshot.SourcePartitions, snapshot.SourceIVMMVStatus,
		snapshot.SourceIVMDependencies, snapshot.SourceColumns, snapshot.SourceMVInfos, snapshot.SourceJobs, snapshot.SourceTasks,
		snapshot.SourceFrontends, snapshot.SourceBackends, snapshot.SourceShowData, snapshot.SourceShowCreateTable,
		snapshot.SourceMetrics, "@@time_zone"} {
		c := lookupSourceCost(src)
		if c.Why == unknownSourceCost.Why || c.NotDiagnosed == "" || c.Why == "" {
			t.Errorf("%s: no row in sourceCosts", src)
		}
	}
	seen := map[string]bool{}
	for _, c := range Costs() {
		if seen[c.Source] {
			t.Errorf("%s: two rows", c.Source)
		}
		seen[c.Source] = true
	}
}
