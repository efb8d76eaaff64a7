package streams

import (
	"slices"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/changepoints"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// State is a stream's state (apache/doris#69907 §3 "States"); it is written
// in JSON and in the design's series as its name.
type State string

// The stream states: the first one that matches wins, in this order. The
// numbers are the design's per-object gauge values.
const (
	StateDisabled     State = "disabled"      // 6: ENABLED = false
	StateStale        State = "stale"         // 5: IS_STALE, including a dropped base table
	StateUnknown      State = "unknown"       // 4: an offset cannot be read
	StateCannotResume State = "cannot_resume" // 3: a partition with a TTL cannot resume
	StateInitializing State = "initializing"  // 2: the initial snapshot is not consumed yet
	StateLagging      State = "lagging"       // 1: changes beyond an offset, or data and no offset
	StateCaughtUp     State = "caught_up"     // 0: otherwise
)

// States lists the seven states in precedence order.
var States = []State{StateDisabled, StateStale, StateUnknown, StateCannotResume, StateInitializing, StateLagging, StateCaughtUp}

// StateNumber is the design's gauge number of a state (disabled 6 …
// caught_up 0: States counted from the end), -1 when not a state.
func StateNumber(state State) int {
	if i := slices.Index(States, state); i >= 0 {
		return len(States) - 1 - i
	}
	return -1
}

// OffsetState is a partition's offset state (seed T2 column OFFSET_STATE),
// plus UNKNOWN when the offset text could not be read.
type OffsetState string

const (
	OffsetConsumed               OffsetState = "CONSUMED"
	OffsetInitialSnapshotPending OffsetState = "INITIAL_SNAPSHOT_PENDING"
	OffsetNone                   OffsetState = "NO_OFFSET"
	OffsetUnknown                OffsetState = "UNKNOWN"
)

// What the next read of a partition does (doris.md §2 "Effect on reads").
const (
	NextReadProceed  = "proceed"  // the offset is retained (or no TTL applies)
	NextReadRejected = "rejected" // MIN_DELTA / snapshot read, and IVM reads: expired-offset error
	NextReadClipped  = "clipped"  // DETAIL / APPEND_ONLY: expired changes silently skipped
	NextReadUnknown  = "unknown"  // the offset or the TTL is not known
)

// Kind is a stream's kind: a user's stream, or an MV's internal one.
type Kind string

const (
	KindUser Kind = "user"
	KindIVM  Kind = "ivm"
)

// Kinds lists the kinds in the order every surface shows them.
var Kinds = []Kind{KindUser, KindIVM}

// Read modes (CONSUME_TYPE). Older builds print DEFAULT.
const (
	ModeMinDelta   = "MIN_DELTA"
	ModeDetail     = "DETAIL"
	ModeAppendOnly = "APPEND_ONLY"
)

// Defaults of the stream thresholds (BRIEF: --min-headroom 30m, --max-pending 10m).
const (
	DefaultMinHeadroom = 30 * time.Minute
	DefaultMaxPending  = 10 * time.Minute
	// MonitorInterval is changelog_ivm_monitor_interval_seconds' default: the
	// precision of the server's pending age (seed "FE configs").
	MonitorInterval = 15 * time.Second
)

// Options are the thresholds and what-ifs of a stream analysis.
type Options struct {
	MinHeadroom time.Duration // STREAM_HEADROOM_LOW below this; 0 = DefaultMinHeadroom
	MaxPending  time.Duration // STREAM_PENDING_AGE_HIGH above this; 0 = DefaultMaxPending
	// TTLOverride replaces every base table's TTL (what-if `--ttl`).
	TTLOverride *int64
	// At evaluates as if nobody consumed until this cluster time (what-if
	// `headroom --at/--in`); nil = the last snapshot's cluster time.
	At *time.Time
	// Points, when set, is the change-point memory of a long-running
	// exporter (diag/changepoints): the analysis records this round's
	// ends in it and narrows the pending ages from it. One analysis per
	// round (round.State.Round).
	Points *changepoints.Tracker
	// NoVerdict: the caller shows no stream's verdict (check.Options.Lean),
	// so none is written.
	NoVerdict bool
	// Keep, when set, is asked about each stream once it is diagnosed (in
	// no order): only those it keeps are in Result.Streams, so that a
	// caller that tallies them (check.Options.Lean) does not hold them all.
	Keep func(*Stream) bool
}

func (o Options) WithDefaults() Options {
	if o.MinHeadroom <= 0 {
		o.MinHeadroom = DefaultMinHeadroom
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	return o
}

// Result is the stream analysis of a cluster at one time.
type Result struct {
	Now        time.Time `json:"now"`         // the last snapshot's cluster time
	CurrentTSO tso.TSO   `json:"current_tso"` // the last snapshot's current TSO
	// EvaluatedAt is the time the retention was evaluated at: Now, or --at.
	EvaluatedAt time.Time `json:"evaluated_at"`
	WhatIf      bool      `json:"what_if"`
	TTLOverride *int64    `json:"ttl_override_seconds,omitempty"`
	Snapshots   int       `json:"snapshots"` // how many snapshots narrowed the pending ages
	// TTLEnforcement is whether the build enforces the changelog TTL (yes,
	// no or unknown) and the evidence: every conclusion that rests on
	// expiry (cannot_resume, headroom, rows skipped) says which holds.
	TTLEnforcement snapshot.TTLEnforcement `json:"ttl_enforcement"`
	MinHeadroomS   float64                 `json:"min_headroom_threshold_seconds"`
	MaxPendingS    float64                 `json:"max_pending_threshold_seconds"`
	Streams        []Stream                `json:"streams"`
	Findings       []diag.Finding          `json:"findings"`

	byID map[int64]int
}

// ByID finds a stream by STREAM_ID; nil when absent.
func (r *Result) ByID(id int64) *Stream {
	if r == nil {
		return nil
	}
	if r.byID == nil {
		r.byID = make(map[int64]int, len(r.Streams))
		for i := range r.Streams {
			r.byID[r.Streams[i].ID] = i
		}
	}
	if i, ok := r.byID[id]; ok {
		return &r.Streams[i]
	}
	return nil
}

// ByName finds a stream by database and name; nil when absent.
func (r *Result) ByName(db, name string) *Stream {
	if r == nil {
		return nil
	}
	for i := range r.Streams {
		if r.Streams[i].DB == db && r.Streams[i].Name == name {
			return &r.Streams[i]
		}
	}
	return nil
}

// FindingsFor returns the findings about one stream (and its partitions).
func (r *Result) FindingsFor(db, name string) []diag.Finding {
	var out []diag.Finding
	for _, f := range r.Findings {
		if f.Object.DB == db && f.Object.Name == name && f.Object.Kind == "stream" {
			out = append(out, f)
		}
	}
	return out
}

// Stream is one stream's diagnosis.
type Stream struct {
	DB   string `json:"db"`
	Name string `json:"name"`
	ID   int64  `json:"id"`
	Kind Kind   `json:"kind"` // user | ivm
	// MVName / MVID: the MV that owns an internal stream (from IVM_MV_ID or
	// parsed from the internal name); empty for a user stream.
	MVName string `json:"mv_name,omitempty"`
	MVID   *int64 `json:"mv_id,omitempty"`
	// ConsumeType is CONSUME_TYPE as the server wrote it; ReadMode is the
	// mode the next read uses (DEFAULT resolved by the key model).
	ConsumeType      string `json:"consume_type"`
	ReadMode         string `json:"read_mode"`
	ReadModeNote     string `json:"read_mode_note,omitempty"`
	BaseTableDB      string `json:"base_table_db,omitempty"`
	BaseTableName    string `json:"base_table_name,omitempty"`
	BaseTableDropped bool   `json:"base_table_dropped"`
	// baseTableDroppedShape is snapshot.Stream.BaseTableDroppedShape
	// (type_na: the later builds, which keep the table's name; all_na).
	baseTableDroppedShape string
	KeyModel              string `json:"key_model,omitempty"`
	// TTLSeconds is the retention applied (the override in a what-if); nil
	// when unknown or off, with TTLNote saying which.
	TTLSeconds  *int64 `json:"ttl_seconds,omitempty"`
	TTLSource   string `json:"ttl_source,omitempty"`
	TTLProperty string `json:"ttl_property,omitempty"` // changelog.ttl_seconds | binlog.ttl_seconds
	TTLNote     string `json:"ttl_note,omitempty"`
	Enabled     bool   `json:"enabled"`
	IsStale     bool   `json:"is_stale"`
	StaleReason string `json:"stale_reason,omitempty"`

	// State is the client's state (seed §3 precedence); StateReason says why.
	State       State  `json:"state"`
	StateReason string `json:"state_reason"`
	// StateSource is "client", or "server" when the server's MONITOR_STATE
	// was taken instead (an IVM stream whose keep-alive TSO is invisible).
	StateSource string `json:"state_source"`

	Partitions        []Partition `json:"partitions"`
	PendingPartitions int         `json:"pending_partitions"`
	// MaxPendingAge is the largest pending age over the partitions; its
	// precision is the worst of the partitions that count.
	MaxPendingAge diag.Value `json:"max_pending_age"`
	// MinHeadroomSeconds is the smallest headroom over the partitions with a
	// TTL; nil when none applies. MinHeadroomPartition names it.
	MinHeadroomSeconds   *float64 `json:"min_headroom_seconds,omitempty"`
	MinHeadroomPartition string   `json:"min_headroom_partition,omitempty"`
	// CanResume: every partition with a TTL can resume; nil when none has one.
	CanResume *bool `json:"can_resume,omitempty"`
	// NextRead is the worst next-read outcome over the partitions.
	NextRead string `json:"next_read"`
	// LostWindowMs is the largest span of changes the next read skips, over
	// the clipped partitions whose position is known.
	LostWindowMs *int64 `json:"lost_window_ms,omitempty"`
	// LagInVersions: the build counts LAG in partition versions (old build).
	LagInVersions bool `json:"lag_in_versions"`
	// RowsSkipped: T12 — "yes" rows of a no-offset partition are older than
	// the TTL and are skipped; "may" when their age is not known for sure.
	RowsSkipped string `json:"rows_skipped,omitempty"`

	Server *ServerStream `json:"server,omitempty"`

	// Severity is the worst finding about the stream ("" when none).
	Severity string `json:"severity,omitempty"`
	// Verdict says, in a few sentences, what the next read does and what to run.
	Verdict []string `json:"verdict"`
	// Rates over a series (nil with one snapshot).
	Rates *Rates `json:"rates,omitempty"`

	// knownMaxPending is the largest known upper bound over the
	// partitions (the per-partition checks' threshold input); MaxPendingAge
	// is the stream's bound, unknown above when a partition has none.
	knownMaxPending diag.Value
	severity        diag.Severity
	ttlOff          bool // the TTL is known to be off (or the table dropped): no retention, not "unknown"
}

// ServerStream are the seed T2 columns of table_streams, as the server
// filled them.
type ServerStream struct {
	MonitorState                *string  `json:"monitor_state,omitempty"`
	PendingPartitions           *int64   `json:"pending_partitions,omitempty"`
	MaxPendingAgeSeconds        *float64 `json:"max_pending_age_seconds,omitempty"`
	PendingAgePrecision         *string  `json:"pending_age_precision,omitempty"`
	CanResume                   *bool    `json:"can_resume,omitempty"`
	MinRetentionHeadroomSeconds *float64 `json:"min_retention_headroom_seconds,omitempty"`
	GapEvents                   *int64   `json:"gap_events,omitempty"`
	LastGapTimeMs               *int64   `json:"last_gap_time_ms,omitempty"`
	MonitorSampleTimeMs         *int64   `json:"monitor_sample_time_ms,omitempty"`
	// SampleAgeSeconds is now − MONITOR_SAMPLE_TIME.
	SampleAgeSeconds *float64 `json:"sample_age_seconds,omitempty"`
}

// Partition is one stream partition's diagnosis (one row of
// table_stream_consumption).
type Partition struct {
	Unit              string `json:"unit"`
	ConsumptionStatus string `json:"consumption_status"` // raw
	Lag               string `json:"lag"`                // raw
	// OffsetState: CONSUMED | INITIAL_SNAPSHOT_PENDING | NO_OFFSET | UNKNOWN.
	OffsetState  OffsetState `json:"offset_state"`
	ConsumedTSO  *tso.TSO    `json:"consumed_tso,omitempty"`
	SourceEndTSO *tso.TSO    `json:"source_end_tso,omitempty"`
	// SourceEndFrom: "server" (SOURCE_END_TSO) or "offset+lag".
	SourceEndFrom string `json:"source_end_from,omitempty"`
	// HasData: the partition has data (nil when not known).
	HasData  *bool `json:"has_data,omitempty"`
	CaughtUp *bool `json:"caught_up,omitempty"`
	// PositionGapSeconds is physical(end) − physical(C): for trends only,
	// not the pending age (seed T2).
	PositionGapSeconds *float64   `json:"position_gap_seconds,omitempty"`
	PendingAge         diag.Value `json:"pending_age"`
	// ClientPendingAge is the client's own bound when PendingAge came from
	// the server (kept for the comparison).
	ClientPendingAge *diag.Value `json:"client_pending_age,omitempty"`

	// RetentionApplicable: the table has a TTL and the partition an offset.
	RetentionApplicable bool           `json:"retention_applicable"`
	RetentionNote       string         `json:"retention_note,omitempty"`
	Retention           *tso.Retention `json:"retention,omitempty"`
	CanResume           *bool          `json:"can_resume,omitempty"`
	HeadroomSeconds     *float64       `json:"headroom_seconds,omitempty"`
	// HeadroomFraction is headroom / TTL, clamped to [0, 1] (the bar).
	HeadroomFraction *float64 `json:"headroom_fraction,omitempty"`

	NextRead     string `json:"next_read"`
	NextReadNote string `json:"next_read_note,omitempty"`
	// LostWindowMs: for a clipped read with a known position, the span of
	// changes the read skips, in whole milliseconds from next_required to
	// min(retention floor, nextTso(source end)); 0 when nothing after the
	// offset expired.
	LostWindowMs *int64 `json:"lost_window_ms,omitempty"`
	// RowsSkipped (no-offset partitions, T12): "yes" | "may" | "".
	RowsSkipped string `json:"rows_skipped,omitempty"`
	// DataAge: how old the partition's data is, for a partition with no offset.
	DataAge *diag.Value `json:"data_age,omitempty"`

	LagInVersions         bool   `json:"lag_in_versions"`
	LastConsumptionTimeMs *int64 `json:"last_consumption_time_ms,omitempty"`

	Server *ServerPartition `json:"server,omitempty"`
	Rates  *Rates           `json:"rates,omitempty"`

	// Severity of the worst hazard on this partition ("" when none).
	Severity string `json:"severity,omitempty"`
	severity diag.Severity
}

// ServerPartition are the seed T2/T5 columns of table_stream_consumption.
type ServerPartition struct {
	OffsetState              *string  `json:"offset_state,omitempty"`
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

// Rates are computed over a series of snapshots (item 4): how fast the
// consumer's offset and the source's end move, in seconds of TSO time per
// second of cluster time (1.0 = keeping pace with real time), and the ETAs
// at those rates.
type Rates = changepoints.Rates
