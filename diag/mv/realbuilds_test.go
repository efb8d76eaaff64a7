package mv

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/fixtures/corpus"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Issue 21 ("Real builds differ"), on real Doris output (fixtures/corpus).

// corpusMV loads a corpus case; mv, when set, is the mv_infos() row of the
// MV its tasks belong to (the case has the tasks() and jobs() rows only).
func corpusMV(t *testing.T, name string, mv *snapshot.MVInfo) *Result {
	t.Helper()
	s, err := corpus.Snapshot(name)
	if err != nil {
		t.Fatal(err)
	}
	if mv != nil {
		s.MVs = append(s.MVs, *mv)
		s.Normalize()
	}
	ss := []*snapshot.Snapshot{s}
	return Analyze(ss, streams.Analyze(ss, streams.Options{}), Options{})
}

// mvOrders is the MV the tasks of binlog-broken-fallback and
// task-errors-5100-5101 belong to (MvId 30001, demo.mv_orders).
func mvOrders(refresh string) *snapshot.MVInfo {
	return &snapshot.MVInfo{ID: 30001, DB: "demo", Name: "mv_orders", JobName: "inner_mtmv_30001", State: "NORMAL", RefreshState: "SUCCESS",
		RefreshInfo: refresh, MvProperties: "{}"}
}

func codes(fs []diag.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code.String())
	}
	return out
}

// BINLOG_BROKEN with an empty ErrorMsg is a broken IVM baseline
// (markIvmBaselineBroken / finishIvmFullRefresh), not an expired TTL; no text
// says "none".
func TestBinlogBrokenIsABrokenBaseline(t *testing.T) {
	for _, refresh := range []string{"BUILD DEFERRED REFRESH INCREMENTAL ON MANUAL"} {
		r := corpusMV(t, "binlog-broken-fallback", mvOrders(refresh))
		var got *diag.Finding
		for i, f := range r.Findings {
			if f.Code == CodeChangelogBroken {
				t.Errorf("%s: MV_CHANGELOG_BROKEN (an expired TTL) for a broken baseline: %s — %s", refresh, f.Summary, f.Detail)
			}
			if strings.Contains(f.Summary+f.Detail, ": none") {
				t.Errorf("%s: %s says none for an empty error: %q %q", refresh, f.Code, f.Summary, f.Detail)
			}
			if f.Code == CodeIVMBaselineBroken {
				got = &r.Findings[i]
			}
		}
		if got == nil {
			t.Fatalf("%s: no MV_IVM_BASELINE_BROKEN in %v", refresh, codes(r.Findings))
		}
		if !strings.Contains(got.Detail, "Stream binlog is marked as broken") || !strings.Contains(got.Detail, "not an expired TTL") ||
			!strings.HasPrefix(got.Next, "REFRESH MATERIALIZED VIEW `demo`.`mv_orders` COMPLETE") || got.Evidence["task_id"] != "50202" {
			t.Errorf("%s: %q %q %v", refresh, got.Detail, got.Next, got.Evidence)
		}
	}
}

// An MV invalidated by DDL (mv_infos().State SCHEMA_CHANGE): one finding per
// MV with SchemaChangeDetail as written and what its next refresh does; the
// docs' NORMAL row gives none.
func TestSchemaChangeReported(t *testing.T) {
	r := corpusMV(t, "mv-schema-change", nil)
	got := map[string]diag.Finding{}
	for _, f := range r.Findings {
		if f.Code == CodeSchemaChange {
			got[f.Object.Name] = f
		}
	}
	if len(got) != 3 {
		t.Fatalf("%d MV_SCHEMA_CHANGE findings, want 3: %v", len(got), codes(r.Findings))
	}
	for name, f := range got {
		if !strings.HasPrefix(f.Evidence["schema_change_detail"], "The ") || !strings.Contains(f.Detail, f.Evidence["schema_change_detail"]) ||
			f.Evidence["base_table"] != "ivm_db.ivm_base" {
			t.Errorf("%s: detail not kept: %q %v", name, f.Detail, f.Evidence)
		}
	}
	if f := got["mv_dropped_base"]; !strings.HasPrefix(f.Next, "RECOVER TABLE `ivm_db`.`ivm_base`") {
		t.Errorf("deleted base table: next %q", f.Next)
	}
	if f := got["mv_updated"]; !strings.Contains(f.Detail, "next successful refresh sets State NORMAL") || !strings.HasPrefix(f.Next, "REFRESH MATERIALIZED VIEW") {
		t.Errorf("updated: %q next %q", f.Detail, f.Next)
	}
	for _, f := range corpusMV(t, "mv-infos-docs-normal", nil).Findings {
		if f.Code == CodeSchemaChange {
			t.Errorf("NORMAL MV reported: %s", f.Summary)
		}
	}
}

// Errors 5100 and 5101 of a bounded incremental read: classified in tasks()
// ErrorMsg, retryable, with their cause.
func TestIncrWindowErrorsRetryable(t *testing.T) {
	r := corpusMV(t, "task-errors-5100-5101", mvOrders("BUILD DEFERRED REFRESH INCREMENTAL ON MANUAL"))
	want := map[int64][2]string{
		50101: {string(refresh.FailureIncrWindowNotReady), "END_AFTER_CURRENT_TSO"},
		50102: {string(refresh.FailureIncrWindowNotReady), "TSO_RECOVERING"},
		50103: {string(refresh.FailureIncrVisibleWaitTimeout), "change_visible_timeout_ms"},
	}
	if len(r.MVs) != 1 {
		t.Fatalf("%d MVs", len(r.MVs))
	}
	for _, c := range r.MVs[0].History.Tasks {
		w := want[c.TaskID]
		if string(c.FailureReason) != w[0] || !c.Retryable || !strings.Contains(c.RetryCause, w[1]) || !strings.Contains(c.RetryCause, "retry after") {
			t.Errorf("task %d: reason %q retryable %v cause %q; want %v", c.TaskID, c.FailureReason, c.Retryable, c.RetryCause, w)
		}
	}
	found := false
	for _, f := range r.Findings {
		if f.Code == CodeIncrWindowNotReady {
			found = true
			if f.Evidence["retryable"] != "true" || !strings.Contains(f.Detail, "Cause: error 510") {
				t.Errorf("finding: %q %v", f.Detail, f.Evidence)
			}
		}
	}
	if !found {
		t.Errorf("no MV_INCR_WINDOW_NOT_READY in %v", codes(r.Findings))
	}
}

// excluded_trigger_tables matched as Doris matches it (isTableNamelike): the
// bare name 'region' of an MV in shop excludes dim.region, and names no
// database when no table of that name is known.
func TestExcludedTriggerBareName(t *testing.T) {
	r := corpusMV(t, "excluded-trigger-bare-name", nil)
	if len(r.MVs) != 1 {
		t.Fatalf("%d MVs", len(r.MVs))
	}
	m := r.MVs[0]
	for _, d := range m.Dependencies {
		if d.Excluded && d.BaseTableDB == "shop" {
			t.Errorf("bare name bound to the MV's database: %+v", d)
		}
	}
	if len(m.Excluded) != 1 || m.Excluded[0].DB != "" || m.Excluded[0].Name != "region" {
		t.Errorf("excluded as written: %+v", m.Excluded)
	}
	// With the base table known (dim.region, as the MV's query reads it), it
	// is that table that is excluded.
	s, err := corpus.Snapshot("excluded-trigger-bare-name")
	if err != nil {
		t.Fatal(err)
	}
	s.Tables = append(s.Tables, snapshot.Table{DB: "dim", Name: "region"})
	ss := []*snapshot.Snapshot{s}
	r = Analyze(ss, streams.Analyze(ss, streams.Options{}), Options{})
	var ex []string
	for _, d := range r.MVs[0].Dependencies {
		if d.Excluded {
			ex = append(ex, d.BaseTableDB+"."+d.BaseTableName)
		}
	}
	if len(ex) != 1 || ex[0] != "dim.region" {
		t.Errorf("excluded dependencies %v, want dim.region", ex)
	}
}
