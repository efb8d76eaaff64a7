package mv

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
)

// One row of `mv list`.

// ListItem is one row of `mv list` (JSON field names are stable; see
// docs/mv.md).
type ListItem struct {
	DB                         string                `json:"db"`
	Name                       string                `json:"name"`
	ID                         int64                 `json:"id"`
	FreshnessState             FreshnessState        `json:"freshness_state"`
	StateSource                string                `json:"state_source"`
	DataDelay                  diag.Value            `json:"data_delay"`
	LaggingReason              LaggingReason         `json:"lagging_reason"`
	ConsecutiveFailures        int                   `json:"consecutive_failures"`
	ConsecutiveFailuresAtLeast bool                  `json:"consecutive_failures_at_least"`
	LastMethod                 refresh.RefreshMethod `json:"last_method,omitempty"`
	LastMethodInferred         bool                  `json:"last_method_inferred,omitempty"`
	FallbacksInWindow          int                   `json:"fallbacks_in_window"`
	MinHeadroomSeconds         *float64              `json:"min_headroom_seconds,omitempty"`
	JobStatus                  string                `json:"job_status,omitempty"`
	Severity                   string                `json:"severity,omitempty"`
	Codes                      []string              `json:"codes"`
	Headline                   string                `json:"headline"`
}

// ListItem projects an MV onto a `mv list` row; codes are its findings' codes
// in cause order.
func (r *MV) ListItem(fs []diag.Finding) ListItem {
	it := ListItem{DB: r.DB, Name: r.Name, ID: r.ID, FreshnessState: r.FreshnessState, StateSource: r.StateSource, DataDelay: r.DataDelay,
		LaggingReason: r.LaggingReason, ConsecutiveFailures: r.History.ConsecutiveFailures, ConsecutiveFailuresAtLeast: r.History.ConsecutiveFailuresAtLeast,
		LastMethod: r.History.LastMethod, LastMethodInferred: r.History.LastMethodInferred, FallbacksInWindow: r.History.FallbacksInWindow,
		MinHeadroomSeconds: r.MinHeadroomSeconds, JobStatus: r.JobStatus, Severity: r.Severity, Codes: []string{}, Headline: r.Headline}
	if r.Server != nil && r.Server.ConsecutiveFailures != nil {
		it.ConsecutiveFailures, it.ConsecutiveFailuresAtLeast = int(*r.Server.ConsecutiveFailures), false
	}
	if r.Server != nil && r.Server.LastRefreshMethod != "" {
		it.LastMethod, it.LastMethodInferred = refresh.RefreshMethod(strings.ToLower(r.Server.LastRefreshMethod)), false
	}
	for _, f := range fs {
		it.Codes = append(it.Codes, f.Code.String())
	}
	return it
}
