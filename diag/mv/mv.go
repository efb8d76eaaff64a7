package mv

import (
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// FreshnessState is an MV's freshness state (apache/doris#69907 §3
// "States"), written as its name. A state the server reports that is not
// one of these is kept as data (and raises MV_STATE_UNKNOWN).
type FreshnessState string

// The freshness states: the first that matches wins.
const (
	FreshUnknown         FreshnessState = "unknown"          // 4: an internal stream is missing, or an offset cannot be read
	FreshInitializing    FreshnessState = "initializing"     // 3: never refreshed successfully
	FreshRebuildRequired FreshnessState = "rebuild_required" // 2: a dirty partition in the maintained range
	FreshLagging         FreshnessState = "lagging"          // 1: changes not covered yet, including a refresh being published
	FreshFresh           FreshnessState = "fresh"            // 0
)

// FreshnessStates lists the five states in precedence order.
var FreshnessStates = []FreshnessState{FreshUnknown, FreshInitializing, FreshRebuildRequired, FreshLagging, FreshFresh}

// LaggingReason is why an MV is behind (apache/doris#69907 §3
// LAGGING_REASON), written as its name.
type LaggingReason string

// The lagging reasons, in the design's order: the first that matches.
const (
	ReasonRebuildRequired LaggingReason = "REBUILD_REQUIRED"
	ReasonPublishing      LaggingReason = "PUBLISHING"
	ReasonRunning         LaggingReason = "RUNNING"
	ReasonQueued          LaggingReason = "QUEUED"
	ReasonRefreshFailed   LaggingReason = "REFRESH_FAILED"
	ReasonJobPaused       LaggingReason = "JOB_PAUSED"
	ReasonWaitingSchedule LaggingReason = "WAITING_SCHEDULE"
	ReasonWaitingTrigger  LaggingReason = "WAITING_TRIGGER"
	ReasonNone            LaggingReason = "NONE"
)

// LaggingReasons lists the reasons in the design's order.
var LaggingReasons = []LaggingReason{ReasonRebuildRequired, ReasonPublishing, ReasonRunning, ReasonQueued, ReasonRefreshFailed,
	ReasonJobPaused, ReasonWaitingSchedule, ReasonWaitingTrigger, ReasonNone}

// Dependency states (seed ivm_dependencies.DEPENDENCY_STATE), plus UNKNOWN
// when the client cannot read the stream's offsets.
const (
	DepUsable       = "USABLE"
	DepMissing      = "MISSING"
	DepDisabled     = "DISABLED"
	DepStale        = "STALE"
	DepCannotResume = "CANNOT_RESUME"
	DepExcluded     = "EXCLUDED"
	DepUnknown      = "UNKNOWN"
)

// Defaults of the MV thresholds (BRIEF.md).
const (
	DefaultMaxDelay       = 5 * time.Minute
	DefaultMaxFailures    = 3
	DefaultMaxRunning     = time.Hour
	DefaultMaxQueued      = 10 * time.Minute
	DefaultFallbackWindow = time.Hour
	DefaultMinFallbacks   = 3
	DefaultHistoryLimit   = 20
)

// Options are the thresholds of the MV analysis.
type Options struct {
	MaxDelay       time.Duration // MV_DELAY_HIGH above this (critical at 3×)
	MaxFailures    int           // MV_CONSECUTIVE_FAILURES at or above this
	MaxRunning     time.Duration // MV_TASK_STUCK_RUNNING above this
	MaxQueued      time.Duration // MV_TASK_QUEUED_LONG above this
	FallbackWindow time.Duration // MV_FALLBACKS_REPEATED counts fallbacks this far back
	MinFallbacks   int           // MV_FALLBACKS_REPEATED at or above this many in the window
	HistoryLimit   int           // tasks kept per MV in the result
}

func (o Options) WithDefaults() Options {
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = DefaultMaxFailures
	}
	if o.MaxRunning <= 0 {
		o.MaxRunning = DefaultMaxRunning
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	if o.FallbackWindow <= 0 {
		o.FallbackWindow = DefaultFallbackWindow
	}
	if o.MinFallbacks <= 0 {
		o.MinFallbacks = DefaultMinFallbacks
	}
	if o.HistoryLimit <= 0 {
		o.HistoryLimit = DefaultHistoryLimit
	}
	return o
}

// Thresholds echoes the thresholds used, in seconds, for JSON readers.
type Thresholds struct {
	MaxDelaySeconds       float64 `json:"max_delay_seconds"`
	MaxFailures           int     `json:"max_failures"`
	MaxRunningSeconds     float64 `json:"max_running_seconds"`
	MaxQueuedSeconds      float64 `json:"max_queued_seconds"`
	FallbackWindowSeconds float64 `json:"fallback_window_seconds"`
	MinFallbacks          int     `json:"min_fallbacks"`
}

// Capabilities says which server sources the analysis could use.
type Capabilities struct {
	IvmMVStatus      bool `json:"ivm_mv_status"`      // information_schema.ivm_mv_status (seed T4)
	IvmDependencies  bool `json:"ivm_dependencies"`   // information_schema.ivm_dependencies (seed T4)
	IvmRefreshMethod bool `json:"ivm_refresh_method"` // tasks().IvmRefreshMethod (seed T3)
	ConsumptionT2    bool `json:"consumption_t2"`     // table_stream_consumption seed T2 columns
}

// Result is the MV analysis of a cluster at one time.
type Result struct {
	Now          time.Time    `json:"now"`
	Thresholds   Thresholds   `json:"thresholds"`
	Capabilities Capabilities `json:"capabilities"`
	MVs          []MV         `json:"mvs"`
	// NotIVM counts mv_infos() rows that are not IVM MVs (left out).
	NotIVM int `json:"not_ivm"`
	// UnmatchedInternalStreams names internal streams no MV of mv_infos()
	// claims (an MV dropped, or not visible to this user): listed, not dropped.
	UnmatchedInternalStreams []string       `json:"unmatched_internal_streams,omitempty"`
	Findings                 []diag.Finding `json:"findings"`
}

// ByName finds an MV; nil when absent.
func (r *Result) ByName(db, name string) *MV {
	if r == nil {
		return nil
	}
	for i := range r.MVs {
		if strings.EqualFold(r.MVs[i].DB, db) && r.MVs[i].Name == name {
			return &r.MVs[i]
		}
	}
	return nil
}

// FindingsFor returns the findings about one MV, in cause order (the true
// cause first, the symptoms after).
func (r *Result) FindingsFor(db, name string) []diag.Finding {
	var out []diag.Finding
	for _, f := range r.Findings {
		if f.Object.Kind == "mv" && strings.EqualFold(f.Object.DB, db) && f.Object.Name == name {
			out = append(out, f)
		}
	}
	sortByCause(out)
	return out
}

// MV is one IVM MV's diagnosis.
type MV struct {
	DB        string `json:"db"`
	Name      string `json:"name"`
	ID        int64  `json:"id"`
	JobName   string `json:"job_name,omitempty"`
	JobStatus string `json:"job_status,omitempty"` // jobs().Status
	State     string `json:"mv_state,omitempty"`   // mv_infos().State
	// SchemaChangeDetail is mv_infos().SchemaChangeDetail as written: why a
	// base-table change invalidated the MV (State SCHEMA_CHANGE).
	SchemaChangeDetail string       `json:"schema_change_detail,omitempty"`
	RefreshState       string       `json:"refresh_state,omitempty"`
	Refresh            RefreshInfo  `json:"refresh_info"`
	Excluded           []TableRef   `json:"excluded_trigger_tables,omitempty"`
	Properties         MvProperties `json:"-"`

	// FreshnessState is the seed state; StateSource says whether it is the
	// server's (ivm_mv_status) or the client's; StateReason why.
	FreshnessState FreshnessState `json:"freshness_state"`
	StateReason    string         `json:"state_reason"`
	StateSource    string         `json:"state_source"`
	// ClientState is the client's own state when the server's was used.
	ClientState FreshnessState `json:"client_state,omitempty"`
	// DataDelay: the largest trigger-dependency delay and dirty-partition
	// age, with its precision (seed §3 "MV data delay").
	DataDelay diag.Value `json:"data_delay"`
	// ClientDelay is the client's own delay when the server's was used.
	ClientDelay   *diag.Value   `json:"client_delay,omitempty"`
	LaggingReason LaggingReason `json:"lagging_reason"`
	// LaggingReasonSource is "server" or "client"; the client cannot see
	// PUBLISHING or REBUILD_REQUIRED (they need the server's sampler).
	LaggingReasonSource string `json:"lagging_reason_source"`

	Dependencies []Dependency `json:"dependencies"`
	// WorstPartitions are the base partitions behind, worst first (bounded).
	WorstPartitions []WorstPartition `json:"worst_partitions"`
	// ExcludedOutdated names the excluded dependencies changed since covered.
	ExcludedOutdated []string `json:"excluded_outdated,omitempty"`
	// ExcludedOutdatedCount is how many, when the server's
	// EXCLUDED_OUTDATED_DEPENDENCIES is a count (no names); nil otherwise.
	ExcludedOutdatedCount *int64      `json:"excluded_outdated_count,omitempty"`
	MaxExcludedDelay      *diag.Value `json:"max_excluded_delay,omitempty"`
	// MinHeadroomSeconds is the smallest retention headroom of the internal
	// streams (negative: the next refresh may only recompute, T9).
	MinHeadroomSeconds *float64 `json:"min_headroom_seconds,omitempty"`
	DirtyPartitions    string   `json:"dirty_partitions,omitempty"`
	// DirtyPartitionCount is how many, when the server's DIRTY_PARTITIONS is
	// a count (no names); nil otherwise.
	DirtyPartitionCount *int64 `json:"dirty_partition_count,omitempty"`

	History refresh.History `json:"history"`
	// Server holds ivm_mv_status as the server filled it.
	Server *snapshot.MVStatus `json:"server,omitempty"`
	// Undetectable lists what this build cannot show (no server tables).
	Undetectable []string `json:"undetectable,omitempty"`

	// Headline is the one-line answer; Causes the findings' summaries in
	// cause order; Next the SQL to paste.
	Headline string   `json:"headline"`
	Causes   []string `json:"causes"`
	Next     []string `json:"next"`
	Severity string   `json:"severity,omitempty"`
	severity diag.Severity
}

// Dependency is one base table of an MV (seed ivm_dependencies).
type Dependency struct {
	BaseTableDB   string `json:"base_table_db"`
	BaseTableName string `json:"base_table_name"`
	BaseTableID   *int64 `json:"base_table_id,omitempty"`
	Excluded      bool   `json:"is_excluded_trigger"`
	StreamName    string `json:"stream_name,omitempty"`
	StreamID      *int64 `json:"stream_id,omitempty"`
	// StreamState is the internal stream's state from the stream analysis.
	StreamState     streams.State `json:"stream_state,omitempty"`
	DependencyState string        `json:"dependency_state"`
	// Covered: the MV's visible data covers every change of this table.
	Covered           *bool      `json:"covered,omitempty"`
	LaggingPartitions []string   `json:"lagging_partitions,omitempty"`
	WorstPartition    string     `json:"worst_partition,omitempty"`
	Delay             diag.Value `json:"delay"`
	// ClientDelay is the client's own delay when Delay came from the server.
	ClientDelay       *diag.Value `json:"client_delay,omitempty"`
	HeadroomSeconds   *float64    `json:"headroom_seconds,omitempty"`
	HeadroomPartition string      `json:"headroom_partition,omitempty"`
	CanResume         *bool       `json:"can_resume,omitempty"`
	CoveredVersion    *int64      `json:"covered_version,omitempty"`
	CurrentVersion    *int64      `json:"current_version,omitempty"`
	KeyModel          string      `json:"key_model,omitempty"`
	TTLSeconds        *int64      `json:"ttl_seconds,omitempty"`
	RowsMayBeMissed   string      `json:"rows_may_be_missed,omitempty"` // RowsMissedExpiredDupKeys | RowsMissedNoOffset | ""
	RowsMissedDetail  string      `json:"rows_missed_detail,omitempty"`
	RowsMissedUnit    string      `json:"rows_missed_partition,omitempty"`
	Source            string      `json:"source"` // server | client
	Note              string      `json:"note,omitempty"`
	stream            *streams.Stream
}

// WorstPartition is one base partition behind, for `mv explain`.
type WorstPartition struct {
	BaseTable       string              `json:"base_table"`
	Stream          string              `json:"stream"`
	StreamID        int64               `json:"stream_id"`
	Unit            string              `json:"unit"`
	OffsetState     streams.OffsetState `json:"offset_state"`
	PendingAge      diag.Value          `json:"pending_age"`
	HeadroomSeconds *float64            `json:"headroom_seconds,omitempty"`
	CanResume       *bool               `json:"can_resume,omitempty"`
	NextRead        string              `json:"next_read,omitempty"`
}

// HasExcludedOutdated: an excluded trigger table changed since the MV
// covered it, by name or (server count) by number.
func (r *MV) HasExcludedOutdated() bool {
	return len(r.ExcludedOutdated) > 0 || (r.ExcludedOutdatedCount != nil && *r.ExcludedOutdatedCount > 0)
}

// dirtyText names the dirty partitions, or says how many; "" when none is known.
func (r *MV) dirtyText() string {
	if r.DirtyPartitions != "" {
		return r.DirtyPartitions
	}
	if r.DirtyPartitionCount != nil && *r.DirtyPartitionCount > 0 {
		return strconv.FormatInt(*r.DirtyPartitionCount, 10)
	}
	return ""
}

// The values of DependencyResult.RowsMayBeMissed: why rows of a base
// partition may be missing from the MV, each the case one fix of
// apache/doris#69907 closes (T10 and T11 in its "Sub tasks"). The values
// name the case, not the task, so that JSON speaks for itself.
const (
	// RowsMissedExpiredDupKeys: a duplicate-key base table with changes
	// after an offset that left the retention (T10).
	RowsMissedExpiredDupKeys = "expired_offset_duplicate_key"
	// RowsMissedNoOffset: a base partition with data and no offset whose
	// rows may be older than the TTL (T11).
	RowsMissedNoOffset = "no_offset_partition"
)

// rowsMissedFix names the fix that closes each case, as a user reads it.
var rowsMissedFix = map[string]string{
	RowsMissedExpiredDupKeys: "the fix that rejects an expired offset in every IVM read, including one of a duplicate-key base table (apache/doris#69907 T10)",
	RowsMissedNoOffset:       "the fix that reads a base partition with no offset from the base table in an IVM refresh (apache/doris#69907 T11)",
}

// StateNumbers is the number the design's per-MV freshness gauge exports
// (§3 "States"; StateNumber is the streams').
var StateNumbers = map[FreshnessState]float64{FreshFresh: 0, FreshLagging: 1, FreshRebuildRequired: 2, FreshInitializing: 3, FreshUnknown: 4}

// StatesByNumber lists the five freshness states in the order of their numbers.
var StatesByNumber = []FreshnessState{FreshFresh, FreshLagging, FreshRebuildRequired, FreshInitializing, FreshUnknown}

// The Doris texts diag reads are parsed once, in the snapshot package, when
// the snapshot is built or loaded (snapshot.Normalize); diag reads only the
// typed fields. These aliases keep diag's result types' names.
type (
	// RefreshInfo is mv_infos().RefreshInfo parsed (snapshot.ParseRefreshInfo).
	RefreshInfo = snapshot.RefreshInfo
	// TableRef names a table "[ctl.][db.]name".
	TableRef = snapshot.TableRef
	// MvProperties is mv_infos().MvProperties parsed (snapshot.ParseMvProperties).
	MvProperties = snapshot.MvProperties
)
