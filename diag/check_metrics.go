package diag

import (
	"errors"
	"strings"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// MetricsOptions tune the /metrics part of a check.
type MetricsOptions struct {
	Conform exposition.ConformOptions // Now is filled from the snapshot's cluster time
	// IncludeStyle also turns the linter's warning/info problems (naming
	// rules, missing HELP — mostly known Doris quirks) into METRICS_LINT
	// findings. check leaves it off: they fire on every healthy cluster and
	// belong to `metrics lint`; they are still counted in StyleProblems.
	IncludeStyle bool
}

// MetricsResult is the /metrics part of a check: every payload the snapshot
// carries, linted and checked against the design with the cluster's clock.
type MetricsResult struct {
	Payloads    []MetricsPayloadResult `json:"payloads"`
	Findings    []Finding              `json:"findings"`
	S5          exposition.S5          `json:"s5"`
	Unparseable int                    `json:"unparseable"`
	// StyleProblems counts the linter's warnings and infos not turned into
	// findings (IncludeStyle off); `dorisdiag metrics lint` lists them.
	StyleProblems int `json:"style_problems"`
	NotFetched    int `json:"not_fetched"`
	// TTLLastSuccessAgeSeconds is now − the oldest BE last-success timestamp
	// (the BE that has gone longest without a successful cleanup).
	TTLLastSuccessAgeSeconds *float64 `json:"ttl_last_success_age_seconds,omitempty"`
}

// MetricsPayloadResult is one payload's verdict.
type MetricsPayloadResult struct {
	Kind      string `json:"kind"`
	Target    string `json:"target"`
	Fetched   bool   `json:"fetched"`
	Parseable bool   `json:"parseable"`
	Series    int    `json:"series"`
	Problems  int    `json:"problems"`
	IsMaster  bool   `json:"is_master"`
}

// AnalyzeMetrics lints the /metrics payloads stored in a snapshot. It is pure:
// the exposition linter only parses bytes, and "now" for the monitor and
// cleanup ages is the snapshot's cluster time.
func AnalyzeMetrics(s *snapshot.Snapshot, opt MetricsOptions) *MetricsResult {
	r := &MetricsResult{}
	copt := opt.Conform
	if copt.Now.IsZero() {
		copt.Now = s.Cluster.Now
	}
	var exporters, masters []string
	for _, p := range s.Metrics {
		pr := MetricsPayloadResult{Kind: p.Kind, Target: p.Target}
		if p.Error != "" || (p.Body == "" && p.Bytes == 0) {
			r.NotFetched++
			why := p.Error
			if why == "" {
				why = "no body stored"
			}
			r.Findings = append(r.Findings, UnreachableFinding(p.Kind, p.Target, errors.New(why)))
			r.Payloads = append(r.Payloads, pr)
			continue
		}
		pr.Fetched = true
		res, err := exposition.Lint(strings.NewReader(p.Body), exposition.Options{})
		if err != nil {
			r.Findings = append(r.Findings, UnreachableFinding(p.Kind, p.Target, err))
			r.Payloads = append(r.Payloads, pr)
			continue
		}
		pr.Parseable, pr.Series, pr.Problems = res.Parseable, res.Series, len(res.Problems)
		pr.IsMaster = exposition.IsMaster(res) || p.IsMaster
		if !res.Parseable {
			r.Unparseable++
		}
		conf := exposition.Conform(res, copt)
		lintRes := res
		if !opt.IncludeStyle {
			lintRes, r.StyleProblems = errorsOnly(res, r.StyleProblems)
		}
		for _, f := range MetricsFindings(p.Target, lintRes, conf) {
			// The payload came from a node: point the next step at its URL,
			// which `metrics lint` can fetch (a bare host:port it cannot).
			if url := payloadURL(p); url != "" {
				if strings.HasPrefix(f.Next, "dorisdiag metrics lint") {
					f.Next = strings.ReplaceAll(f.Next, " "+p.Target, " "+url)
				}
			}
			r.Findings = append(r.Findings, f)
		}
		if p.Kind == "fe" {
			if exposition.StateSeries(res) > 0 {
				exporters = append(exporters, p.Target)
			}
			if exposition.IsMaster(res) {
				masters = append(masters, p.Target)
			}
		}
		MergeS5(&r.S5, exposition.SpaceSignals(res))
		r.Payloads = append(r.Payloads, pr)
	}
	r.Findings = append(r.Findings, MasterOnlyFindings(exporters, masters)...)
	if ts := r.S5.TTLLastSuccessTimestamp; ts != nil {
		age := float64(copt.Now.UnixMilli())/1000 - *ts
		r.TTLLastSuccessAgeSeconds = &age
	}
	return r
}

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
func MergeS5(dst *exposition.S5, src exposition.S5) {
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
