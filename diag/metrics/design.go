// Package metrics holds what dorisdiag knows of the Doris /metrics payload:
// the monitoring design's reference tables (apache/doris#69907, "Reference"
// and "States"), the lint profile of a Doris FE or BE (which families the
// generic linter keeps, which known quirks it names), the design's
// conformance rules, and the changelog space signals of one payload.
//
// The exposition package lints any Prometheus text and knows nothing of
// Doris; LintOptions is how a caller lints a Doris payload, and Conform and
// SpaceSignals read what that lint kept. Nothing here reads the wall clock:
// Conform takes "now" in its options.
package metrics

import (
	"sort"
	"strings"
	"sync"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// The design's reference tables (apache/doris#69907, "Reference" and
// "States"), as data.

// negative values a family allows
const (
	negNone   = iota
	negMinus1 // -1 means unknown
	negAny    // a headroom
)

type famSpec struct {
	typ        string
	labels     []string
	object     string // "mv", "stream" or "" (cluster level)
	masterOnly bool
	neg        int
	maxState   int // per-object state gauges: the largest state number
}

var (
	mvObjLabels     = []string{"db_id", "db_name", "mv_id", "mv_name"}
	streamObjLabels = []string{"db_id", "db_name", "stream_id", "stream_name"}
)

// DesignFamilyNames lists the families of the design's reference tables,
// sorted: what a Master FE with the monitor (or dorisdiag exporter) serves.
func DesignFamilyNames() []string {
	out := make([]string, 0, len(designFamilies()))
	for n := range designFamilies() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// designFamilies is the design's reference tables ("Reference"). It and the
// maps below are built at their first use (a lint), not at every start of
// dorisdiag (docs/performance.md "Start-up and binary size").
var designFamilies = sync.OnceValue(func() map[string]famSpec {
	return map[string]famSpec{
		"doris_fe_changelog_streams":                                   {typ: "gauge", labels: []string{"kind", "state"}, masterOnly: true},
		"doris_fe_changelog_stream_max_pending_age_seconds":            {typ: "gauge", labels: []string{"kind"}, masterOnly: true},
		"doris_fe_changelog_stream_min_retention_headroom_seconds":     {typ: "gauge", labels: []string{"kind"}, masterOnly: true, neg: negAny},
		"doris_fe_changelog_read_window_events_total":                  {typ: "counter", labels: []string{"outcome", "consumer"}},
		"doris_fe_changelog_stream_gap_commits_total":                  {typ: "counter", masterOnly: true},
		"doris_fe_changelog_retained_bytes":                            {typ: "gauge", labels: []string{"scope"}, masterOnly: true},
		"doris_fe_ivm_mvs":                                             {typ: "gauge", labels: []string{"state"}, masterOnly: true},
		"doris_fe_ivm_mv_max_data_delay_seconds":                       {typ: "gauge", masterOnly: true},
		"doris_fe_ivm_mvs_by_data_delay":                               {typ: "gauge", labels: []string{"le"}, masterOnly: true},
		"doris_fe_ivm_mvs_excluded_dependency_outdated":                {typ: "gauge", masterOnly: true},
		"doris_fe_ivm_refresh_tasks_total":                             {typ: "counter", labels: []string{"result", "method"}},
		"doris_fe_ivm_refresh_duration_seconds_total":                  {typ: "counter", labels: []string{"method"}},
		"doris_fe_ivm_fallbacks_total":                                 {typ: "counter", labels: []string{"reason"}},
		"doris_fe_ivm_refresh_failures_total":                          {typ: "counter", labels: []string{"reason"}},
		"doris_fe_ivm_schedule_rejected_total":                         {typ: "counter"},
		"doris_fe_ivm_task_oldest_pending_age_seconds":                 {typ: "gauge", masterOnly: true},
		"doris_fe_ivm_task_oldest_running_age_seconds":                 {typ: "gauge", masterOnly: true},
		"doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds": {typ: "gauge", masterOnly: true},
		"doris_fe_changelog_ivm_monitor_sample_duration_seconds":       {typ: "gauge", masterOnly: true},
		"doris_fe_changelog_ivm_monitor_sample_failures_total":         {typ: "counter", masterOnly: true},
		"doris_fe_changelog_ivm_monitor_objects_not_exported":          {typ: "gauge", labels: []string{"type"}, masterOnly: true},

		"doris_fe_ivm_mv_data_delay_seconds":            {typ: "gauge", labels: mvObjLabels, object: "mv", masterOnly: true, neg: negMinus1},
		"doris_fe_ivm_mv_freshness_state":               {typ: "gauge", labels: mvObjLabels, object: "mv", masterOnly: true, maxState: 4},
		"doris_fe_ivm_mv_consecutive_failures":          {typ: "gauge", labels: mvObjLabels, object: "mv", masterOnly: true},
		"doris_fe_ivm_mv_fallbacks_total":               {typ: "counter", labels: mvObjLabels, object: "mv", masterOnly: true},
		"doris_fe_ivm_mv_last_refresh_duration_seconds": {typ: "gauge", labels: mvObjLabels, object: "mv", masterOnly: true},

		"doris_fe_changelog_stream_state":                      {typ: "gauge", labels: streamObjLabels, object: "stream", masterOnly: true, maxState: 6},
		"doris_fe_changelog_stream_pending_age_seconds":        {typ: "gauge", labels: streamObjLabels, object: "stream", masterOnly: true, neg: negMinus1},
		"doris_fe_changelog_stream_retention_headroom_seconds": {typ: "gauge", labels: streamObjLabels, object: "stream", masterOnly: true, neg: negAny},
		"doris_fe_changelog_stream_gap_events_total":           {typ: "counter", labels: streamObjLabels, object: "stream", masterOnly: true},

		"doris_be_changelog_ttl_cleanup_total":                  {typ: "counter", labels: []string{"result"}},
		"doris_be_changelog_ttl_reclaimed_bytes_total":          {typ: "counter"},
		"doris_be_changelog_ttl_last_success_timestamp_seconds": {typ: "gauge"},
	}
})

// streamStates and mvStates are the designed state label values
// ("States"), in the order of their numbers; delayBuckets the le values of
// doris_fe_ivm_mvs_by_data_delay.
var (
	streamStates = []string{"caught_up", "lagging", "initializing", "cannot_resume", "unknown", "stale", "disabled"}
	mvStates     = []string{"fresh", "lagging", "rebuild_required", "initializing", "unknown"}
	delayBuckets = []string{"60", "300", "900", "3600", "+Inf"}
)

// allowedValues: family → label → allowed values.
var allowedValues = sync.OnceValue(func() map[string]map[string][]string {
	return map[string]map[string][]string{
		"doris_fe_changelog_streams":                               {"kind": {"user", "ivm"}, "state": streamStates},
		"doris_fe_changelog_stream_max_pending_age_seconds":        {"kind": {"user", "ivm"}},
		"doris_fe_changelog_stream_min_retention_headroom_seconds": {"kind": {"user", "ivm"}},
		"doris_fe_changelog_read_window_events_total":              {"outcome": {"expired_rejected", "expired_clipped"}, "consumer": {"stream", "ivm", "query"}},
		"doris_fe_changelog_retained_bytes":                        {"scope": {"single_replica", "all_replicas"}},
		"doris_fe_ivm_mvs":                                         {"state": mvStates},
		"doris_fe_ivm_mvs_by_data_delay":                           {"le": delayBuckets},
		"doris_fe_ivm_refresh_tasks_total":                         {"result": {"success", "no_change", "failed", "canceled"}, "method": {"none", "incremental", "partition_rebuild", "complete", "mixed"}},
		"doris_fe_ivm_refresh_duration_seconds_total":              {"method": {"none", "incremental", "partition_rebuild", "complete", "mixed"}},
		"doris_fe_changelog_ivm_monitor_objects_not_exported":      {"type": {"mv", "stream"}},
		"doris_be_changelog_ttl_cleanup_total":                     {"result": {"success", "failed"}},
	}
})

// expectedCombos: cluster-level families that should carry every combination.
var expectedCombos = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"doris_fe_changelog_streams":                          14, // 2 kinds x 7 states
		"doris_fe_ivm_mvs":                                    5,
		"doris_fe_ivm_mvs_by_data_delay":                      5,
		"doris_fe_changelog_ivm_monitor_objects_not_exported": 2,
	}
})

// clusterFor: per-object families need these cluster-level ones.
var clusterFor = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"mv":     {"doris_fe_ivm_mvs", "doris_fe_ivm_mv_max_data_delay_seconds", "doris_fe_ivm_mvs_by_data_delay", "doris_fe_changelog_ivm_monitor_objects_not_exported"},
		"stream": {"doris_fe_changelog_streams", "doris_fe_changelog_stream_max_pending_age_seconds", "doris_fe_changelog_stream_min_retention_headroom_seconds", "doris_fe_changelog_ivm_monitor_objects_not_exported"},
	}
})

const (
	lastSampleFamily  = "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds"
	notExportedFamily = "doris_fe_changelog_ivm_monitor_objects_not_exported"
	bucketsFamily     = "doris_fe_ivm_mvs_by_data_delay"
	mvCountFamily     = "doris_fe_ivm_mvs"
	streamCountFamily = "doris_fe_changelog_streams"
	mvDelayFamily     = "doris_fe_ivm_mv_data_delay_seconds"
	ttlCleanupFamily  = "doris_be_changelog_ttl_cleanup_total"
	ttlLastSuccess    = "doris_be_changelog_ttl_last_success_timestamp_seconds"
	// nodeInfoFamily is the FE's node_info; node_info{type="is_master"} 1
	// marks the Master.
	nodeInfoFamily = "node_info"
)

// isDesignFamily: a family of the design's namespaces, or node_info (the
// Master marker). These are the families LintOptions keeps.
func isDesignFamily(name string) bool {
	return strings.HasPrefix(name, "doris_fe_changelog_") || strings.HasPrefix(name, "doris_fe_ivm_") ||
		strings.HasPrefix(name, "doris_be_changelog_") || name == nodeInfoFamily
}

// IsMaster reports node_info{type="is_master"} 1 in a payload linted with
// LintOptions.
func IsMaster(res *exposition.Result) bool {
	for _, s := range res.Samples {
		if s.Name == nodeInfoFamily && s.Labels["type"] == "is_master" && s.Value == 1 {
			return true
		}
	}
	return false
}

// IsDorisdiagExporter reports a payload served by `dorisdiag exporter`
// (its own dorisdiag_exporter_design_series family), which serves the
// Master's series from outside the FE.
func IsDorisdiagExporter(res *exposition.Result) bool {
	for _, f := range res.Families {
		if f.Name == "dorisdiag_exporter_design_series" {
			return true
		}
	}
	return false
}

// StateSeries counts the Master-only series in the payload.
func StateSeries(res *exposition.Result) int {
	n := 0
	for _, f := range res.Families {
		if spec, ok := designFamilies()[f.Name]; ok && spec.masterOnly {
			n += f.Series
		}
	}
	return n
}
