package streams

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/fixtures/corpus"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Issue 21 ("Real builds differ"), on real Doris output (fixtures/corpus).

func corpusResult(t *testing.T, name string, edit func(*snapshot.Snapshot)) *Result {
	t.Helper()
	s, err := corpus.Snapshot(name)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(s)
	}
	return Analyze([]*snapshot.Snapshot{s}, Options{})
}

func findingsOf(r *Result, code diag.Code) []diag.Finding {
	var out []diag.Finding
	for _, f := range r.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

// The docs' consumption rows on a binlog.* build with no evidence of TTL
// enforcement: the offset expired 76 days ago by the numbers, but the
// earlier ROW binlog builds never expire changes (apache/doris#65897), so
// the conclusion is a warning worded as a condition, never a critical.
func TestTTLUnknownExpiryIsAWarning(t *testing.T) {
	r := corpusResult(t, "docs-consumption", nil)
	if r.TTLEnforcement.Verdict != snapshot.TTLUnknown {
		t.Fatalf("verdict %q", r.TTLEnforcement.Verdict)
	}
	if diag.AtOrAbove(r.Findings, diag.SeverityCritical) {
		t.Errorf("a critical finding with enforcement unknown: %+v", r.Findings)
	}
	fs := findingsOf(r, CodeCannotResumeRejected)
	if len(fs) != 1 {
		t.Fatalf("STREAM_CANNOT_RESUME_REJECTED: %d findings, want 1 (the same numbers as a warning)", len(fs))
	}
	f := fs[0]
	if f.Severity != diag.SeverityWarning || !strings.HasPrefix(f.Summary, "if this build enforces binlog.ttl_seconds (apache/doris#68226): ") ||
		!strings.Contains(f.Summary, "offset expired 76d") || f.Evidence["ttl_enforced"] != "unknown" || !strings.Contains(f.Detail, "--assume-ttl-enforced") {
		t.Errorf("finding: %s %q %q %v", f.Severity, f.Summary, f.Detail, f.Evidence)
	}
	st := r.Streams[0]
	if st.State != StateCannotResume || !strings.HasPrefix(st.StateReason, "if this build enforces binlog.ttl_seconds") {
		t.Errorf("state %s %q", st.State, st.StateReason)
	}
	for _, p := range st.Partitions {
		if p.Severity == "critical" {
			t.Errorf("partition %s critical with enforcement unknown", p.Unit)
		}
	}
}

// With evidence (the user's word, or the expired-offset error of a build
// that enforces the TTL) the same rows give the critical.
func TestTTLEnforcedExpiryIsCritical(t *testing.T) {
	for name, r := range map[string]*Result{
		"assumed":              corpusResult(t, "docs-consumption", func(s *snapshot.Snapshot) { s.AssumeTTLEnforced(true, "--assume-ttl-enforced") }),
		"expired-offset-error": corpusResult(t, "expired-offset-error", nil),
	} {
		fs := findingsOf(r, CodeCannotResumeRejected)
		if len(fs) != 1 || fs[0].Severity != diag.SeverityCritical || strings.HasPrefix(fs[0].Summary, "if ") {
			t.Errorf("%s: %+v", name, fs)
		}
	}
}

// The user's word that the build does not enforce the TTL: no expiry
// finding, the headroom still shown.
func TestTTLNotEnforcedNoExpiryFinding(t *testing.T) {
	r := corpusResult(t, "docs-consumption", func(s *snapshot.Snapshot) { s.AssumeTTLEnforced(false, "--assume-ttl-enforced=false") })
	for _, f := range r.Findings {
		if expiryCode(f.Code) {
			t.Errorf("expiry finding on a build that does not enforce the TTL: %s %s", f.Code, f.Summary)
		}
	}
	st := r.Streams[0]
	if st.State == StateCannotResume || st.MinHeadroomSeconds == nil || *st.MinHeadroomSeconds >= 0 {
		t.Errorf("state %s headroom %v: want no cannot_resume, the (negative) headroom shown", st.State, st.MinHeadroomSeconds)
	}
}

// The later builds' shape of a dropped base table (test_ivm_drop_base_table_stream_state.out
// !stream_after_drop): the name is kept, ENABLED false, IS_STALE true. One
// finding naming the table with RECOVER TABLE as the next step; the stale and
// disabled flags are its symptoms, not "recreate it" / "disabled".
func TestDroppedBaseTableNewerShape(t *testing.T) {
	r := corpusResult(t, "drop-base-table-newer", nil)
	if len(r.Findings) != 1 || r.Findings[0].Code != CodeBaseTableDropped {
		t.Fatalf("findings: %+v", r.Findings)
	}
	f := r.Findings[0]
	if !strings.Contains(f.Summary, "regression_test_mtmv_p0_ivm.ivm_drop_base_stream_state_base") ||
		!strings.HasPrefix(f.Next, "RECOVER TABLE `regression_test_mtmv_p0_ivm`.`ivm_drop_base_stream_state_base`") ||
		!strings.Contains(f.Next, "FORCE") || f.Evidence["shape"] != snapshot.DroppedTypeNA {
		t.Errorf("finding: %q next %q ev %v", f.Summary, f.Next, f.Evidence)
	}
	if st := r.Streams[0]; st.State != StateStale || !st.BaseTableDropped || st.BaseTableName != "ivm_drop_base_stream_state_base" {
		t.Errorf("stream: %s %v %q", st.State, st.BaseTableDropped, st.BaseTableName)
	}
	// The older shape names no table: no RECOVER TABLE of a name.
	r = corpusResult(t, "drop-base-table-older", nil)
	if len(findingsOf(r, CodeBaseTableDropped)) != 1 || strings.HasPrefix(findingsOf(r, CodeBaseTableDropped)[0].Next, "RECOVER") {
		t.Errorf("older shape: %+v", r.Findings)
	}
	// Recovered: no dropped-table finding.
	r = corpusResult(t, "drop-base-table-recovered", nil)
	if len(findingsOf(r, CodeBaseTableDropped)) != 0 || len(findingsOf(r, CodeStale)) != 0 || len(findingsOf(r, CodeDisabled)) != 0 {
		t.Errorf("recovered: %+v", r.Findings)
	}
}

// A base partition whose PARTITION_ID changed between two snapshots of a
// series (TRUNCATE / REPLACE PARTITION write no row binlog): the consumer
// must resync it, said as a heuristic. The docs' consumption rows, with the
// partitions rows a newer build adds (PARTITION_ID).
func TestPartitionIDChangedMeansResync(t *testing.T) {
	series := make([]*snapshot.Snapshot, 2)
	for i, id := range []int64{1001, 2002} {
		s, err := corpus.Snapshot("docs-consumption")
		if err != nil {
			t.Fatal(err)
		}
		stable, changed := int64(900), id
		s.Partitions = []snapshot.Partition{{DB: "demo", Table: "orders", Name: "p20260913", ID: &stable}, {DB: "demo", Table: "orders", Name: "p20260914", ID: &changed}}
		series[i] = s
	}
	r := Analyze(series, Options{})
	fs := findingsOf(r, CodePartitionIDChanged)
	if len(fs) != 1 || fs[0].Evidence["partitions"] != "p20260914" || fs[0].Evidence["partition_id.p20260914"] != "1001->2002" ||
		!strings.Contains(fs[0].Summary, "heuristic") {
		t.Errorf("findings: %+v", fs)
	}
	if fs := findingsOf(Analyze(series[1:], Options{}), CodePartitionIDChanged); len(fs) != 0 {
		t.Errorf("one snapshot: %+v", fs)
	}
}
