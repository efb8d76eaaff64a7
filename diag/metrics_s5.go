package diag

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

func payloadURL(p snapshot.MetricsPayload) string {
	if p.URL != "" {
		return p.URL
	}
	if p.Target != "" && !strings.Contains(p.Target, "/") {
		return "http://" + p.Target + "/metrics"
	}
	return ""
}

// errorsOnly returns a copy of res whose problems are the error-level ones,
// and adds the others to count.
func errorsOnly(res *exposition.Result, count int) (*exposition.Result, int) {
	cp := *res
	cp.Problems = nil
	cp.Suppressed = nil
	for _, p := range res.Problems {
		if p.Severity == exposition.SeverityError || p.Rule == exposition.RuleProblemsSuppressed {
			cp.Problems = append(cp.Problems, p)
		} else {
			count++
		}
	}
	for rule, n := range res.Suppressed {
		if r, ok := exposition.RuleByName(rule); ok && r.Severity == exposition.SeverityError {
			if cp.Suppressed == nil {
				cp.Suppressed = map[string]int{}
			}
			cp.Suppressed[rule] = n
		} else {
			count += n
		}
	}
	return &cp, count
}

// MergeS5 adds one payload's S5 signals to a cluster picture: the BE
// cleanup counters add up; the last successful cleanup keeps the OLDEST over
// the BEs, so one BE whose cleanup stopped is not hidden by the others (the
// overview shows worst values); retained bytes come from the Master only.
func MergeS5(dst *metrics.S5, src metrics.S5) {
	add := func(d **float64, v *float64) {
		if v == nil {
			return
		}
		if *d == nil {
			x := *v
			*d = &x
			return
		}
		**d += *v
	}
	add(&dst.TTLCleanupSuccess, src.TTLCleanupSuccess)
	add(&dst.TTLCleanupFailed, src.TTLCleanupFailed)
	add(&dst.TTLReclaimedBytes, src.TTLReclaimedBytes)
	if src.TTLLastSuccessTimestamp != nil && (dst.TTLLastSuccessTimestamp == nil || *src.TTLLastSuccessTimestamp < *dst.TTLLastSuccessTimestamp) {
		x := *src.TTLLastSuccessTimestamp
		dst.TTLLastSuccessTimestamp = &x
	}
	// Retained bytes are a cluster-level gauge exported by the Master only.
	if src.RetainedBytesSingleReplica != nil {
		dst.RetainedBytesSingleReplica = src.RetainedBytesSingleReplica
	}
	if src.RetainedBytesAllReplicas != nil {
		dst.RetainedBytesAllReplicas = src.RetainedBytesAllReplicas
	}
}

// fillSpace copies the S5 picture into the check overview.
func (r *MetricsResult) fillSpace(o *SpaceOverview) {
	if r == nil {
		return
	}
	o.MetricsPayloads = len(r.Payloads)
	o.MetricsPayloadsUnparseable = r.Unparseable
	o.MetricsPayloadsNotFetched = r.NotFetched
	o.MetricsStyleProblems = r.StyleProblems
	if v := r.S5.RetainedBytesSingleReplica; v != nil {
		o.RetainedBytes = v
	} else if v := r.S5.RetainedBytesAllReplicas; v != nil {
		o.RetainedBytes = v
	}
	o.TTLCleanupFailed = r.S5.TTLCleanupFailed
	o.TTLCleanupSucceeded = r.S5.TTLCleanupSuccess
	o.TTLReclaimedBytes = r.S5.TTLReclaimedBytes
	o.TTLLastSuccessAgeSeconds = r.TTLLastSuccessAgeSeconds
}
