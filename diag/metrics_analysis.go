package diag

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/shellquote"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The one /metrics analysis (docs/metrics.md): lint results → conformance to
// the monitoring design → S5 signals → findings, then the Master-only rule
// across the FEs. `metrics lint` (a file, a URL, stdin, or a snapshot's
// payloads), `metrics scrape` and `check` all call AnalyzeMetricsPayloads;
// only the policy (MetricsOptions) differs.

// MetricsInput is one /metrics payload to analyse, already linted with
// metrics.LintOptions (by scrape while fetching, by cmd for a file, or by
// AnalyzeMetrics for a snapshot's stored bodies), or not fetched at all
// (Lint nil, Err why).
type MetricsInput struct {
	Kind   string // "fe", "be" or "" when unknown
	Source string // the name findings use: host:port, a file, a URL, "stdin"
	// URL is where `dorisdiag metrics lint` can fetch the payload again; the
	// findings' next step points there ("" for a file or stdin).
	URL  string
	Lint *exposition.Result
	Err  error
}

// MetricsOptions is the policy of one analysis.
type MetricsOptions struct {
	// Conform's Now is the instant staleness is judged against; zero means
	// the snapshot's cluster time in AnalyzeMetrics and "not judged" in
	// AnalyzeMetricsPayloads. Diag never reads the clock.
	Conform   metrics.ConformOptions
	NoConform bool // skip the design checks and S5 (metrics --no-conform)
	// IncludeStyle also turns the linter's warning/info problems (naming
	// rules, missing HELP — mostly known Doris quirks) into METRICS_LINT
	// findings. check leaves it off: they fire on every healthy cluster and
	// belong to `metrics lint`; they are still counted in StyleProblems.
	IncludeStyle bool
	// Lint bounds AnalyzeMetrics' linting of stored bodies.
	Lint exposition.Options
	// Linted, when set, are the snapshot's payloads already linted (a live
	// check lints each body as it streams in and stores none):
	// AnalyzeMetrics analyses them instead of linting s.Metrics.
	Linted []MetricsInput
}

// MetricsResult is the analysis of a set of payloads (one per node, or one
// file).
type MetricsResult struct {
	Now         time.Time              `json:"now"`
	Payloads    []MetricsPayloadResult `json:"payloads"`
	Findings    []Finding              `json:"findings"`
	S5          metrics.S5             `json:"s5"`
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
	Kind        string `json:"kind"`
	Target      string `json:"target"`
	URL         string `json:"url,omitempty"`
	Fetched     bool   `json:"fetched"`
	Error       string `json:"error,omitempty"`
	Parseable   bool   `json:"parseable"`
	Series      int    `json:"series"`
	Problems    int    `json:"problems"`
	IsMaster    bool   `json:"is_master"`
	StateSeries int    `json:"state_series"`
	// Lint, Conformance and S5 are the payload's own, for the renderers;
	// Findings are its own findings (the cross-FE Master rule excluded).
	Lint        *exposition.Result   `json:"-"`
	Conformance []exposition.Problem `json:"-"`
	S5          metrics.S5           `json:"-"`
	Findings    []Finding            `json:"-"`
}

// AnalyzeMetricsPayloads is the /metrics analysis. Findings come back
// sorted, worst first.
func AnalyzeMetricsPayloads(in []MetricsInput, opt MetricsOptions) *MetricsResult {
	r := &MetricsResult{Now: opt.Conform.Now, Findings: []Finding{}}
	for _, p := range in {
		pr := MetricsPayloadResult{Kind: p.Kind, Target: p.Source, URL: p.URL}
		if p.Err != nil {
			pr.Error = p.Err.Error()
		}
		if p.Lint == nil {
			why := p.Err
			if why == nil {
				why = errors.New("no body stored")
			}
			r.NotFetched++
			pr.Findings = []Finding{UnreachableFinding(p.Kind, p.Source, why)}
			r.Findings = append(r.Findings, pr.Findings...)
			r.Payloads = append(r.Payloads, pr)
			continue
		}
		res := p.Lint
		pr.Fetched, pr.Lint = true, res
		pr.Parseable, pr.Series, pr.Problems = res.Parseable, res.Series, len(res.Problems)
		pr.IsMaster, pr.StateSeries = metrics.IsMaster(res), metrics.StateSeries(res)
		if !res.Parseable {
			r.Unparseable++
		}
		if !opt.NoConform {
			pr.Conformance = metrics.Conform(res, opt.Conform)
			pr.S5 = metrics.SpaceSignals(res)
			MergeS5(&r.S5, pr.S5)
		}
		lintRes := res
		if !opt.IncludeStyle {
			lintRes, r.StyleProblems = errorsOnly(res, r.StyleProblems)
		}
		pr.Findings = MetricsFindings(p.Source, lintRes, pr.Conformance)
		if p.URL != "" && p.URL != p.Source {
			// `metrics lint` can fetch the URL; a bare host:port it cannot.
			for i, f := range pr.Findings {
				if tail := " " + shellquote.Quote(p.Source); strings.HasPrefix(f.Next, "dorisdiag metrics lint") && strings.HasSuffix(f.Next, tail) {
					pr.Findings[i].Next = strings.TrimSuffix(f.Next, tail) + " " + shellquote.Quote(p.URL)
				}
			}
		}
		SortFindings(pr.Findings)
		r.Findings = append(r.Findings, pr.Findings...)
		r.Payloads = append(r.Payloads, pr)
	}
	r.Findings = append(r.Findings, MasterOnlyFindings(r.Payloads)...)
	SortFindings(r.Findings)
	if ts := r.S5.TTLLastSuccessTimestamp; ts != nil && !r.Now.IsZero() {
		age := float64(r.Now.UnixMilli())/1000 - *ts
		r.TTLLastSuccessAgeSeconds = &age
	}
	return r
}

// AnalyzeMetrics lints the /metrics payloads stored in a snapshot and
// analyses them. It is pure: the exposition linter only parses bytes, and
// "now" for the monitor and cleanup ages is the snapshot's cluster time
// unless opt.Conform.Now says otherwise.
func AnalyzeMetrics(s *snapshot.Snapshot, opt MetricsOptions) *MetricsResult {
	if opt.Conform.Now.IsZero() {
		opt.Conform.Now = s.Cluster.Now
	}
	if opt.Linted != nil {
		return AnalyzeMetricsPayloads(opt.Linted, opt)
	}
	return AnalyzeMetricsPayloads(MetricsInputs(s, opt.Lint), opt)
}

// MetricsInputs lints the payloads a snapshot stores, with the Doris profile
// (metrics.LintOptions) over the bounds lo. A payload the snapshot
// says was not fetched, or whose body cannot be linted, is an input with Err.
func MetricsInputs(s *snapshot.Snapshot, lo exposition.Options) []MetricsInput {
	var in []MetricsInput
	for i, p := range s.Metrics {
		mi := MetricsInput{Kind: p.Kind, Source: p.Target, URL: payloadURL(p)}
		if mi.Source == "" {
			mi.Source = "payload " + strconv.Itoa(i+1)
		}
		switch {
		case p.Error != "":
			mi.Err = errors.New(p.Error)
		case p.Body == "":
			// Also when Bytes says a body was fetched: it was linted as it
			// streamed in and not kept (a live check), never lint "" as if
			// it were the payload.
			mi.Err = errors.New("no body stored")
		default:
			res, err := exposition.Lint(strings.NewReader(p.Body), metrics.LintOptions(lo))
			if err != nil {
				mi.Err = err
			} else {
				mi.Lint = res
			}
		}
		in = append(in, mi)
	}
	return in
}

// MasterOnlyFindings is the one rule "only the Master FE exports the
// changelog/IVM state series" of the monitoring design (docs/metrics.md
// "Conformance"). Every payload that is not a BE's counts —
// a --targets entry of unknown kind that exports FE state series is an FE.
// An exporter that does not say node_info{type="is_master"} 1 is a finding,
// and so is more than one exporter.
func MasterOnlyFindings(payloads []MetricsPayloadResult) []Finding {
	var exporters, masters []string
	for _, p := range payloads {
		if p.Lint == nil || p.Kind == "be" {
			continue
		}
		if p.StateSeries > 0 {
			exporters = append(exporters, p.Target)
		}
		if p.IsMaster {
			masters = append(masters, p.Target)
		}
	}
	sort.Strings(exporters)
	sort.Strings(masters)
	return masterOnlyFindings(exporters, masters)
}
