package refresh

import (
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// RefreshResult is how a refresh task ended (apache/doris#69907 §3
// "Refresh result, method and fallback"). A task that has not finished has
// the result "running" or "pending"; any other status the server writes is
// kept, lower-cased, as data.
type RefreshResult string

// The refresh results.
const (
	ResultSuccess  RefreshResult = "success"
	ResultNoChange RefreshResult = "no_change"
	ResultFailed   RefreshResult = "failed"
	ResultCanceled RefreshResult = "canceled"
	ResultRunning  RefreshResult = "running"
	ResultPending  RefreshResult = "pending"
)

// RefreshMethod is how a task refreshed, from the attempts that committed
// data: a different dimension from RefreshMode (apache/doris#69907 §1 S3).
// An IvmRefreshMethod the design does not name is kept, lower-cased.
type RefreshMethod string

// The refresh methods.
const (
	MethodNone             RefreshMethod = "none"
	MethodIncremental      RefreshMethod = "incremental"
	MethodPartitionRebuild RefreshMethod = "partition_rebuild"
	MethodComplete         RefreshMethod = "complete"
	MethodMixed            RefreshMethod = "mixed"
)

// FailureReason is why a refresh task failed, upper case (seed §3): the
// stage that threw, or an IVM reason (IvmFailureReason, doris.md §5) as the
// server spells it. An unknown value is kept as data.
type FailureReason string

// Failure reasons of the stage that threw (seed §3); an IVM reason
// (IvmFailureReason) is used as is.
const (
	FailurePartitionSyncFailed FailureReason = "PARTITION_SYNC_FAILED"
	FailureQueryUnusable       FailureReason = "QUERY_UNUSABLE"
	FailureExecutionFailed     FailureReason = "EXECUTION_FAILED"
	FailureOther               FailureReason = "OTHER"
)

// The expired-offset reason (T0) in its two namings (doris.md §0):
// BINLOG_BROKEN is what older builds write (and, as an IvmFallbackReason
// without the expired-offset text, a broken IVM baseline).
const (
	FailureChangelogBroken FailureReason = "CHANGELOG_BROKEN"
	FailureBinlogBroken    FailureReason = "BINLOG_BROKEN"
)

// ivmFailureReasons are the IvmFailureReason values doris.md §5 lists (both
// namings of the broken-changelog reason). Unknown values stay data.
var ivmFailureReasons = []FailureReason{
	FailureBinlogBroken, FailureChangelogBroken, "BINLOG_NOT_ENABLED", "CHANGELOG_NOT_ENABLED", "STREAM_UNSUPPORTED",
	"SNAPSHOT_ALIGNMENT_UNSUPPORTED", "PLAN_PATTERN_UNSUPPORTED", "NON_DETERMINISTIC_ROW_ID",
	"OUTER_JOIN_RETRACTION_UNSUPPORTED", "PREVIOUS_RUN_INCOMPLETE", "INCREMENTAL_EXECUTION_FAILED",
	"AGG_UNSUPPORTED", "MIN_MAX_BOUNDARY_HIT", "BITMAP_AGG_DELETE", "PLAN_SIGNATURE_MISMATCH",
	"INCOMPLETE_REFRESH_SNAPSHOT",
}

// ChangelogBroken reports whether the reason is the expired-offset one (T0),
// in either naming (doris.md §0), in any case.
func (r FailureReason) ChangelogBroken() bool {
	return strings.EqualFold(string(r), string(FailureChangelogBroken)) || strings.EqualFold(string(r), string(FailureBinlogBroken))
}

// IsChangelogBroken is FailureReason.ChangelogBroken for a reason as text
// (a server column, a finding's evidence): the one predicate.
func IsChangelogBroken(reason string) bool { return FailureReason(reason).ChangelogBroken() }

// TaskClass is one tasks() row classified by the seed's rules.
type TaskClass struct {
	TaskID int64  `json:"task_id"`
	Status string `json:"status"` // as the server wrote it
	// Result is success | no_change | failed | canceled for a finished task,
	// running | pending otherwise; an unknown status is kept lower-cased.
	Result   RefreshResult `json:"result"`
	Finished bool          `json:"finished"`
	// Method is none | incremental | partition_rebuild | complete | mixed
	// (an unknown IvmRefreshMethod is kept lower-cased); "" while unfinished.
	Method RefreshMethod `json:"method,omitempty"`
	// MethodInferred is true when the build has no IvmRefreshMethod and the
	// method was inferred from RefreshMode, IvmFallbackReason and
	// IvmRebuiltPartitions; MethodBasis says how.
	MethodInferred bool   `json:"method_inferred"`
	MethodBasis    string `json:"method_basis,omitempty"`
	// Fallback is the seed's fallback: an incremental attempt planned, moved
	// to a rebuild for an IVM reason, and data committed.
	Fallback       bool   `json:"fallback"`
	FallbackReason string `json:"fallback_reason,omitempty"`
	// NotFallback says why a task with an IvmFallbackReason is not counted as
	// a fallback ("committed nothing", "canceled", "explicit COMPLETE request", ...).
	NotFallback string `json:"not_fallback,omitempty"`
	// FailureReason, for a failed task: the IVM reason when falling back was
	// not allowed, else the stage that threw. Inferred from the error text on
	// every build (tasks() has no failure-reason column).
	FailureReason         FailureReason `json:"failure_reason,omitempty"`
	FailureReasonInferred bool          `json:"failure_reason_inferred,omitempty"`
	// Retryable: the failure is a bounded incremental read that must be
	// retried on the same window (errors 5100 and 5101, incr_window.go);
	// RetryCause says why the window was not readable.
	Retryable         bool   `json:"retryable,omitempty"`
	RetryCause        string `json:"retry_cause,omitempty"`
	TriggerMode       string `json:"trigger_mode,omitempty"` // from TaskContext: MANUAL | COMMIT | SYSTEM | SCHEDULE
	RefreshMode       string `json:"refresh_mode,omitempty"`
	RebuiltPartitions *int64 `json:"rebuilt_partitions,omitempty"`
	CreateTimeMs      *int64 `json:"create_time_ms,omitempty"`
	StartTimeMs       *int64 `json:"start_time_ms,omitempty"`
	FinishTimeMs      *int64 `json:"finish_time_ms,omitempty"`
	DurationMs        *int64 `json:"duration_ms,omitempty"`
	// AgeSeconds is, for a running task, how long it has run (from StartTime)
	// and for a pending task how long it has waited (from CreateTime).
	AgeSeconds  *float64 `json:"age_seconds,omitempty"`
	ErrorMsg    string   `json:"error_msg,omitempty"`
	LastQueryID string   `json:"last_query_id,omitempty"`
}

// ClassifyTask applies the seed's "Refresh result, method and fallback"
// rules to one tasks() row. refresh is the MV's RefreshInfo (whether a
// fallback was allowed); now is the cluster time.
func ClassifyTask(t snapshot.Task, refresh snapshot.RefreshInfo, now time.Time) TaskClass {
	c := TaskClass{
		TaskID: t.TaskID, Status: t.Status, RefreshMode: strings.ToUpper(strings.TrimSpace(t.RefreshMode)),
		RebuiltPartitions: t.IvmRebuiltPartitions, CreateTimeMs: t.CreateTimeMs, StartTimeMs: t.StartTimeMs,
		FinishTimeMs: t.FinishTimeMs, DurationMs: t.DurationMs, ErrorMsg: strings.TrimSpace(t.ErrorMsg),
		LastQueryID: t.LastQueryID,
	}
	// `\N` and NULL were read as "" by snapshot.Normalize; TaskContext was
	// parsed there (t.Context).
	ctx := t.Context
	c.TriggerMode = ctx.TriggerMode
	fallbackReason := strings.ToUpper(strings.TrimSpace(t.IvmFallbackReason))
	nowMs := now.UnixMilli()
	status := doris.ParseTaskStatus(t.Status)
	switch {
	case status == doris.TaskRunning:
		c.Result = ResultRunning
		if from := firstNonNil(t.StartTimeMs, t.CreateTimeMs); from != nil {
			age := float64(nowMs-*from) / 1000
			c.AgeSeconds = &age
		}
		return c
	case status == doris.TaskPending:
		c.Result = ResultPending
		if t.CreateTimeMs != nil {
			age := float64(nowMs-*t.CreateTimeMs) / 1000
			c.AgeSeconds = &age
		}
		return c
	case status.Finished():
		c.Finished = true
	default:
		// Unknown status: kept as data, never guessed at.
		c.Result = RefreshResult(strings.ToLower(string(status)))
		if status == "" {
			c.Result = "unknown"
		}
		return c
	}

	c.Method, c.MethodInferred, c.MethodBasis = taskMethod(t, c, status, fallbackReason, len(ctx.Partitions) > 0)
	switch status {
	case doris.TaskSuccess:
		c.Result = ResultSuccess
		if c.Method == MethodNone {
			// A success that committed no MV data (seed §3).
			c.Result = ResultNoChange
		}
	case doris.TaskFailed:
		c.Result = ResultFailed
		c.FailureReason, c.FailureReasonInferred = failureReason(c.ErrorMsg, fallbackReason, refresh)
		if reason, cause, ok := incrWindowFailure(c.ErrorMsg); ok {
			c.FailureReason, c.Retryable, c.RetryCause = reason, true, cause
		}
	default:
		c.Result = ResultCanceled
	}

	// Fallback (seed §3): an incremental attempt, moved to a rebuild for an
	// IVM reason, that committed data. Not: a baseline, an explicit COMPLETE
	// or PARTITIONS request, dirty partitions rebuilt before the delta
	// (mixed), a fallback that committed nothing, a canceled task.
	if fallbackReason != "" {
		switch {
		case c.Result == ResultCanceled:
			c.NotFallback = "canceled"
		case c.Result == ResultFailed:
			c.NotFallback = "failed: committed nothing"
		case c.Method == MethodNone:
			c.NotFallback = "committed nothing"
		case ctx.IsComplete || strings.EqualFold(ctx.RefreshMode, "COMPLETE"):
			c.NotFallback = "explicit COMPLETE request"
		case len(ctx.Partitions) > 0 || strings.EqualFold(ctx.RefreshMode, "PARTITIONS"):
			c.NotFallback = "explicit PARTITIONS request"
		case c.Method == MethodMixed || c.Method == MethodIncremental:
			c.NotFallback = "the delta was applied (" + string(c.Method) + ")"
		default:
			c.Fallback = true
			c.FallbackReason = fallbackReason
		}
	}
	return c
}

// taskMethod is IvmRefreshMethod when the build has it (seed T3), else
// inferred. It returns the method, whether it was inferred, and how.
func taskMethod(t snapshot.Task, c TaskClass, status doris.TaskStatus, fallbackReason string, explicitPartitions bool) (RefreshMethod, bool, string) {
	if t.IvmRefreshMethod != nil && strings.TrimSpace(*t.IvmRefreshMethod) != "" {
		return RefreshMethod(strings.ToLower(strings.TrimSpace(*t.IvmRefreshMethod))), false, "IvmRefreshMethod"
	}
	if status != doris.TaskSuccess {
		// Inference cannot see partial commits of a failed or canceled task:
		// assume none, as a failed refresh transaction commits nothing.
		return MethodNone, true, "not a success: nothing committed assumed"
	}
	rebuilt := c.RebuiltPartitions != nil && *c.RebuiltPartitions > 0
	switch c.RefreshMode {
	case "NOT_REFRESH":
		return MethodNone, true, "RefreshMode NOT_REFRESH"
	case "COMPLETE":
		return MethodComplete, true, "RefreshMode COMPLETE"
	case "PARTIAL":
		// An IVM task that rebuilt partitions with no fallback reason and no
		// explicit PARTITIONS request rebuilt its dirty partitions before the
		// delta: mixed (seed §3), not a fallback.
		if fallbackReason == "" && rebuilt && !explicitPartitions {
			return MethodMixed, true, "RefreshMode PARTIAL with IvmRebuiltPartitions > 0 and no IvmFallbackReason: dirty partitions rebuilt, then the delta"
		}
		return MethodPartitionRebuild, true, "RefreshMode PARTIAL"
	case "":
		// `\N` after an incremental-only refresh (doris.md §5).
		if rebuilt {
			return MethodMixed, true, "RefreshMode \\N with IvmRebuiltPartitions > 0: dirty partitions rebuilt, then the delta"
		}
		return MethodIncremental, true, "RefreshMode \\N (incremental only)"
	}
	// An unknown RefreshMode is kept as data.
	return RefreshMethod(strings.ToLower(c.RefreshMode)), true, "unknown RefreshMode " + c.RefreshMode
}

// failureReason applies the seed's rule: the IVM reason when falling back is
// not allowed, else the stage that threw. tasks() carries neither column, so
// both come from the text (IvmFallbackReason and ErrorMsg): always inferred.
func failureReason(msg, fallbackReason string, refresh snapshot.RefreshInfo) (FailureReason, bool) {
	up := strings.ToUpper(msg)
	low := strings.ToLower(msg)
	// T0: an expired offset, in either naming (doris.md §0, §2).
	if IsExpiryText(msg) {
		if strings.Contains(low, "binlog") && !strings.Contains(low, "changelog") {
			return FailureBinlogBroken, true
		}
		return FailureChangelogBroken, true
	}
	// An expired offset named as such is T0 whatever the refresh allows.
	for _, r := range []FailureReason{FailureChangelogBroken, FailureBinlogBroken} {
		if containsToken(up, string(r)) {
			return r, true
		}
	}
	// The IVM reason only when falling back is not allowed; otherwise the
	// task fell back and the failure is the stage that threw (seed §3), so
	// an IVM reason in the text or in IvmFallbackReason is not the answer.
	if !refresh.FallbackAllowed() {
		for _, r := range ivmFailureReasons {
			if containsToken(up, string(r)) {
				return r, true
			}
		}
		if fallbackReason != "" {
			return FailureReason(fallbackReason), true
		}
	}
	for _, r := range []FailureReason{FailurePartitionSyncFailed, FailureQueryUnusable, FailureExecutionFailed} {
		if containsToken(up, string(r)) {
			return r, true
		}
	}
	switch {
	case strings.Contains(low, "partition sync") || strings.Contains(low, "sync partition"):
		return FailurePartitionSyncFailed, true
	case strings.Contains(low, "unusable") || strings.Contains(low, "not usable"):
		return FailureQueryUnusable, true
	case strings.Contains(low, "execut") || strings.Contains(low, "insert overwrite") || strings.Contains(low, "memory") || strings.Contains(low, "timeout"):
		return FailureExecutionFailed, true
	}
	return FailureOther, true
}

// containsToken reports whether up holds tok delimited by non-identifier characters.
func containsToken(up, tok string) bool {
	for i := 0; ; {
		j := strings.Index(up[i:], tok)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(tok)
		if (s == 0 || !isIdent(up[s-1])) && (e == len(up) || !isIdent(up[e])) {
			return true
		}
		i = s + 1
	}
}

func isIdent(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func firstNonNil(ps ...*int64) *int64 {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

// RefreshResults and RefreshMethods are the label values of
// doris_fe_ivm_refresh_tasks_total (every combination is exported from 0).
var (
	RefreshResults = []RefreshResult{ResultSuccess, ResultNoChange, ResultFailed, ResultCanceled}
	RefreshMethods = []RefreshMethod{MethodNone, MethodIncremental, MethodPartitionRebuild, MethodComplete, MethodMixed}
)

// FallbackReasons and FailureReasons are the known reason label values
// (lower case, as the design's labels): exported from 0, so that increase()
// sees the first event; an unknown reason gets its series when it happens.
func FallbackReasons() []string {
	out := make([]string, 0, len(ivmFailureReasons))
	for _, r := range ivmFailureReasons {
		out = append(out, strings.ToLower(string(r)))
	}
	return out
}

func FailureReasons() []string {
	out := FallbackReasons()
	for _, r := range []FailureReason{FailurePartitionSyncFailed, FailureQueryUnusable, FailureExecutionFailed, FailureOther} {
		out = append(out, strings.ToLower(string(r)))
	}
	return out
}

// IsExpiryText says an error text is an expired offset: the text of a build
// that enforces the TTL (snapshot.IsExpiredOffsetError) or another text
// naming an expired offset or TTL.
func IsExpiryText(msg string) bool {
	if snapshot.IsExpiredOffsetError(msg) {
		return true
	}
	low := strings.ToLower(msg)
	return strings.Contains(low, "expired") && (strings.Contains(low, "offset") || strings.Contains(low, "ttl_seconds"))
}
