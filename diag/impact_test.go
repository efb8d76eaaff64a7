package diag

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Every registered code has its place in the impact ranking: a new code
// that forgot it would sort last, under the hygiene warnings.
func TestEveryCodeHasAnImpact(t *testing.T) {
	for _, c := range Codes() {
		if _, ok := impactIndex[c.Code]; !ok {
			t.Errorf("%s is not in impactTable (diag/impact.go)", c.Code)
		}
	}
	if len(impactTable) != len(Codes()) {
		t.Errorf("impactTable has %d entries, %d codes are registered", len(impactTable), len(Codes()))
	}
}

func incidentCheck(t *testing.T) *CheckResult {
	t.Helper()
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	return Check([]*snapshot.Snapshot{s}, CheckOptions{})
}

func indexOf(fs []Finding, code Code, name string) int {
	for i, f := range fs {
		if f.Code == code && (name == "" || f.Object.Name == name) {
			return i
		}
	}
	return -1
}

// Issue 13, Why: within a severity findings were sorted by code name, so a
// /metrics escaping problem (METRICS_UNPARSEABLE) came before silent data
// loss. Silent loss is read first; /metrics problems come after every
// finding about lost, broken or late data.
func TestCheckOrdersByImpactNotCodeName(t *testing.T) {
	fs := incidentCheck(t).Findings
	if len(fs) == 0 {
		t.Fatal("no findings")
	}
	if fs[0].Code != CodeStreamCannotResumeClipped {
		t.Errorf("first finding %s %s, want STREAM_CANNOT_RESUME_CLIPPED (changes silently skipped)", fs[0].Code, fs[0].Object)
	}
	metrics := indexOf(fs, CodeMetricsUnparseable, "")
	for _, loss := range []Code{CodeStreamCannotResumeClipped, CodeStreamNoOffsetRowsSkipped, CodeStreamCannotResumeRejected, CodeMVChangelogBroken} {
		if i := indexOf(fs, loss, ""); i < 0 || metrics < i {
			t.Errorf("%s at %d, METRICS_UNPARSEABLE at %d: a /metrics problem is listed before it", loss, i, metrics)
		}
	}
	// Impact classes never go back up.
	for i := 1; i < len(fs); i++ {
		if fs[i].Cause != nil {
			continue
		}
		if a, b := ImpactOf(fs[i-1].Code), ImpactOf(fs[i].Code); fs[i-1].Cause == nil && a > b {
			t.Errorf("#%d %s (%s) before #%d %s (%s)", i-1, fs[i-1].Code, a, i, fs[i].Code, b)
		}
	}
}

// Within a code, how bad decides: the largest delay, the most negative
// headroom first — not the object name.
func TestSortFindingsByMagnitudeWithinCode(t *testing.T) {
	mk := func(code Code, name, key, v string) Finding {
		return Finding{Code: code, Severity: SeverityCritical, Object: Object{Kind: "mv", DB: "d", Name: name}, Evidence: map[string]string{key: v}}
	}
	fs := []Finding{
		mk(CodeMVDelayHigh, "a_small", "data_delay_seconds", "900"),
		mk(CodeMVDelayHigh, "z_large", "data_delay_seconds", "90000"),
		mk(CodeStreamCannotResumeRejected, "a_recent", "headroom_seconds", "-60"),
		mk(CodeStreamCannotResumeRejected, "z_old", "headroom_seconds", "-7200"),
	}
	SortFindings(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Object.Name)
	}
	if strings.Join(got, " ") != "z_old a_recent z_large a_small" {
		t.Errorf("order %v, want the expired-longest stream, then the largest delay first", got)
	}
}

// Issue 13, Why: four MV_DELAY_HIGH stood apart from their cause. Each is
// now listed right after the finding that explains it, and the JSON says so
// (cause on the symptom, symptoms on the cause).
func TestCheckGroupsDelayUnderItsCause(t *testing.T) {
	fs := incidentCheck(t).Findings
	for mv, cause := range map[string]Code{
		"mv_payments_rollup": CodeMVChangelogBroken,
		"mv_sales_rebuild":   CodeMVRebuildRequired,
		"mv_orders_daily":    CodeMVConsecutiveFailures,
		"mv_items_summary":   CodeMVTaskQueuedLong,
	} {
		c, d := indexOf(fs, cause, mv), indexOf(fs, CodeMVDelayHigh, mv)
		if c < 0 || d < 0 {
			t.Errorf("%s: cause %s at %d, MV_DELAY_HIGH at %d", mv, cause, c, d)
			continue
		}
		if d < c {
			t.Errorf("%s: MV_DELAY_HIGH (#%d) before its cause %s (#%d)", mv, d, cause, c)
		}
		for i := c + 1; i < d; i++ {
			if fs[i].Cause == nil || fs[i].Cause.Code != cause {
				t.Errorf("%s: #%d %s between %s and its symptom", mv, i, fs[i].Code, cause)
			}
		}
		if r := fs[d].Cause; r == nil || r.Code != cause || r.Object.Name != mv {
			t.Errorf("%s: MV_DELAY_HIGH cause = %+v, want %s", mv, r, cause)
		}
		found := false
		for _, s := range fs[c].Symptoms {
			found = found || (s.Code == CodeMVDelayHigh && s.Object.Name == mv)
		}
		if !found {
			t.Errorf("%s: %s lists symptoms %+v, not its MV_DELAY_HIGH", mv, cause, fs[c].Symptoms)
		}
	}
	// A delay with no cause finding (waiting for its schedule) stands alone.
	if i := indexOf(fs, CodeMVDelayHigh, "mv_events_hourly"); i < 0 || fs[i].Cause != nil {
		t.Errorf("mv_events_hourly MV_DELAY_HIGH: want no cause, got %+v", fs[i].Cause)
	}
}

// Sorting twice gives the same list (check sorts findings the areas sorted
// already), and a suppressed cause leaves its symptom standing alone.
func TestSortFindingsIdempotentAndOrphans(t *testing.T) {
	fs := incidentCheck(t).Findings
	again := append([]Finding(nil), fs...)
	SortFindings(again)
	for i := range fs {
		if fs[i].Code != again[i].Code || fs[i].Object != again[i].Object || len(fs[i].Symptoms) != len(again[i].Symptoms) {
			t.Fatalf("#%d: %s %s then %s %s", i, fs[i].Code, fs[i].Object, again[i].Code, again[i].Object)
		}
	}
	var noCause []Finding
	for _, f := range fs {
		if f.Code != CodeMVChangelogBroken {
			noCause = append(noCause, f)
		}
	}
	SortFindings(noCause)
	if i := indexOf(noCause, CodeMVDelayHigh, "mv_payments_rollup"); noCause[i].Cause != nil {
		t.Errorf("cause removed, symptom still names %+v", noCause[i].Cause)
	}
}
