package mv

import (
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestExcludedOutdatedCountZero is the regression of issue 10: on a build
// with the monitoring design, ivm_mv_status.EXCLUDED_OUTDATED_DEPENDENCIES
// served as BIGINT 0 (text "0" on the wire) printed "excluded trigger table 0
// changed since the MV covered it" on every MV. A count of 0 is none; a
// count above 0 says how many (no names); a list names them.
func TestExcludedOutdatedCountZero(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        string // "" = no finding
		count       int64
	}{
		{"count 0", "0", "", 0},
		{"null", `\N`, "", 0},
		{"empty list", "[]", "", 0},
		{"count 2", "2", "2 excluded trigger tables changed since the MV covered them", 2},
		{"count 1", "1", "1 excluded trigger table changed since the MV covered it", 1},
		{"list", "demo.products,demo.regions", "excluded trigger table demo.products, demo.regions changed since the MV covered it", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
			b.MV(1, "mv_a", diagtest.IncrCommit, "orders", 7, 0)
			b.Task(1, "mv_a", 11, "SUCCESS", time.Minute)
			b.S.MVStatus = []snapshot.MVStatus{{DB: "demo", MVName: "mv_a", MVID: 1, FreshnessState: "FRESH", DataDelaySeconds: f64(0),
				DelayPrecision: "PRECISE", LaggingReason: "NONE", ExcludedOutdatedDependencies: tc.value, PendingPublishTxnsText: "0",
				DirtyPartitions: "0", LaggingDependencies: "0", SampleTimeMs: diagtest.MsAgo(5 * time.Second)}}
			r := analyzeMVs(t, b.S)
			f, got := mvCodesOf(r, "mv_a")["MV_EXCLUDED_DEPENDENCY_OUTDATED"]
			if tc.want == "" {
				if got {
					t.Fatalf("finding from %q: %s", tc.value, f.Summary)
				}
				if r.ByName("demo", "mv_a").HasExcludedOutdated() {
					t.Errorf("the overview would count an excluded dependency outdated")
				}
				return
			}
			if !got || f.Summary != tc.want {
				t.Fatalf("finding %v %q, want %q", got, f.Summary, tc.want)
			}
			m := r.ByName("demo", "mv_a")
			if tc.count > 0 {
				if m.ExcludedOutdatedCount == nil || *m.ExcludedOutdatedCount != tc.count || len(m.ExcludedOutdated) != 0 {
					t.Errorf("count %d: result %v names %v", tc.count, m.ExcludedOutdatedCount, m.ExcludedOutdated)
				}
				if strings.Contains(f.Summary, "table 0") || f.Evidence["excluded_outdated_count"] == "" {
					t.Errorf("evidence %v", f.Evidence)
				}
			}
		})
	}
}

// TestDirtyPartitionsCountOrList: DIRTY_PARTITIONS as a count says how
// many, as a list names them, and 0 names nothing.
func TestDirtyPartitionsCountOrList(t *testing.T) {
	for value, want := range map[string]string{"3": "(3)", "p1,p2": "(p1,p2)", "0": "dirty and needs a rebuild"} {
		b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day)
		b.MV(1, "mv_a", diagtest.IncrCommit, "orders", 7, 0)
		b.S.MVStatus = []snapshot.MVStatus{{DB: "demo", MVName: "mv_a", MVID: 1, FreshnessState: "REBUILD_REQUIRED", DataDelaySeconds: f64(900),
			DelayPrecision: "PRECISE", LaggingReason: "REBUILD_REQUIRED", DirtyPartitions: value, SampleTimeMs: diagtest.MsAgo(5 * time.Second)}}
		f, ok := mvCodesOf(analyzeMVs(t, b.S), "mv_a")["MV_REBUILD_REQUIRED"]
		if !ok || !strings.HasSuffix(f.Summary, want) {
			t.Errorf("DIRTY_PARTITIONS %q: summary %q, want it to end in %q", value, f.Summary, want)
		}
	}
}

// TestExcludedLegacyCoverage: without ivm_dependencies, an excluded trigger
// table is judged from information_schema.partitions (UPDATE_TIME, the
// visible-version time; VISIBLE_VERSION) against the last successful
// refresh's start — and is unknown, never guessed, when that cannot tell.
func TestExcludedLegacyCoverage(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name    string
		parts   []snapshot.Partition
		success bool
		covered string // "true" | "false" | "unknown"
		note    string
	}{
		{"changed after", []snapshot.Partition{{Name: "p1", VisibleTimeMs: diagtest.MsAgo(20 * time.Minute), VisibleVersion: i(5)}}, true, "false", "UPDATE_TIME (visible-version time) of partition p1 is after the StartTime of task 11"},
		{"before", []snapshot.Partition{{Name: "p1", VisibleTimeMs: diagtest.MsAgo(2 * time.Hour), VisibleVersion: i(5)}}, true, "true", "before the StartTime of task 11"},
		{"empty partition created after", []snapshot.Partition{{Name: "p2", VisibleTimeMs: diagtest.MsAgo(time.Minute), VisibleVersion: i(1)},
			{Name: "p1", VisibleTimeMs: diagtest.MsAgo(2 * time.Hour), VisibleVersion: i(3)}}, true, "true", ""},
		{"visible time missing", []snapshot.Partition{{Name: "p1", VisibleVersion: i(4)}, {Name: "p0", VisibleTimeMs: diagtest.MsAgo(2 * time.Hour)}}, true, "unknown", "no visible-version time"},
		{"same second", []snapshot.Partition{{Name: "p1", VisibleTimeMs: diagtest.MsAgo(time.Hour - 300*time.Millisecond)}}, true, "unknown", "same second"},
		{"no partitions", nil, true, "unknown", "has no row"},
		{"no successful refresh", []snapshot.Partition{{Name: "p1", VisibleTimeMs: diagtest.MsAgo(20 * time.Minute)}}, false, "unknown", "no successful refresh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", &diagtest.Day).Table("demo", "products", "DUP_KEYS", &diagtest.Day)
			m := b.MV(5, "mv_ps", diagtest.IncrCommit, "orders", 7, 0)
			m.MvProperties = "{excluded_trigger_tables=products, partition_sync_limit=100}"
			status := "SUCCESS"
			if !tc.success {
				status = "FAILED"
			}
			b.Task(5, "mv_ps", 11, status, time.Hour)
			for _, p := range tc.parts {
				p.DB, p.Table = "demo", "products"
				b.S.Partitions = append(b.S.Partitions, p)
			}
			r := analyzeMVs(t, b.S)
			var dep *Dependency
			for i, d := range r.ByName("demo", "mv_ps").Dependencies {
				if d.Excluded && d.BaseTableName == "products" {
					dep = &r.ByName("demo", "mv_ps").Dependencies[i]
				}
			}
			if dep == nil {
				t.Fatal("excluded dependency demo.products not found from MvProperties in map form")
			}
			got := "unknown"
			if dep.Covered != nil {
				got = map[bool]string{true: "true", false: "false"}[*dep.Covered]
			}
			if got != tc.covered || !strings.Contains(dep.Note, tc.note) {
				t.Errorf("covered %s note %q, want %s containing %q", got, dep.Note, tc.covered, tc.note)
			}
			f, has := mvCodesOf(r, "mv_ps")["MV_EXCLUDED_DEPENDENCY_OUTDATED"]
			if has != (tc.covered == "false") {
				t.Errorf("finding %v, want %v", has, tc.covered == "false")
			}
			if has && !strings.Contains(f.Evidence["evidence"], "information_schema.partitions UPDATE_TIME") {
				t.Errorf("finding does not say which evidence was used: %v", f.Evidence)
			}
		})
	}
}
