package exposition

import "sort"

// The seed's reference tables (§2 "Reference", §3 "States"), as data.

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

// DesignFamilyNames lists the families of the seed's reference tables,
// sorted: what a Master FE with the monitor (or dorisdiag exporter) serves.
func DesignFamilyNames() []string {
	out := make([]string, 0, len(designFamilies))
	for n := range designFamilies {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// designFamilies is the seed's reference tables (§2 "Reference").
var designFamilies = map[string]famSpec{
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

// StreamStates and MVStates are the designed state label values (seed §3
// "States"), in the order of their numbers.
var (
	StreamStates = []string{"caught_up", "lagging", "initializing", "cannot_resume", "unknown", "stale", "disabled"}
	MVStates     = []string{"fresh", "lagging", "rebuild_required", "initializing", "unknown"}
	DelayBuckets = []string{"60", "300", "900", "3600", "+Inf"}
)

// allowedValues: family → label → allowed values; "*" family applies to all.
var allowedValues = map[string]map[string][]string{
	"doris_fe_changelog_streams":                               {"kind": {"user", "ivm"}, "state": StreamStates},
	"doris_fe_changelog_stream_max_pending_age_seconds":        {"kind": {"user", "ivm"}},
	"doris_fe_changelog_stream_min_retention_headroom_seconds": {"kind": {"user", "ivm"}},
	"doris_fe_changelog_read_window_events_total":              {"outcome": {"expired_rejected", "expired_clipped"}, "consumer": {"stream", "ivm", "query"}},
	"doris_fe_changelog_retained_bytes":                        {"scope": {"single_replica", "all_replicas"}},
	"doris_fe_ivm_mvs":                                         {"state": MVStates},
	"doris_fe_ivm_mvs_by_data_delay":                           {"le": DelayBuckets},
	"doris_fe_ivm_refresh_tasks_total":                         {"result": {"success", "no_change", "failed", "canceled"}, "method": {"none", "incremental", "partition_rebuild", "complete", "mixed"}},
	"doris_fe_ivm_refresh_duration_seconds_total":              {"method": {"none", "incremental", "partition_rebuild", "complete", "mixed"}},
	"doris_fe_changelog_ivm_monitor_objects_not_exported":      {"type": {"mv", "stream"}},
	"doris_be_changelog_ttl_cleanup_total":                     {"result": {"success", "failed"}},
}

// expectedCombos: cluster-level families that should carry every combination.
var expectedCombos = map[string]int{
	"doris_fe_changelog_streams":                          14, // 2 kinds x 7 states
	"doris_fe_ivm_mvs":                                    5,
	"doris_fe_ivm_mvs_by_data_delay":                      5,
	"doris_fe_changelog_ivm_monitor_objects_not_exported": 2,
}

// clusterFor: per-object families need these cluster-level ones.
var clusterFor = map[string][]string{
	"mv":     {"doris_fe_ivm_mvs", "doris_fe_ivm_mv_max_data_delay_seconds", "doris_fe_ivm_mvs_by_data_delay", "doris_fe_changelog_ivm_monitor_objects_not_exported"},
	"stream": {"doris_fe_changelog_streams", "doris_fe_changelog_stream_max_pending_age_seconds", "doris_fe_changelog_stream_min_retention_headroom_seconds", "doris_fe_changelog_ivm_monitor_objects_not_exported"},
}

const lastSampleFamily = "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds"
