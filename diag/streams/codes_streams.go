package streams

import (
	"github.com/dorisdiag/dorisdiag/diag"
)

// The codes of the stream findings (seed §1 S4; areaStreams).
var (
	// CodeStreamCannotResumeRejected: The next read of the stream will be rejected: its offset expired
	CodeCannotResumeRejected = diag.Declare(diag.Declaration{
		Code: "STREAM_CANNOT_RESUME_REJECTED", Severity: diag.SeverityCritical,
		Impact: diag.ImpactLoss, Place: 5,
		Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		Series:    "doris_fe_changelog_streams{state=\"cannot_resume\"}",
		Alert:     "DorisStreamCannotResume",
		Title:     "The next read of the stream will be rejected: its offset expired",
		Spec:      "apache/doris#69907 §3 Definitions (can_resume), §1 S4; docs/streams.md \"What the next read does\"",
		Meaning:   "A partition of a user stream read as MIN_DELTA has changes beyond its offset, and the offset is below the retention floor (next_required < retention_floor, computed with the planner's cut-off from the current TSO and changelog.ttl_seconds / binlog.ttl_seconds). A MIN_DELTA read — like a snapshot read — from an expired offset fails with the expired-offset error.",
		Matters:   "The consuming job fails on every run until someone intervenes; the changes between the offset and the retention floor are gone from the changelog.",
		Confirm:   "dorisdiag streams show DB.STREAM\nSELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;  -- compare with: dorisdiag tso headroom --offset C --ttl SECONDS --now CURRENT_TSO",
		Fix:       "If the expired changelog is not compacted yet, raise changelog.ttl_seconds (binlog.ttl_seconds) on the base table: the records become readable again. Otherwise re-sync the consumer from the base table and run SELECT * FROM db.stream@reset() to start from now.",
		Related:   []string{"STREAM_CANNOT_RESUME_CLIPPED", "STREAM_HEADROOM_LOW", "STREAM_IDLE_OUT_OF_RETENTION"},
	})
	// CodeStreamCannotResumeClipped: The next read of the stream will silently skip changes: its offset expired
	CodeCannotResumeClipped = diag.Declare(diag.Declaration{
		Code: "STREAM_CANNOT_RESUME_CLIPPED", Severity: diag.SeverityCritical,
		Impact: diag.ImpactLoss, Place: 1,
		Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		Series:    "doris_fe_changelog_streams{state=\"cannot_resume\"}",
		Alert:     "DorisStreamCannotResume",
		Title:     "The next read of the stream will silently skip changes: its offset expired",
		Spec:      "apache/doris#69907 §1 S4 (\"succeeds and skips the expired changes without a trace\"), §3 Definitions; docs/tso.md",
		Meaning:   "A partition of a DETAIL or APPEND_ONLY user stream has changes beyond its offset, and the offset is below the retention floor. Such a read succeeds, clipped to the first retained TSO: the changes between the offset and the retention floor are skipped without an error. When the source end is known, the finding says how much (lost_window_ms).",
		Matters:   "The consumer loses changes and nothing tells it: downstream tables silently diverge from the source.",
		Confirm:   "dorisdiag streams show DB.STREAM   # next_read = clipped, lost_window_ms\nSELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;",
		Fix:       "Do not read the stream yet. Raise changelog.ttl_seconds (binlog.ttl_seconds) if the changelog is not compacted yet; otherwise re-sync the consumer from the base table for the lost window and run SELECT * FROM db.stream@reset().",
		Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_HEADROOM_LOW"},
	})
	// CodeStreamIdleOutOfRetention: An idle, caught-up user stream drifted out of the retention
	CodeIdleOutOfRetention = diag.Declare(diag.Declaration{
		Code: "STREAM_IDLE_OUT_OF_RETENTION", Severity: diag.SeverityWarning,
		Impact: diag.ImpactBroken, Place: 12,
		Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		Title:     "An idle, caught-up user stream drifted out of the retention",
		Spec:      "apache/doris#69907 §3 Definitions (\"a stream caught up on a partition nobody writes still drifts out of the retention\"); §3 \"Keep-alive TSO for idle IVM partitions\"",
		Meaning:   "The stream is caught up (nothing pending) on a partition nobody wrote for longer than the TTL, so its offset is below the retention floor. User streams get no keep-alive TSO (apache/doris#69907 \"Keep-alive TSO for idle IVM partitions\": only IVM internal streams do), so the design reports the stream cannot_resume.",
		Matters:   "Nothing is lost yet, but the next MIN_DELTA read is rejected, and a DETAIL/APPEND_ONLY read is clipped (losing nothing only as long as nothing was written).",
		Confirm:   "dorisdiag streams show DB.STREAM   # caught_up = true, can_resume = false",
		Fix:       "Run SELECT * FROM db.stream@reset() (nothing is pending, so it loses nothing), or consume the stream regularly; raise the TTL for tables written less often than it.",
		Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_HEADROOM_LOW"},
	})
	// CodeStreamHeadroomLow: The TTL will reach a stream's offset soon
	CodeHeadroomLow = diag.Declare(diag.Declaration{
		Code: "STREAM_HEADROOM_LOW", Severity: diag.SeverityWarning,
		Impact: diag.ImpactLoss, Place: 6,
		Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		CausedBy:  []diag.Cause{{Code: "STREAM_CANNOT_RESUME_CLIPPED"}, {Code: "STREAM_CANNOT_RESUME_REJECTED"}, {Code: "STREAM_NO_OFFSET_ROWS_SKIPPED"}},
		Series:    "doris_fe_changelog_stream_min_retention_headroom_seconds",
		Alert:     "DorisStreamHeadroomLow",
		Title:     "The TTL will reach a stream's offset soon",
		Spec:      "apache/doris#69907 §3 Definitions (headroom_seconds), §2 alert doris_fe_changelog_stream_min_retention_headroom_seconds < 1800",
		Meaning:   "A partition can still resume, but its retention headroom — physical(next_required) − physical(retention_floor) — is under --min-headroom (default 30m). On an IVM internal stream it warns that the next refresh may only recompute.",
		Matters:   "When the headroom reaches 0 the stream cannot resume: MIN_DELTA reads are rejected, DETAIL/APPEND_ONLY reads silently skip changes, IVM refreshes recompute.",
		Confirm:   "dorisdiag streams show DB.STREAM   # headroom per partition\ndorisdiag headroom --in 1h",
		Fix:       "Consume the stream now (run its job), or raise changelog.ttl_seconds (binlog.ttl_seconds) on the base table.",
		Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_CANNOT_RESUME_CLIPPED", "IVM_STREAM_RECOMPUTE_ONLY"},
	})
	// CodeStreamPendingAgeHigh: A change has waited too long in a user stream
	CodePendingAgeHigh = diag.Declare(diag.Declaration{
		Code: "STREAM_PENDING_AGE_HIGH", Severity: diag.SeverityWarning,
		Impact: diag.ImpactFreshness, Place: 2,
		Magnitude: diag.Measure{Name: "pending_age_seconds"},
		CausedBy:  []diag.Cause{{Code: "STREAM_CANNOT_RESUME_CLIPPED"}, {Code: "STREAM_CANNOT_RESUME_REJECTED"}, {Code: "STREAM_NO_OFFSET_ROWS_SKIPPED"}, {Code: "STREAM_HEADROOM_LOW"}},
		Series:    "doris_fe_changelog_stream_pending_age_seconds",
		Alert:     "DorisStreamPendingAgeHigh",
		Title:     "A change has waited too long in a user stream",
		Spec:      "apache/doris#69907 §3 Definitions (pending age), §2 alert doris_fe_changelog_stream_pending_age_seconds > 600",
		Meaning:   "The oldest change the source made visible that the offset does not cover is older than --max-pending (default 10m). From one snapshot the value is an upper bound (now − physical(offset), UPPER_BOUND); from a series (--snapshot a --snapshot b, --watch) it is narrowed to one interval (PRECISE). The summary says \"up to\" for an upper bound.",
		Matters:   "The consumer falls behind; if it keeps falling behind the TTL reaches it (see headroom).",
		Confirm:   "dorisdiag streams show DB.STREAM --watch 15s   # narrows the pending age and shows the consumer's rate",
		Fix:       "Check the consuming job (failing, paused, too slow); scale it or run it more often.",
		Related:   []string{"STREAM_HEADROOM_LOW"},
	})
	// CodeStreamNoOffsetRowsSkipped: Rows of a partition with no offset are older than the TTL and silently skipped (T12)
	CodeNoOffsetRowsSkipped = diag.Declare(diag.Declaration{
		Code: "STREAM_NO_OFFSET_ROWS_SKIPPED", Severity: diag.SeverityCritical,
		Impact: diag.ImpactLoss, Place: 2,
		Magnitude: diag.Measure{Name: "data_age_lower_seconds"},
		Title:     "Rows of a partition with no offset are older than the TTL and silently skipped",
		Spec:      "apache/doris#69907 §1 T12, T11",
		Meaning:   "A user stream read as MIN_DELTA, or a stream on a duplicate-key table, has a partition with data and no offset (added after the stream, or empty at its creation), and the partition's rows are older than the TTL. The stream reads such a partition from the changelog, so those rows are skipped and the offset moves past them for good; MIN_DELTA may even emit UPDATE_BEFORE and DELETE rows for rows never received. Critical when the newest data is older than the TTL (all rows); a warning (\"may\") when only the partition's creation time or nothing is known.",
		Matters:   "The consumer silently misses rows, permanently — later reads do not bring them back.",
		Confirm:   "dorisdiag streams show DB.STREAM   # offset_state NO_OFFSET, rows_skipped, data_age\nSELECT PARTITION_NAME, VISIBLE_VERSION, UPDATE_TIME FROM information_schema.partitions WHERE TABLE_SCHEMA = '<db>' AND TABLE_NAME = '<table>';",
		Fix:       "Copy the partition's rows from the base table into the consumer (INSERT ... SELECT ... FROM db.table PARTITION (p)), then SELECT * FROM db.stream@reset(). Upgrade to a build that reads such a partition from the base table (apache/doris#69907 T12).",
		Related:   []string{"STREAM_CANNOT_RESUME_CLIPPED", "MV_ROWS_MAY_BE_MISSED"},
	})
	// CodeIVMStreamRecomputeOnly: An MV's internal stream expired: the next refresh may only recompute (T9)
	CodeIVMStreamRecomputeOnly = diag.Declare(diag.Declaration{
		Code: "IVM_STREAM_RECOMPUTE_ONLY", Severity: diag.SeverityWarning,
		Impact: diag.ImpactBroken, Place: 11,
		Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		CausedBy:  []diag.Cause{{Code: "MV_CHANGELOG_BROKEN", Where: owningMV}, {Code: "MV_NEXT_REFRESH_RECOMPUTES", Where: owningMV}},
		Series:    "doris_fe_changelog_stream_min_retention_headroom_seconds{kind=\"ivm\"}",
		Alert:     "DorisStreamHeadroomLow",
		Title:     "An MV's internal stream expired: the next refresh may only recompute",
		Spec:      "apache/doris#69907 §1 T9, T0, T10; §3 Keep-alive TSO",
		Meaning:   "A partition of an IVM internal stream (__doris_ivm_stream_...) has an offset below the retention floor (headroom < 0). Every IVM read rejects an expired offset (apache/doris#69907 T10), so the next refresh of the owning MV falls back to a COMPLETE recompute (apache/doris#69907 T0), or, on builds without that fallback, fails with CHANGELOG_BROKEN. On builds that keep idle IVM partitions alive (apache/doris#69907 T9) the FE may hold a keep-alive TSO K for an idle partition, which SQL does not show on older builds, so this says \"may\".",
		Matters:   "A full recompute of a large MV is slow and loads the cluster; on builds without the fallback to COMPLETE the MV stops refreshing entirely.",
		Confirm:   "dorisdiag streams show DB.__doris_ivm_stream_...\ndorisdiag mv explain DB.MV",
		Fix:       "Run REFRESH MATERIALIZED VIEW db.mv COMPLETE at a quiet time; raise changelog.ttl_seconds on base tables written less often than the TTL, or upgrade to a build that keeps idle IVM partitions alive (apache/doris#69907 T9).",
		Related:   []string{"MV_NEXT_REFRESH_RECOMPUTES", "MV_CHANGELOG_BROKEN", "STREAM_HEADROOM_LOW"},
	})
	// CodeStreamStale: The stream is stale (IS_STALE)
	CodeStale = diag.Declare(diag.Declaration{
		Code: "STREAM_STALE", Severity: diag.SeverityCritical,
		Impact: diag.ImpactBroken, Place: 6,
		CausedBy: []diag.Cause{{Code: "STREAM_BASE_TABLE_DROPPED"}},
		Series:   "doris_fe_changelog_streams{state=\"stale\"}",
		Title:    "The stream is stale (IS_STALE)",
		Spec:     "apache/doris#69907 §3 States (stale), docs/snapshot.md",
		Meaning:  "table_streams reports IS_STALE = true (STALE_REASON says why), including when the base table was dropped. IS_STALE does not report TTL expiry.",
		Matters:  "A stale stream cannot be read; its consumer is stopped.",
		Confirm:  "SELECT STREAM_NAME, IS_STALE, STALE_REASON FROM information_schema.table_streams WHERE IS_STALE;",
		Fix:      "Recreate the stream (DROP STREAM, CREATE STREAM) and re-sync its consumer from the base table.",
		Related:  []string{"STREAM_BASE_TABLE_DROPPED"},
	})
	// CodeStreamDisabled: The stream is disabled (ENABLED = 0)
	CodeDisabled = diag.Declare(diag.Declaration{
		Code: "STREAM_DISABLED", Severity: diag.SeverityWarning,
		Impact: diag.ImpactHygiene, Place: 1,
		Series:  "doris_fe_changelog_streams{state=\"disabled\"}",
		Title:   "The stream is disabled (ENABLED = 0)",
		Spec:    "apache/doris#69907 §3 States (disabled)",
		Meaning: "table_streams reports ENABLED = false.",
		Matters: "Nothing consumes it, while the TTL keeps expiring the changelog behind its offsets: when it is enabled again it may not be able to resume.",
		Confirm: "SELECT STREAM_NAME, ENABLED FROM information_schema.table_streams WHERE NOT ENABLED;",
		Fix:     "Enable it again if it is still needed (and check its headroom first: dorisdiag streams show DB.STREAM), or drop it.",
		Related: []string{"STREAM_HEADROOM_LOW"},
	})
	// CodeStreamBaseTableDropped: The stream's base table is dropped
	CodeBaseTableDropped = diag.Declare(diag.Declaration{
		Code: "STREAM_BASE_TABLE_DROPPED", Severity: diag.SeverityCritical,
		Impact: diag.ImpactBroken, Place: 5,
		Title:   "The stream's base table is dropped",
		Spec:    "docs/snapshot.md (BASE_TABLE_* columns read N/A once the base table is dropped)",
		Meaning: "BASE_TABLE_NAME, BASE_TABLE_DB, BASE_TABLE_CTL and BASE_TABLE_TYPE read the text N/A: the table the stream reads is gone.",
		Matters: "The stream can never be read again; a job that consumes it fails.",
		Confirm: "SELECT STREAM_NAME, BASE_TABLE_DB, BASE_TABLE_NAME, IS_STALE FROM information_schema.table_streams WHERE BASE_TABLE_NAME = 'N/A';",
		Fix:     "Drop the stream, and recreate it on the new table if the table was replaced.",
		Related: []string{"STREAM_STALE"},
	})
	// CodeStreamStateUnknown: The stream's state cannot be determined
	CodeStateUnknown = diag.Declare(diag.Declaration{
		Code: "STREAM_STATE_UNKNOWN", Severity: diag.SeverityWarning,
		Impact: diag.ImpactVisibility, Place: 6,
		Series:  "doris_fe_changelog_streams{state=\"unknown\"}",
		Title:   "The stream's state cannot be determined",
		Spec:    "apache/doris#69907 §3 States (unknown)",
		Meaning: "An offset could not be read (a malformed CONSUMPTION_STATUS, a cloud read state UNKNOWN), table_stream_consumption could not be read, or it has no row for the stream.",
		Matters: "Resume, headroom and pending age are unknown, so a stream about to lose changes would not be reported.",
		Confirm: "SELECT * FROM information_schema.table_stream_consumption WHERE STREAM_ID = <id>;\ndorisdiag snapshot --summary",
		Fix:     "Fix the read (privileges, timeout), or report the value to the dorisdiag maintainers if it is legitimate Doris output.",
		Related: []string{"SOURCE_UNREACHABLE", "SOURCE_MALFORMED_VALUE"},
	})
	// CodeStreamLagInVersions: The build counts LAG in partition versions, not TSO
	CodeLagInVersions = diag.Declare(diag.Declaration{
		Code: "STREAM_LAG_IN_VERSIONS", Severity: diag.SeverityInfo,
		Impact: diag.ImpactFreshness, Place: 4,
		Title:   "The build counts LAG in partition versions, not TSO",
		Spec:    "docs/snapshot.md (older builds counted LAG in versions)",
		Meaning: "A LAG between 1 and 2^18 while the offset is a real TSO would be under one millisecond of TSO distance: the build probably counts LAG in partition versions. dorisdiag does not convert it to time; the pending age then uses the offset only (UPPER_BOUND) and the source end is unknown.",
		Matters: "Converting a version count to milliseconds would report nonsense delays; the position gap and lost window are unknown.",
		Confirm: "SELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption;  -- LAG small integers",
		Fix:     "Nothing to fix on the stream; upgrade Doris for TSO LAG and the SOURCE_END_TSO column of apache/doris#69907.",
		Related: []string{"STREAM_PENDING_AGE_HIGH"},
	})
	// CodeServerClientMismatch: The server's monitoring column and dorisdiag's computation disagree
	CodeServerClientMismatch = diag.Declare(diag.Declaration{
		Code: "SERVER_CLIENT_MISMATCH", Severity: diag.SeverityWarning,
		Impact: diag.ImpactVisibility, Place: 9,
		Title:   "The server's monitoring column and dorisdiag's computation disagree",
		Spec:    "docs/streams.md \"Server vs client\"; apache/doris#69907 §3 Definitions",
		Meaning: "The build has the monitoring columns of apache/doris#69907 (MONITOR_STATE, CAN_RESUME, RETENTION_HEADROOM_SECONDS, PENDING_AGE_SECONDS, DATA_DELAY_SECONDS, ...) and dorisdiag computed the same value from the raw columns, the TTL and the current TSO; they differ by more than the precision (one sampling interval, 15 s, plus the age of the server's round; 5 s for headroom, which both compute at query time). Used by streams and MVs. IVM headroom and resume are not compared in the direction the keep-alive TSO explains.",
		Matters: "One of the two is wrong: a monitor bug, a clock problem, or a dorisdiag bug. Alerts built on the server columns may be misleading.",
		Confirm: "dorisdiag streams show DB.STREAM -o json   # server and client values side by side",
		Fix:     "Re-run to rule out a race; if it persists, report both values (the JSON) to the Doris or dorisdiag maintainers.",
		Related: []string{"MONITOR_STALE"},
	})
	// CodeMonitorStale: The FE monitor's sampled values are stale or missing
	CodeMonitorStale = diag.Declare(diag.Declaration{
		Code: "MONITOR_STALE", Severity: diag.SeverityWarning,
		Impact: diag.ImpactVisibility, Place: 7,
		Title:   "The FE monitor's sampled values are stale or missing",
		Spec:    "apache/doris#69907 §2 (\"the monitoring itself is stale\"), FE configs changelog_ivm_monitor_interval_seconds",
		Meaning: "The build has the monitoring columns of apache/doris#69907, but MONITOR_SAMPLE_TIME (table_streams) or SAMPLE_TIME (ivm_mv_status) is older than two sampling intervals (2 × 15 s) or NULL.",
		Matters: "The server's states, pending ages and headrooms are out of date, and so are the alerts built on them. dorisdiag's client computation does not depend on them.",
		Confirm: "SELECT MAX(MONITOR_SAMPLE_TIME) FROM information_schema.table_streams;\ncurl -s http://FE:8030/metrics | grep doris_fe_changelog_ivm_monitor_",
		Fix:     "Check enable_changelog_ivm_monitor and the Master FE log (monitor round failures, doris_fe_changelog_ivm_monitor_sample_failures_total).",
		Related: []string{"SERVER_CLIENT_MISMATCH", "METRICS_MONITOR_STALE"},
	})
)

// owningMV: the cause of an internal stream's finding is about the MV the
// stream belongs to ("db.mv" in its evidence).
func owningMV(f *diag.Finding) (kind, label string, ok bool) {
	mv := f.Evidence["mv"]
	return "mv", mv, mv != ""
}
