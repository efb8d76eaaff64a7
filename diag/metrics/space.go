package metrics

import "github.com/dorisdiag/dorisdiag/exposition"

// S5 is the changelog space picture from one payload: retained bytes (the
// Master FE) and the BE's TTL cleanup counters (apache/doris#69907,
// "Reference": doris_fe_changelog_retained_bytes,
// doris_be_changelog_ttl_*). A nil field: the payload did not carry it.
type S5 struct {
	RetainedBytesSingleReplica *float64 `json:"retained_bytes_single_replica,omitempty"`
	RetainedBytesAllReplicas   *float64 `json:"retained_bytes_all_replicas,omitempty"`
	TTLCleanupSuccess          *float64 `json:"ttl_cleanup_success,omitempty"`
	TTLCleanupFailed           *float64 `json:"ttl_cleanup_failed,omitempty"`
	TTLReclaimedBytes          *float64 `json:"ttl_reclaimed_bytes,omitempty"`
	TTLLastSuccessTimestamp    *float64 `json:"ttl_last_success_timestamp_seconds,omitempty"`
}

// Empty reports that the payload carried no S5 series.
func (s S5) Empty() bool {
	return s.RetainedBytesSingleReplica == nil && s.RetainedBytesAllReplicas == nil && s.TTLCleanupSuccess == nil &&
		s.TTLCleanupFailed == nil && s.TTLReclaimedBytes == nil && s.TTLLastSuccessTimestamp == nil
}

// SpaceSignals extracts S5 from the samples a lint with LintOptions kept.
func SpaceSignals(res *exposition.Result) S5 {
	var out S5
	p := func(v float64) *float64 { return &v }
	for _, s := range res.Samples {
		switch s.Name {
		case "doris_fe_changelog_retained_bytes":
			switch s.Labels["scope"] {
			case "single_replica":
				out.RetainedBytesSingleReplica = p(s.Value)
			case "all_replicas":
				out.RetainedBytesAllReplicas = p(s.Value)
			}
		case ttlCleanupFamily:
			switch s.Labels["result"] {
			case "success":
				out.TTLCleanupSuccess = p(s.Value)
			case "failed":
				out.TTLCleanupFailed = p(s.Value)
			}
		case "doris_be_changelog_ttl_reclaimed_bytes_total":
			out.TTLReclaimedBytes = p(s.Value)
		case ttlLastSuccess:
			out.TTLLastSuccessTimestamp = p(s.Value)
		}
	}
	return out
}
