// Package snapshot is the one versioned model every diagnosis starts from
// (design.md "The pipeline": source → snapshot → diag → report).
//
// A snapshot holds the raw rows of every Doris system table the collector read,
// typed, with NULL, `\N`, `N/A` and `-1` normalised (nil pointers) and the
// original text kept where it matters (ConsumptionStatus, Lag). It never holds
// a password. Analysis uses Cluster.Now — the physical time of the cluster's
// current TSO — never the wall clock of the machine that reads it, so a saved
// snapshot analyses the same way tomorrow.
//
// Schema history (bump SchemaVersion on any change that an older reader would
// misread; adding an optional field does not need a bump):
//
//	1  first version (2026-11). Later in version 1: the optional "kind":
//	   "snapshot" next to schema_version (issue 12; Write always adds it,
//	   Decode accepts files without it and refuses any other kind). No bump:
//	   an older reader ignores the unknown field and reads the file the same.
//	   Later in version 1: the optional "doctor" section (issue 22; no bump,
//	   for the same reason). Later in version 1: the optional
//	   "external_consumers" section (issue 23; no bump, for the same reason).
package snapshot

import (
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/tso"
)

// SchemaVersion is the version this build writes and the newest it reads.
const SchemaVersion = 1

// Kind is the "kind" of a snapshot file, as every dorisdiag JSON document
// names its kind (docs/schema/snapshot.schema.json).
const Kind = "snapshot"

// Snapshot is one capture of a cluster's changelog consumers.
type Snapshot struct {
	SchemaVersion int          `json:"schema_version"`
	Kind          string       `json:"kind,omitempty"` // "snapshot" in every file Write writes (absent in older files); "" in memory
	TakenAt       time.Time    `json:"taken_at"`       // client wall clock at capture; informational only
	Source        Source       `json:"source"`
	Cluster       Cluster      `json:"cluster"`
	Capabilities  Capabilities `json:"capabilities"`
	// TTLEnforcement says whether this build enforces the changelog TTL
	// (yes, no or unknown) and the evidence (ttl_enforcement.go). Derived by
	// Normalize from the rows on every build and load, never written (as
	// every parse, docs/snapshot.md "Parsed once"), plus the user's word
	// (AssumeTTLEnforced, applied to the loaded snapshot); nil when there
	// is no evidence at all: unknown (TTL()).
	TTLEnforcement *TTLEnforcement `json:"-"`

	Frontends []Node `json:"frontends"` // SHOW FRONTENDS
	Backends  []Node `json:"backends"`  // SHOW BACKENDS

	Tables []Table `json:"tables"` // base tables with a stream or an IVM MV
	// Databases is SHOW DATA's per-database sizes for the base tables'
	// databases (S5), when a per-database form answered (docs/snapshot.md
	// "SHOW DATA"); absent otherwise.
	Databases   []DatabaseSize `json:"databases,omitempty"`
	Partitions  []Partition    `json:"partitions,omitempty"` // information_schema.partitions, when readable
	Streams     []Stream       `json:"streams"`              // information_schema.table_streams
	Consumption []Consumption  `json:"consumption"`          // information_schema.table_stream_consumption
	MVs         []MVInfo       `json:"mvs"`                  // mv_infos("database"=...) for every database with MVs
	Jobs        []Job          `json:"jobs"`                 // jobs("type"="mv")
	Tasks       []Task         `json:"tasks"`                // tasks("type"="mv"), the latest N per MV

	MVStatus     []MVStatus   `json:"ivm_mv_status,omitempty"`    // information_schema.ivm_mv_status (seed T4), when present
	Dependencies []Dependency `json:"ivm_dependencies,omitempty"` // information_schema.ivm_dependencies (seed T4), when present

	Metrics []MetricsPayload `json:"metrics,omitempty"` // optional /metrics payloads

	// Doctor is what `dorisdiag doctor` read of the configuration and the
	// network (doctor.go); absent when no doctor ran.
	Doctor *Doctor `json:"doctor,omitempty"`

	// ExternalConsumers are the readers declared in the config file
	// (consumers:) that keep their position in an offset table of their own
	// (the Flink Doris connector), with what the collection read of each
	// (consumers.go); absent when none was declared.
	ExternalConsumers []ExternalConsumer `json:"external_consumers,omitempty"`

	// CouldNotRead lists every source that failed, with why; the rest of the
	// snapshot is still valid (design.md "Partial failures").
	CouldNotRead []ReadGap `json:"could_not_read"`
	// Malformed lists every value the collector could not interpret; such a
	// value is nil in its row and counted here, never silently dropped.
	Malformed []Malformed `json:"malformed,omitempty"`
}

// Source says where a snapshot came from.
type Source struct {
	Kind     string `json:"kind"`               // live | file | demo
	Host     string `json:"host,omitempty"`     // live: FE host
	Port     int    `json:"port,omitempty"`     // live: FE query port
	User     string `json:"user,omitempty"`     // live: user name (never the password)
	Scenario string `json:"scenario,omitempty"` // demo: scenario name
	File     string `json:"file,omitempty"`     // file: path it was loaded from (not serialised back meaningfully)
	Queries  int    `json:"queries,omitempty"`  // live: statements sent
	// TasksPerMV is the tasks() window the collector read per MV (live;
	// default 20): the task history in the snapshot is at most this deep.
	TasksPerMV int `json:"tasks_per_mv,omitempty"`
	// DurationMs is how long the live collection took (client wall clock).
	DurationMs int64 `json:"duration_ms,omitempty"`
}

// Cluster holds the cluster's own clock and identity.
type Cluster struct {
	// CurrentTSO is the analysis clock: information_schema.tso_status.CURRENT_TSO
	// (or SHOW TSO STATUS, or GET /api/tso — see ClockSource).
	CurrentTSO tso.TSO `json:"current_tso"`
	// Now is physical(CurrentTSO) as a time: "now" for every diagnosis.
	Now time.Time `json:"now"`
	// ClockSource names where CurrentTSO came from: "information_schema.tso_status",
	// "SHOW TSO STATUS", "GET /api/tso", or "scenario".
	ClockSource string `json:"clock_source"`
	// CommittedTSO is tso_status.COMMITTED_TSO (cloud mode); nil when absent or NULL.
	CommittedTSO *tso.TSO `json:"committed_tso,omitempty"`
	DorisVersion string   `json:"doris_version,omitempty"` // from SHOW FRONTENDS Version of the Master, or @@version_comment
	CloudMode    bool     `json:"cloud_mode"`
	// TimeZone is the session time zone the collector read datetime text in
	// (tasks()/jobs() CreateTime, ...): @@time_zone, or @@system_time_zone
	// when that is SYSTEM; "" when unknown (UTC assumed).
	TimeZone string `json:"time_zone,omitempty"`
	// Naming is "changelog" (5.0, seeds) or "binlog" (earlier builds) — the
	// property spelling seen on the base tables; "" when no table told.
	Naming string `json:"naming,omitempty"`
}

// Source names: the keys of Capabilities.Sources and the Source of a ReadGap,
// spelled once, in the wire contract (doris/).
const (
	SourceTSOStatus              = doris.SourceTSOStatus
	SourceShowTSOStatus          = doris.SourceShowTSOStatus
	SourceHTTPTSO                = doris.SourceHTTPTSO
	SourceTableStreams           = doris.SourceTableStreams
	SourceTableStreamConsumption = doris.SourceTableStreamConsumption
	SourceTableProperties        = doris.SourceTableProperties
	SourceTableOptions           = doris.SourceTableOptions
	SourceMetadataNameIDs        = doris.SourceMetadataNameIDs
	SourcePartitions             = doris.SourcePartitions
	SourceIVMMVStatus            = doris.SourceIVMMVStatus
	SourceIVMDependencies        = doris.SourceIVMDependencies
	SourceColumns                = doris.SourceColumns
	SourceMVInfos                = doris.SourceMVInfos
	SourceJobs                   = doris.SourceJobs
	SourceTasks                  = doris.SourceTasks
	SourceFrontends              = doris.SourceFrontends
	SourceBackends               = doris.SourceBackends
	SourceShowData               = doris.SourceShowData
	SourceShowCreateTable        = doris.SourceShowCreateTable
	SourceMetrics                = doris.SourceMetrics
	SourceOffsetTable            = doris.SourceOffsetTable
)

// Capabilities records which sources and columns the build has. A missing
// newer column is recorded as absent, never an error.
type Capabilities struct {
	// Sources maps a source name ("information_schema.table_streams",
	// "tasks()", "SHOW DATA", ...) to what was found.
	Sources map[string]SourceCapability `json:"sources"`
}

// SourceCapability is one source's presence and its columns, as the server named them.
type SourceCapability struct {
	Present bool     `json:"present"`
	Columns []string `json:"columns,omitempty"`
	// Note says which form of the source answered when an earlier form
	// failed and another superseded it (e.g. SHOW DATA's ADMIN-only form
	// refused, the per-table form used): a fallback, not a gap.
	Note string `json:"note,omitempty"`
}

// Node is one frontend or backend.
type Node struct {
	Kind      string `json:"kind"` // fe | be
	ID        string `json:"id,omitempty"`
	Host      string `json:"host"`
	HTTPPort  int    `json:"http_port,omitempty"`
	QueryPort int    `json:"query_port,omitempty"` // fe only
	IsMaster  bool   `json:"is_master,omitempty"`  // fe only
	Alive     bool   `json:"alive"`
	Version   string `json:"version,omitempty"`
}

// Table is one base table of a stream or an IVM MV.
type Table struct {
	Catalog string `json:"catalog,omitempty"`
	DB      string `json:"db"`
	Name    string `json:"name"`
	ID      *int64 `json:"id,omitempty"`
	// KeyModel is DUP_KEYS, UNIQUE_KEYS or AGG_KEYS (information_schema.table_options
	// TABLE_MODEL, or SHOW CREATE TABLE); "" when unknown.
	KeyModel string `json:"key_model,omitempty"`
	// ChangelogEnabled is changelog.enable / binlog.enable; nil when unknown.
	ChangelogEnabled *bool `json:"changelog_enabled,omitempty"`
	// TTLSeconds is changelog.ttl_seconds / binlog.ttl_seconds; nil when unknown,
	// 0 or negative when the TTL is off.
	TTLSeconds *int64 `json:"ttl_seconds,omitempty"`
	// TTLSource says how TTLSeconds was learnt: "table_properties",
	// "SHOW CREATE TABLE", "default" (property absent, Doris default 86400 assumed).
	TTLSource string `json:"ttl_source,omitempty"`
	// PropertyNaming is "changelog" or "binlog": which spelling the table used.
	PropertyNaming string `json:"property_naming,omitempty"`
	// Properties keeps the changelog/binlog properties exactly as read.
	Properties map[string]string `json:"properties,omitempty"`
	// ChangelogSizeBytes is SHOW DATA's BinlogSize of the table (S5; the
	// Total row of SHOW DATA FROM db.tbl, or 0 when its database's BinlogSize
	// is 0); nil where the build has no BinlogSize or it was not read.
	ChangelogSizeBytes *int64 `json:"changelog_size_bytes,omitempty"`
	// ChangelogSizeText is the size exactly as SHOW DATA printed it when that
	// was the human form ("1.500 MB": rounded to 3 decimals, so
	// ChangelogSizeBytes is approximate); "" when the bytes are exact.
	ChangelogSizeText string `json:"changelog_size_text,omitempty"`
}

// DatabaseSize is one database's row of SHOW DATA's per-database forms
// (raw byte counts; ShowDataCommand getDbStatsByProperties / getAllDbStats).
type DatabaseSize struct {
	DB string `json:"db"`
	// BinlogSizeBytes is the database's BinlogSize: the changelog size summed
	// over its OLAP tables; nil where the build has no BinlogSize.
	BinlogSizeBytes *int64 `json:"binlog_size_bytes,omitempty"`
	// DataSizeBytes is DataSize (PROPERTIES form) or Size (all-databases form).
	DataSizeBytes *int64 `json:"data_size_bytes,omitempty"`
	// Statement is the form that gave the row: "SHOW DATA PROPERTIES" or
	// "SHOW DATA".
	Statement string `json:"statement"`
}

// Partition is one base-table partition (information_schema.partitions or SHOW PARTITIONS).
type Partition struct {
	DB             string `json:"db"`
	Table          string `json:"table"`
	Name           string `json:"name"`
	ID             *int64 `json:"id,omitempty"`
	VisibleVersion *int64 `json:"visible_version,omitempty"`
	// VisibleTimeMs is when the latest version became visible (Unix ms).
	VisibleTimeMs *int64 `json:"visible_time_ms,omitempty"`
	// CreateTimeMs is when the partition was created (Unix ms); nil when
	// unknown. Real Doris always serves CREATE_TIME 0 (the FE writes "NULL"
	// into a BIGINT column, the BE stores 0), so 0 is read, and loaded, as
	// unknown (PlausibleCreateTimeMs).
	CreateTimeMs *int64 `json:"create_time_ms,omitempty"`
	Rows         *int64 `json:"rows,omitempty"`
	DataBytes    *int64 `json:"data_bytes,omitempty"`
}

// Stream is one row of information_schema.table_streams.
type Stream struct {
	DB            string `json:"db"`
	Name          string `json:"name"`
	ID            int64  `json:"id"`
	Type          string `json:"type,omitempty"`         // OLAP_TABLE_STREAM
	ConsumeType   string `json:"consume_type,omitempty"` // APPEND_ONLY | MIN_DELTA | DETAIL (older: DEFAULT)
	Comment       string `json:"comment,omitempty"`
	BaseTableCtl  string `json:"base_table_ctl,omitempty"`
	BaseTableDB   string `json:"base_table_db,omitempty"`
	BaseTableName string `json:"base_table_name,omitempty"`
	BaseTableType string `json:"base_table_type,omitempty"`
	// BaseTableDropped is true when the base table no longer exists:
	// BASE_TABLE_TYPE reads N/A, with the other three base columns N/A too
	// on earlier builds, or kept on later ones (BaseTableDroppedShape).
	BaseTableDropped bool `json:"base_table_dropped,omitempty"`
	// BaseTableDroppedShape is how the build wrote the dropped base table,
	// derived by Normalize from the raw columns (never written):
	// DroppedAllNA (earlier builds: all four BASE_TABLE_* read N/A) or
	// DroppedTypeNA (later builds: BASE_TABLE_NAME, _DB and _CTL kept, N/A
	// in BASE_TABLE_TYPE only, ENABLED false, IS_STALE true, STALE_REASON
	// "Base table does not exist"; regression test
	// test_ivm_drop_base_table_stream_state); "" when not dropped, or when
	// the row did not keep its raw columns.
	BaseTableDroppedShape string `json:"-"`
	Enabled               bool   `json:"enabled"`
	IsStale               bool   `json:"is_stale"`
	StaleReason           string `json:"stale_reason,omitempty"` // "" for N/A

	// Seed T2 columns; nil when the build lacks them or they are NULL.
	IvmMVID                     *int64   `json:"ivm_mv_id,omitempty"`
	MonitorState                *string  `json:"monitor_state,omitempty"`
	PendingPartitions           *int64   `json:"pending_partitions,omitempty"`
	MaxPendingAgeSeconds        *float64 `json:"max_pending_age_seconds,omitempty"`
	PendingAgePrecision         *string  `json:"pending_age_precision,omitempty"`
	CanResume                   *bool    `json:"can_resume,omitempty"`
	MinRetentionHeadroomSeconds *float64 `json:"min_retention_headroom_seconds,omitempty"`
	GapEvents                   *int64   `json:"gap_events,omitempty"`
	LastGapTimeMs               *int64   `json:"last_gap_time_ms,omitempty"`
	MonitorSampleTimeMs         *int64   `json:"monitor_sample_time_ms,omitempty"`
}

// IsInternal: the stream is an IVM MV's own (the wire contract's name rule,
// or the IVM_MV_ID column of builds that have it) — the one test every
// package reads, so a stream is never a user's in one view and an MV's in
// another.
func (s *Stream) IsInternal() bool { return s.IvmMVID != nil || doris.IsIvmStreamName(s.Name) }

// Consumption is one row of information_schema.table_stream_consumption: one
// stream and one source partition (UNIT).
type Consumption struct {
	DB         string `json:"db"`
	StreamName string `json:"stream_name"`
	StreamID   int64  `json:"stream_id"`
	Unit       string `json:"unit"` // partition name

	// ConsumptionStatus is the raw text (the offset TSO as decimal, or N/A).
	ConsumptionStatus string `json:"consumption_status"`
	// Offset is ConsumptionStatus parsed; nil when there is no real offset
	// (N/A, `\N`, empty, -1 or any value <= 0 — doris.md §4).
	Offset *tso.TSO `json:"offset,omitempty"`
	// Lag is the raw text of LAG (a TSO difference, or a version count on old builds).
	Lag string `json:"lag"`
	// LagValue is Lag parsed; nil for N/A.
	LagValue *int64 `json:"lag_value,omitempty"`
	// LastConsumptionTimeMs is LAST_CONSUMPTION_TIME; nil for -1 (never consumed).
	LastConsumptionTimeMs *int64 `json:"last_consumption_time_ms,omitempty"`

	// Seed T2/T5 columns; nil when the build lacks them or they are NULL.
	SourceEndTSO             *tso.TSO `json:"source_end_tso,omitempty"`
	ConsumedTSO              *tso.TSO `json:"consumed_tso,omitempty"`
	OffsetState              *string  `json:"offset_state,omitempty"` // CONSUMED | INITIAL_SNAPSHOT_PENDING | NO_OFFSET
	CaughtUp                 *bool    `json:"caught_up,omitempty"`
	PositionGapSeconds       *float64 `json:"position_gap_seconds,omitempty"`
	PendingAgeSeconds        *float64 `json:"pending_age_seconds,omitempty"`
	PendingAgePrecision      *string  `json:"pending_age_precision,omitempty"`
	RetentionApplicable      *bool    `json:"retention_applicable,omitempty"`
	RetentionFloorTSO        *tso.TSO `json:"retention_floor_tso,omitempty"`
	NextRequiredTSO          *tso.TSO `json:"next_required_tso,omitempty"`
	CanResume                *bool    `json:"can_resume,omitempty"`
	RetentionHeadroomSeconds *float64 `json:"retention_headroom_seconds,omitempty"`
	LastGapTimeMs            *int64   `json:"last_gap_time_ms,omitempty"`
}

// MVInfo is one row of mv_infos("database"=...). Values are kept as the server
// wrote them (`\N` → "" for the plain text columns); RefreshInfo, MvProperties
// and IvmBaseTableStreams are kept raw as evidence and parsed by Normalize.
type MVInfo struct {
	ID                  int64  `json:"id"`
	DB                  string `json:"db"` // the database mv_infos() was called for
	Name                string `json:"name"`
	JobName             string `json:"job_name,omitempty"`
	State               string `json:"state,omitempty"` // INIT | NORMAL | SCHEMA_CHANGE
	SchemaChangeDetail  string `json:"schema_change_detail,omitempty"`
	RefreshState        string `json:"refresh_state,omitempty"` // INIT | FAIL | SUCCESS
	RefreshInfo         string `json:"refresh_info,omitempty"`  // e.g. BUILD DEFERRED REFRESH INCREMENTAL ON COMMIT
	QuerySQL            string `json:"query_sql,omitempty"`
	EnvInfo             string `json:"env_info,omitempty"`
	MvProperties        string `json:"mv_properties,omitempty"` // contains excluded_trigger_tables
	MvPartitionInfo     string `json:"mv_partition_info,omitempty"`
	SyncWithBaseTables  *bool  `json:"sync_with_base_tables,omitempty"`
	IvmBaseTableStreams string `json:"ivm_base_table_streams,omitempty"` // format undocumented; kept raw

	// Derived from the raw text above by Normalize on every build and load
	// of a snapshot (docs/snapshot.md "Parsed once"); never written, so a
	// saved snapshot cannot carry a parse that disagrees with its text.
	Refresh          RefreshInfo      `json:"-"` // RefreshInfo parsed
	Properties       MvProperties     `json:"-"` // MvProperties parsed (Java Map.toString, JSON fallback)
	BaseTableStreams BaseTableStreams `json:"-"` // IvmBaseTableStreams parsed
}

// Job is one row of jobs("type"="mv").
type Job struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"` // inner_mtmv_<mvId>
	MVID              int64  `json:"mv_id"`
	MVName            string `json:"mv_name"`
	MVDatabaseID      *int64 `json:"mv_database_id,omitempty"`
	MVDatabaseName    string `json:"mv_database_name"`
	ExecuteType       string `json:"execute_type,omitempty"` // MANUAL | RECURRING | STREAMING | ...
	RecurringStrategy string `json:"recurring_strategy,omitempty"`
	Status            string `json:"status"` // RUNNING | PAUSED | ...
	CreateTimeMs      *int64 `json:"create_time_ms,omitempty"`
}

// Task is one row of tasks("type"="mv"). Times are Unix ms; nil for `\N`.
type Task struct {
	TaskID                int64  `json:"task_id"`
	JobID                 int64  `json:"job_id"`
	JobName               string `json:"job_name,omitempty"`
	MVID                  int64  `json:"mv_id"`
	MVName                string `json:"mv_name"`
	MVDatabaseID          *int64 `json:"mv_database_id,omitempty"`
	MVDatabaseName        string `json:"mv_database_name"`
	Status                string `json:"status"` // PENDING | RUNNING | SUCCESS | FAILED | CANCELED
	ErrorMsg              string `json:"error_msg,omitempty"`
	CreateTimeMs          *int64 `json:"create_time_ms,omitempty"`
	StartTimeMs           *int64 `json:"start_time_ms,omitempty"`
	FinishTimeMs          *int64 `json:"finish_time_ms,omitempty"`
	DurationMs            *int64 `json:"duration_ms,omitempty"`
	TaskContext           string `json:"task_context,omitempty"` // JSON text, e.g. {"triggerMode":"COMMIT"}
	RefreshMode           string `json:"refresh_mode,omitempty"` // COMPLETE | PARTIAL | NOT_REFRESH | "" (`\N`)
	NeedRefreshPartitions string `json:"need_refresh_partitions,omitempty"`
	CompletedPartitions   string `json:"completed_partitions,omitempty"`
	Progress              string `json:"progress,omitempty"`
	LastQueryID           string `json:"last_query_id,omitempty"`
	ComputeGroup          string `json:"compute_group,omitempty"`
	IvmFallbackReason     string `json:"ivm_fallback_reason,omitempty"` // "" = none
	// IvmRebuiltPartitions is the count as the server wrote it; nil for `\N`.
	IvmRebuiltPartitions *int64 `json:"ivm_rebuilt_partitions,omitempty"`
	// IvmRefreshMethod is the seed T3 column; nil when the build lacks it or it is NULL.
	IvmRefreshMethod *string `json:"ivm_refresh_method,omitempty"`

	// Context is TaskContext parsed by Normalize (never written).
	Context TaskContext `json:"-"`
}

// MVStatus is one row of information_schema.ivm_mv_status (seed T4).
type MVStatus struct {
	DB                  string   `json:"db"`
	MVName              string   `json:"mv_name"`
	MVID                int64    `json:"mv_id"`
	FreshnessState      string   `json:"freshness_state"`
	DataDelaySeconds    *float64 `json:"data_delay_seconds,omitempty"`
	DelayPrecision      string   `json:"delay_precision,omitempty"`
	LaggingReason       string   `json:"lagging_reason,omitempty"`
	LaggingDependencies string   `json:"lagging_dependencies,omitempty"`
	DirtyPartitions     string   `json:"dirty_partitions,omitempty"`
	// PendingPublishTxns is PENDING_PUBLISH_TXNS when it is a count.
	// PendingPublishTxnsText is the column's text as read (live
	// collections); Normalize derives PendingPublishTxns from it.
	PendingPublishTxns           *int64   `json:"pending_publish_txns,omitempty"`
	PendingPublishTxnsText       string   `json:"pending_publish_txns_text,omitempty"`
	ExcludedOutdatedDependencies string   `json:"excluded_outdated_dependencies,omitempty"`
	MaxExcludedDelaySeconds      *float64 `json:"max_excluded_delay_seconds,omitempty"`
	MinRetentionHeadroomSeconds  *float64 `json:"min_retention_headroom_seconds,omitempty"`
	JobStatus                    string   `json:"job_status,omitempty"`
	CurrentTaskID                *int64   `json:"current_task_id,omitempty"`
	CurrentTaskStatus            string   `json:"current_task_status,omitempty"`
	CurrentTaskAgeSeconds        *float64 `json:"current_task_age_seconds,omitempty"`
	ConsecutiveFailures          *int64   `json:"consecutive_failures,omitempty"`
	LastSuccessTimeMs            *int64   `json:"last_success_time_ms,omitempty"`
	LastFailureTimeMs            *int64   `json:"last_failure_time_ms,omitempty"`
	LastFailureReason            string   `json:"last_failure_reason,omitempty"`
	LastErrorMessage             string   `json:"last_error_message,omitempty"`
	LastRefreshMethod            string   `json:"last_refresh_method,omitempty"`
	LastRefreshDurationMs        *int64   `json:"last_refresh_duration_ms,omitempty"`
	FallbackCount                *int64   `json:"fallback_count,omitempty"`
	LastFallbackReason           string   `json:"last_fallback_reason,omitempty"`
	LastFallbackTimeMs           *int64   `json:"last_fallback_time_ms,omitempty"`
	SampleTimeMs                 *int64   `json:"sample_time_ms,omitempty"`

	// The four seed columns of open type (a count or a list of names),
	// parsed by Normalize from the raw text above (never written).
	Lagging          CountOrList `json:"-"` // LAGGING_DEPENDENCIES
	Dirty            CountOrList `json:"-"` // DIRTY_PARTITIONS
	PendingPublish   CountOrList `json:"-"` // PENDING_PUBLISH_TXNS
	ExcludedOutdated CountOrList `json:"-"` // EXCLUDED_OUTDATED_DEPENDENCIES
}

// Dependency is one row of information_schema.ivm_dependencies (seed T4).
type Dependency struct {
	DB                          string   `json:"db"`
	MVName                      string   `json:"mv_name"`
	MVID                        int64    `json:"mv_id"`
	BaseTableCtl                string   `json:"base_table_ctl,omitempty"`
	BaseTableDB                 string   `json:"base_table_db"`
	BaseTableName               string   `json:"base_table_name"`
	BaseTableID                 *int64   `json:"base_table_id,omitempty"`
	IsExcludedTrigger           bool     `json:"is_excluded_trigger"`
	StreamName                  string   `json:"stream_name,omitempty"`
	StreamID                    *int64   `json:"stream_id,omitempty"`
	DependencyState             string   `json:"dependency_state"` // USABLE | MISSING | DISABLED | STALE | CANNOT_RESUME | EXCLUDED
	Covered                     *bool    `json:"covered,omitempty"`
	LaggingPartitions           string   `json:"lagging_partitions,omitempty"`
	WorstPartition              string   `json:"worst_partition,omitempty"`
	DelaySeconds                *float64 `json:"delay_seconds,omitempty"`
	DelayPrecision              string   `json:"delay_precision,omitempty"`
	CoveredVersion              *int64   `json:"covered_version,omitempty"`
	CurrentVersion              *int64   `json:"current_version,omitempty"`
	MinRetentionHeadroomSeconds *float64 `json:"min_retention_headroom_seconds,omitempty"`
	CanResume                   *bool    `json:"can_resume,omitempty"`
	SampleTimeMs                *int64   `json:"sample_time_ms,omitempty"`

	// Lagging is LaggingPartitions parsed by Normalize (never written).
	Lagging CountOrList `json:"-"`
}

// MetricsPayload is one /metrics body fetched from an FE or BE.
type MetricsPayload struct {
	Kind      string    `json:"kind"` // fe | be
	Target    string    `json:"target"`
	URL       string    `json:"url,omitempty"`
	FetchedAt time.Time `json:"fetched_at"`
	IsMaster  bool      `json:"is_master,omitempty"`
	Bytes     int64     `json:"bytes"`
	Body      string    `json:"body,omitempty"`
	Error     string    `json:"error,omitempty"` // why the body is missing
}

// ReadGap is one source that could not be read.
type ReadGap struct {
	Source string `json:"source"`          // e.g. "information_schema.table_stream_consumption"
	Query  string `json:"query,omitempty"` // the statement or URL
	Error  string `json:"error"`
	// Superseded names the source that gave the same facts instead (a
	// fallback the collector took, e.g. "GET /api/tso" for a failed
	// "SHOW TSO STATUS"); "" when nothing took over. A superseded gap costs
	// the diagnosis nothing: it is listed, never a finding.
	Superseded string `json:"superseded,omitempty"`
}

// Supersede marks every gap of source that nothing took over yet as
// superseded by by (the collector calls it when a fallback succeeded).
func (s *Snapshot) Supersede(source, by string) {
	for i := range s.CouldNotRead {
		if g := &s.CouldNotRead[i]; g.Source == source && g.Superseded == "" {
			g.Superseded = by
		}
	}
}

// Malformed is one value the collector could not interpret.
type Malformed struct {
	Source string `json:"source"`
	Row    string `json:"row,omitempty"` // identifies the row, e.g. "demo.s1 p20261130"
	Column string `json:"column"`
	Value  string `json:"value"`
	Error  string `json:"error"`
}
