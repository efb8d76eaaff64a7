package check

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Every declared code has an impact class and a place in it, and the places
// of a class run 1..n with no gap or repeat: a new code that forgot its
// place would sort last, under the hygiene warnings, and two codes with one
// place would be ordered by name.
func TestImpactPlaces(t *testing.T) {
	places := map[diag.Impact]map[int]string{}
	for _, d := range diag.Codes() {
		if d.Impact < diag.ImpactLoss || d.Impact > diag.ImpactHygiene || d.Place < 1 {
			t.Errorf("%s: impact %d place %d", d.Code, d.Impact, d.Place)
			continue
		}
		if places[d.Impact] == nil {
			places[d.Impact] = map[int]string{}
		}
		if other, dup := places[d.Impact][d.Place]; dup {
			t.Errorf("%s and %s share place %d of impact class %d", d.Code, other, d.Place, d.Impact)
		}
		places[d.Impact][d.Place] = d.Code
	}
	for class, ps := range places {
		for p := 1; p <= len(ps); p++ {
			if _, ok := ps[p]; !ok {
				t.Errorf("impact class %d: no code at place %d of %d", class, p, len(ps))
			}
		}
	}
}

// Every cause a declaration names is a declared code, and a code with a
// measure names its evidence key.
func TestDeclarationsResolve(t *testing.T) {
	for _, d := range diag.Codes() {
		for _, c := range d.CausedBy {
			if _, ok := diag.LookupCode(c.Code); !ok || c.Code == d.Code {
				t.Errorf("%s: cause %q is not another declared code", d.Code, c.Code)
			}
		}
	}
}

// The magnitude a check sets is the number its evidence shows: ranking
// reads the typed value, and it is the value the user reads.
func TestMagnitudeMatchesEvidence(t *testing.T) {
	for _, name := range []string{"healthy", "incident", "legacy"} {
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range Run([]*snapshot.Snapshot{s}, Options{}).Findings {
			m := f.Code.Declaration().Magnitude
			if m.Name == "" {
				continue
			}
			text, shown := f.Evidence[m.Name]
			switch {
			case !shown && f.Magnitude != nil:
				t.Errorf("%s %s: magnitude %v, evidence has no %s", f.Code, f.Object, *f.Magnitude, m.Name)
			case shown && f.Magnitude == nil:
				t.Errorf("%s %s: evidence %s=%s, no magnitude", f.Code, f.Object, m.Name, text)
			case shown:
				v, err := strconv.ParseFloat(text, 64)
				if err != nil || math.Abs(v-*f.Magnitude) > 1e-3 {
					t.Errorf("%s %s: magnitude %v, evidence %s=%s", f.Code, f.Object, *f.Magnitude, m.Name, text)
				}
				n++
			}
		}
		if name == "incident" && n < 5 {
			t.Errorf("incident: only %d findings with a magnitude", n)
		}
	}
}

func incidentCheck(t *testing.T) *Result {
	t.Helper()
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	return Run([]*snapshot.Snapshot{s}, Options{})
}

func indexOf(fs []diag.Finding, code diag.Code, name string) int {
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
	if fs[0].Code != streams.CodeCannotResumeClipped {
		t.Errorf("first finding %s %s, want STREAM_CANNOT_RESUME_CLIPPED (changes silently skipped)", fs[0].Code, fs[0].Object)
	}
	unparseable := indexOf(fs, metrics.CodeUnparseable, "")
	for _, loss := range []diag.Code{streams.CodeCannotResumeClipped, streams.CodeNoOffsetRowsSkipped, streams.CodeCannotResumeRejected, mv.CodeChangelogBroken} {
		if i := indexOf(fs, loss, ""); i < 0 || unparseable < i {
			t.Errorf("%s at %d, METRICS_UNPARSEABLE at %d: a /metrics problem is listed before it", loss, i, unparseable)
		}
	}
	// Impact classes never go back up.
	for i := 1; i < len(fs); i++ {
		if fs[i].Cause != nil {
			continue
		}
		if a, b := fs[i-1].Code.Declaration().Impact, fs[i].Code.Declaration().Impact; fs[i-1].Cause == nil && a > b {
			t.Errorf("#%d %s (impact %d) before #%d %s (impact %d)", i-1, fs[i-1].Code, a, i, fs[i].Code, b)
		}
	}
}

// Within a code, how bad decides: the largest delay, the most negative
// headroom first — not the object name.
func TestSortFindingsByMagnitudeWithinCode(t *testing.T) {
	mk := func(code diag.Code, name string, v float64) diag.Finding {
		return diag.Finding{Code: code, Severity: diag.SeverityCritical, Object: diag.Object{Kind: "mv", DB: "d", Name: name}, Magnitude: &v}
	}
	fs := []diag.Finding{
		mk(mv.CodeDelayHigh, "a_small", 900),
		mk(mv.CodeDelayHigh, "z_large", 90000),
		mk(streams.CodeCannotResumeRejected, "a_recent", -60),
		mk(streams.CodeCannotResumeRejected, "z_old", -7200),
	}
	diag.SortFindings(fs)
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
	for name, cause := range map[string]diag.Code{
		"mv_payments_rollup": mv.CodeChangelogBroken,
		"mv_sales_rebuild":   mv.CodeRebuildRequired,
		"mv_orders_daily":    mv.CodeConsecutiveFailures,
		"mv_items_summary":   mv.CodeTaskQueuedLong,
	} {
		c, d := indexOf(fs, cause, name), indexOf(fs, mv.CodeDelayHigh, name)
		if c < 0 || d < 0 {
			t.Errorf("%s: cause %s at %d, MV_DELAY_HIGH at %d", name, cause, c, d)
			continue
		}
		if d < c {
			t.Errorf("%s: MV_DELAY_HIGH (#%d) before its cause %s (#%d)", name, d, cause, c)
		}
		for i := c + 1; i < d; i++ {
			if fs[i].Cause == nil || fs[i].Cause.Code != cause {
				t.Errorf("%s: #%d %s between %s and its symptom", name, i, fs[i].Code, cause)
			}
		}
		if r := fs[d].Cause; r == nil || r.Code != cause || r.Object.Name != name {
			t.Errorf("%s: MV_DELAY_HIGH cause = %+v, want %s", name, r, cause)
		}
		found := false
		for _, s := range fs[c].Symptoms {
			found = found || (s.Code == mv.CodeDelayHigh && s.Object.Name == name)
		}
		if !found {
			t.Errorf("%s: %s lists symptoms %+v, not its MV_DELAY_HIGH", name, cause, fs[c].Symptoms)
		}
	}
	// A delay with no cause finding (waiting for its schedule) stands alone.
	if i := indexOf(fs, mv.CodeDelayHigh, "mv_events_hourly"); i < 0 || fs[i].Cause != nil {
		t.Errorf("mv_events_hourly MV_DELAY_HIGH: want no cause, got %+v", fs[i].Cause)
	}
}

// Sorting twice gives the same list (check sorts findings the areas sorted
// already), and a suppressed cause leaves its symptom standing alone.
func TestSortFindingsIdempotentAndOrphans(t *testing.T) {
	fs := incidentCheck(t).Findings
	again := append([]diag.Finding(nil), fs...)
	diag.SortFindings(again)
	for i := range fs {
		if fs[i].Code != again[i].Code || fs[i].Object != again[i].Object || len(fs[i].Symptoms) != len(again[i].Symptoms) {
			t.Fatalf("#%d: %s %s then %s %s", i, fs[i].Code, fs[i].Object, again[i].Code, again[i].Object)
		}
	}
	var noCause []diag.Finding
	for _, f := range fs {
		if f.Code != mv.CodeChangelogBroken {
			noCause = append(noCause, f)
		}
	}
	diag.SortFindings(noCause)
	if i := indexOf(noCause, mv.CodeDelayHigh, "mv_payments_rollup"); noCause[i].Cause != nil {
		t.Errorf("cause removed, symptom still names %+v", noCause[i].Cause)
	}
}

// MV_CHANGELOG_BROKEN fires on either naming of the expired-offset reason
// (refresh.IsChangelogBroken), so MV_CONSECUTIVE_FAILURES is listed under it
// in both: with BINLOG_BROKEN, the name older builds write, the symptom lost
// its cause.
func TestConsecutiveFailuresUnderChangelogBrokenBothNamings(t *testing.T) {
	for _, reason := range []string{"CHANGELOG_BROKEN", "BINLOG_BROKEN"} {
		obj := diag.Object{Kind: "mv", DB: "d", Name: "m"}
		fs := []diag.Finding{
			{Code: mv.CodeConsecutiveFailures, Severity: diag.SeverityCritical, Object: obj, Evidence: map[string]string{"failure_reason": reason}},
			{Code: mv.CodeChangelogBroken, Severity: diag.SeverityCritical, Object: obj, Evidence: map[string]string{"failure_reason": reason}},
		}
		diag.SortFindings(fs)
		i := indexOf(fs, mv.CodeConsecutiveFailures, "m")
		if r := fs[i].Cause; r == nil || r.Code != mv.CodeChangelogBroken {
			t.Errorf("failure_reason %s: MV_CONSECUTIVE_FAILURES cause = %+v, want MV_CHANGELOG_BROKEN", reason, r)
		}
	}
}
