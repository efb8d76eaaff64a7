package metrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
)

func conformRules(t *testing.T, payload string, opts ConformOptions) map[string]int {
	t.Helper()
	res := lintText(t, payload)
	if !res.Parseable {
		t.Fatalf("test payload does not parse: %+v", res.Problems)
	}
	got := map[string]int{}
	for _, p := range Conform(res, opts) {
		got[p.Rule]++
	}
	return got
}

const master = "node_info{type=\"is_master\"} 1\n"

func TestConform(t *testing.T) {
	now := time.Unix(1796083200, 0)
	mvObj := func(id, v string) string {
		return `doris_fe_ivm_mv_data_delay_seconds{db_id="1", db_name="d", mv_id="` + id + `", mv_name="m` + id + `"} ` + v + "\n"
	}
	cluster := "# TYPE doris_fe_ivm_mvs gauge\n" +
		"doris_fe_ivm_mvs{state=\"fresh\"} 2\ndoris_fe_ivm_mvs{state=\"lagging\"} 0\ndoris_fe_ivm_mvs{state=\"rebuild_required\"} 0\ndoris_fe_ivm_mvs{state=\"initializing\"} 0\ndoris_fe_ivm_mvs{state=\"unknown\"} 0\n" +
		"# TYPE doris_fe_ivm_mv_max_data_delay_seconds gauge\ndoris_fe_ivm_mv_max_data_delay_seconds 5\n" +
		"# TYPE doris_fe_ivm_mvs_by_data_delay gauge\n" +
		"doris_fe_ivm_mvs_by_data_delay{le=\"60\"} 2\ndoris_fe_ivm_mvs_by_data_delay{le=\"300\"} 2\ndoris_fe_ivm_mvs_by_data_delay{le=\"900\"} 2\ndoris_fe_ivm_mvs_by_data_delay{le=\"3600\"} 2\ndoris_fe_ivm_mvs_by_data_delay{le=\"+Inf\"} 2\n" +
		"# TYPE doris_fe_changelog_ivm_monitor_objects_not_exported gauge\n" +
		"doris_fe_changelog_ivm_monitor_objects_not_exported{type=\"mv\"} 0\ndoris_fe_changelog_ivm_monitor_objects_not_exported{type=\"stream\"} 0\n" +
		"# TYPE doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds gauge\n"
	fresh := "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds 1796083195\n"
	perObj := "# TYPE doris_fe_ivm_mv_data_delay_seconds gauge\n" + mvObj("1", "0") + mvObj("2", "3")
	unknownObj := "# TYPE doris_fe_ivm_mv_data_delay_seconds gauge\n" + mvObj("1", "0") + mvObj("2", "-1")
	// one fresh MV and one whose delay is unknown, counted as such
	oneUnknown := strings.NewReplacer(`state="fresh"} 2`, `state="fresh"} 1`, `state="unknown"} 0`, `state="unknown"} 1`,
		`{le="60"} 2`, `{le="60"} 1`, `{le="300"} 2`, `{le="300"} 1`, `{le="900"} 2`, `{le="900"} 1`, `{le="3600"} 2`, `{le="3600"} 1`, `{le="+Inf"} 2`, `{le="+Inf"} 1`).Replace(cluster)
	tests := []struct {
		name    string
		payload string
		opts    ConformOptions
		want    map[string]int
	}{
		{"conforming master", master + cluster + fresh + perObj, ConformOptions{Now: now}, map[string]int{}},
		{"stale monitor", master + cluster + "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds 1796083100\n" + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignMonitorStale: 1}},
		{"interval widens the window", master + cluster + "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds 1796083100\n" + perObj, ConformOptions{Now: now, MonitorInterval: time.Minute}, map[string]int{}},
		{"no clock, no staleness", master + cluster + "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds 1\n" + perObj, ConformOptions{}, map[string]int{}},
		{"state series on a follower", cluster + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignStateOnFollower: 1}},
		{"per-object without cluster-level", master + "# TYPE doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds gauge\n" + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignMissingCluster: 4}},
		{"over the quota", master + cluster + fresh + perObj, ConformOptions{Now: now, MVLimit: 1}, map[string]int{RuleDesignPerObjectOver: 1}},
		{"not exported mismatch", master + strings.Replace(cluster, `{type="mv"} 0`, `{type="mv"} 3`, 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignNotExported: 2}},
		{"negative other than -1", master + cluster + fresh + "# TYPE doris_fe_ivm_mv_data_delay_seconds gauge\n" + mvObj("1", "0") + mvObj("2", "-5"), ConformOptions{Now: now}, map[string]int{RuleDesignNegative: 1}},
		{"NaN", master + cluster + fresh + "# TYPE doris_fe_ivm_mv_data_delay_seconds gauge\n" + mvObj("1", "0") + mvObj("2", "NaN"), ConformOptions{Now: now}, map[string]int{RuleDesignNaN: 1}},
		{"unknown label values", master + strings.Replace(strings.Replace(cluster, `state="fresh"`, `state="FRESH"`, 1), `le="900"`, `le="1000"`, 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignUnknownLabelValue: 2}},
		{"+Inf counts an MV whose delay is unknown", master + strings.Replace(strings.Replace(cluster, `state="fresh"} 2`, `state="fresh"} 1`, 1), `state="unknown"} 0`, `state="unknown"} 1`, 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignBuckets: 1}},
		{"+Inf counts an initializing MV", master + strings.Replace(strings.Replace(cluster, `state="fresh"} 2`, `state="fresh"} 1`, 1), `state="initializing"} 0`, `state="initializing"} 1`, 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignBuckets: 1}},
		{"+Inf misses a lagging MV", master + strings.Replace(cluster, `state="lagging"} 0`, `state="lagging"} 1`, 1) + fresh + perObj, ConformOptions{Now: now, MVLimit: 3}, map[string]int{RuleDesignBuckets: 1, RuleDesignNotExported: 1}},
		{"+Inf with rebuild_required and lagging", master + strings.Replace(strings.Replace(strings.Replace(cluster, `state="fresh"} 2`, `state="fresh"} 0`, 1), `state="lagging"} 0`, `state="lagging"} 1`, 1), `state="rebuild_required"} 0`, `state="rebuild_required"} 1`, 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{}},
		{"buckets not cumulative", master + strings.Replace(cluster, `{le="300"} 2`, `{le="300"} 1`, 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignBuckets: 1}},
		{"wrong type and label set", master + cluster + fresh + "# TYPE doris_fe_ivm_mv_data_delay_seconds counter\n" + `doris_fe_ivm_mv_data_delay_seconds{mv_id="1"} 0` + "\n", ConformOptions{Now: now},
			map[string]int{RuleDesignWrongType: 1, RuleDesignLabelSet: 1, RuleDesignNotExported: 1}},
		{"series budget", master + cluster + fresh + perObj, ConformOptions{Now: now, SeriesBudget: 5}, map[string]int{RuleDesignSeriesBudget: 1}},
		{"missing combinations", master + strings.Replace(cluster, "doris_fe_ivm_mvs{state=\"unknown\"} 0\n", "", 1) + fresh + perObj, ConformOptions{Now: now}, map[string]int{RuleDesignMissingCluster: 1}},
		{"-1 delay counted as unknown", master + oneUnknown + fresh + unknownObj, ConformOptions{Now: now}, map[string]int{}},
		{"-1 delay on an MV counted fresh", master + cluster + fresh + unknownObj, ConformOptions{Now: now}, map[string]int{RuleDesignUnknownNotCounted: 1}},
		{"BE cleanup failed and old", "# TYPE doris_be_changelog_ttl_cleanup_total counter\ndoris_be_changelog_ttl_cleanup_total{result=\"failed\"} 2\n# TYPE doris_be_changelog_ttl_last_success_timestamp_seconds gauge\ndoris_be_changelog_ttl_last_success_timestamp_seconds 1796070000\n",
			ConformOptions{Now: now}, map[string]int{RuleTTLCleanupFailed: 1, RuleTTLCleanupStale: 1}},
		{"unknown design family", "# TYPE doris_fe_ivm_new_signal gauge\ndoris_fe_ivm_new_signal 1\n", ConformOptions{Now: now}, map[string]int{RuleDesignUnknownFamily: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := conformRules(t, tc.payload, tc.opts)
			for rule, n := range tc.want {
				if got[rule] != n {
					t.Errorf("%s: got %d, want %d (all: %v)", rule, got[rule], n, got)
				}
			}
			for rule, n := range got {
				if _, ok := tc.want[rule]; !ok {
					t.Errorf("unexpected %s x%d", rule, n)
				}
			}
		})
	}
}

// TestNotKeptIsNotQuiet: a payload linted without the Doris profile keeps
// no sample; Conform says so instead of finding nothing.
func TestNotKeptIsNotQuiet(t *testing.T) {
	payload := master + "# TYPE doris_fe_ivm_mvs gauge\ndoris_fe_ivm_mvs{state=\"fresh\"} NaN\n"
	res, err := lint.Lint(strings.NewReader(payload), exposition.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var said bool
	for _, p := range Conform(res, ConformOptions{}) {
		said = said || p.Rule == RuleDesignNotChecked && strings.HasPrefix(p.Message, "2 changelog/IVM samples were not kept")
	}
	if !said {
		t.Fatalf("Conform is quiet on a payload whose samples were not kept: %+v", Conform(res, ConformOptions{}))
	}
	if got := conformRules(t, payload, ConformOptions{}); got[RuleDesignNotChecked] != 0 || got[RuleDesignNaN] != 1 {
		t.Fatalf("with the profile: %v", got)
	}
}

// TestNoLongFunctions: the rules stay small (Conform was one 221-line
// function); no function of the package is over 60 lines.
func TestNoLongFunctions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > 60 {
					t.Errorf("%s: %s is %d lines", name, fd.Name.Name, n)
				}
			}
		}
	}
}
