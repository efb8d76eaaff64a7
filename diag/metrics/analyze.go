package metrics

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/exposition"
	cons "github.com/dorisdiag/dorisdiag/exposition/consumers"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"github.com/dorisdiag/dorisdiag/shellquote"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The one /metrics analysis (docs/metrics.md): lint results → conformance to
// the monitoring design → S5 signals → findings, then the Master-only rule
// across the FEs. `metrics lint` (a file, a URL, stdin, or a snapshot's
// payloads), `metrics scrape` and `check` all call AnalyzePayloads;
// only the policy (MetricsOptions) differs.

// Input is one /metrics payload to analyse, already linted with
// LintOptions (by scrape while fetching, by cmd for a file, or by Analyze
// for a snapshot's stored bodies), or not fetched at all (Lint nil, Err why).
type Input struct {
	Kind   string // "fe", "be" or "" when unknown
	Source string // the name findings use: host:port, a file, a URL, "stdin"
	// URL is where `dorisdiag metrics lint` can fetch the payload again; the
	// findings' next step points there ("" for a file or stdin).
	URL  string
	Lint *exposition.Result
	Err  error
	// Consumers is what a Prometheus server and expfmt do with the payload
	// (cons.PayloadConsumers), when its bytes were read; nil when
	// they were not kept (a live check lints each body as it streams in).
	Consumers *cons.Consumers
}

// Options is the policy of one analysis.
type Options struct {
	// Conform's Now is the instant staleness is judged against; zero means
	// the snapshot's cluster time in Analyze and "not judged" in
	// AnalyzePayloads. Diag never reads the clock.
	Conform   ConformOptions
	NoConform bool // skip the design checks and S5 (metrics --no-conform)
	// IncludeStyle also turns the linter's warning/info problems (naming
	// rules, missing HELP — mostly known Doris quirks) into METRICS_LINT
	// findings. check leaves it off: they fire on every healthy cluster and
	// belong to `metrics lint`; they are still counted in StyleProblems.
	IncludeStyle bool
	// Lint bounds Analyze's linting of stored bodies.
	Lint exposition.Options
	// Linted, when set, are the snapshot's payloads already linted (a live
	// check lints each body as it streams in and stores none):
	// Analyze analyses them instead of linting s.Metrics.
	Linted []Input
}

// Result is the analysis of a set of payloads (one per node, or one
// file).
type Result struct {
	Now         time.Time       `json:"now"`
	Payloads    []PayloadResult `json:"payloads"`
	Findings    []diag.Finding  `json:"findings"`
	S5          S5              `json:"s5"`
	Unparseable int             `json:"unparseable"`
	// StyleProblems counts the linter's warnings and infos not turned into
	// findings (IncludeStyle off); `dorisdiag metrics lint` lists them.
	StyleProblems int `json:"style_problems"`
	NotFetched    int `json:"not_fetched"`
	// TTLLastSuccessAgeSeconds is now − the oldest BE last-success timestamp
	// (the BE that has gone longest without a successful cleanup).
	TTLLastSuccessAgeSeconds *float64 `json:"ttl_last_success_age_seconds,omitempty"`
}

// PayloadResult is one payload's verdict.
type PayloadResult struct {
	Kind      string `json:"kind"`
	Target    string `json:"target"`
	URL       string `json:"url,omitempty"`
	Fetched   bool   `json:"fetched"`
	Error     string `json:"error,omitempty"`
	Parseable bool   `json:"parseable"`
	Series    int    `json:"series"`
	Problems  int    `json:"problems"`
	// PrometheusServer is what a Prometheus server's scrape does with the
	// payload: "kept" or "dropped" (exposition.PrometheusServer; from the
	// problems' classes when the bytes were not kept); Expfmt is whether
	// expfmt (client libraries, promtool) "accepted" or "rejected" it.
	// ServerLine and ServerReason say where and why the server drops it,
	// when its bytes were read. Absent when not fetched.
	PrometheusServer string `json:"prometheus_server,omitempty"`
	Expfmt           string `json:"expfmt,omitempty"`
	ServerLine       int    `json:"prometheus_server_line,omitempty"`
	ServerReason     string `json:"prometheus_server_reason,omitempty"`
	IsMaster         bool   `json:"is_master"`
	StateSeries      int    `json:"state_series"`
	// Lint, Conformance and S5 are the payload's own, for the renderers;
	// Findings are its own findings (the cross-FE Master rule excluded).
	Lint        *exposition.Result   `json:"-"`
	Conformance []exposition.Problem `json:"-"`
	S5          S5                   `json:"-"`
	Findings    []diag.Finding       `json:"-"`
}

// AnalyzePayloads is the /metrics analysis. Findings come back
// sorted, worst first.
func AnalyzePayloads(in []Input, opt Options) *Result {
	r := &Result{Now: opt.Conform.Now, Findings: []diag.Finding{}}
	for _, p := range in {
		pr := PayloadResult{Kind: p.Kind, Target: p.Source, URL: p.URL}
		if p.Err != nil {
			pr.Error = p.Err.Error()
		}
		if p.Lint == nil {
			why := p.Err
			if why == nil {
				why = errors.New("no body stored")
			}
			r.NotFetched++
			pr.Findings = []diag.Finding{UnreachableFinding(p.Kind, p.Source, why)}
			r.Findings = append(r.Findings, pr.Findings...)
			r.Payloads = append(r.Payloads, pr)
			continue
		}
		res := p.Lint
		pr.Fetched, pr.Lint = true, res
		pr.Parseable, pr.Series, pr.Problems = res.Parseable, res.Series, len(res.Problems)
		// A dorisdiag exporter serves the Master's series from outside the
		// FE: its state series are the Master's, not a follower's.
		pr.IsMaster, pr.StateSeries = IsMaster(res) || IsDorisdiagExporter(res), StateSeries(res)
		pr.setConsumers(p.Consumers, res)
		if !res.Parseable {
			r.Unparseable++
		}
		if !opt.NoConform {
			pr.Conformance = Conform(res, opt.Conform)
			pr.S5 = SpaceSignals(res)
			MergeS5(&r.S5, pr.S5)
		}
		lintRes := res
		if !opt.IncludeStyle {
			lintRes, r.StyleProblems = errorsOnly(res, r.StyleProblems)
		}
		pr.Findings = Findings(p.Source, lintRes, pr.Conformance, p.Consumers)
		if p.URL != "" && p.URL != p.Source {
			// `metrics lint` can fetch the URL; a bare host:port it cannot.
			for i, f := range pr.Findings {
				if tail := " " + shellquote.Quote(p.Source); strings.HasPrefix(f.Next, "dorisdiag metrics lint") && strings.HasSuffix(f.Next, tail) {
					pr.Findings[i].Next = strings.TrimSuffix(f.Next, tail) + " " + shellquote.Quote(p.URL)
				}
			}
		}
		diag.SortFindings(pr.Findings)
		r.Findings = append(r.Findings, pr.Findings...)
		r.Payloads = append(r.Payloads, pr)
	}
	r.Findings = append(r.Findings, MasterOnlyFindings(r.Payloads)...)
	diag.SortFindings(r.Findings)
	if ts := r.S5.TTLLastSuccessTimestamp; ts != nil && !r.Now.IsZero() {
		age := float64(r.Now.UnixMilli())/1000 - *ts
		r.TTLLastSuccessAgeSeconds = &age
	}
	return r
}

// Analyze lints the /metrics payloads stored in a snapshot and
// analyses them. It is pure: the exposition linter only parses bytes, and
// "now" for the monitor and cleanup ages is the snapshot's cluster time
// unless opt.Conform.Now says otherwise.
func Analyze(s *snapshot.Snapshot, opt Options) *Result {
	if opt.Conform.Now.IsZero() {
		opt.Conform.Now = s.Cluster.Now
	}
	if opt.Linted != nil {
		return AnalyzePayloads(opt.Linted, opt)
	}
	return AnalyzePayloads(Inputs(s, opt.Lint), opt)
}

// Inputs lints the payloads a snapshot stores, with the Doris profile
// (LintOptions) over the bounds lo. A payload the snapshot
// says was not fetched, or whose body cannot be linted, is an input with Err.
func Inputs(s *snapshot.Snapshot, lo exposition.Options) []Input {
	var in []Input
	for i, p := range s.Metrics {
		mi := Input{Kind: p.Kind, Source: p.Target, URL: payloadURL(p)}
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
			res, err := lint.Lint(strings.NewReader(p.Body), LintOptions(lo))
			if err != nil {
				mi.Err = err
			} else {
				mi.Lint = res
				c := cons.PayloadConsumers(res, []byte(p.Body))
				mi.Consumers = &c
			}
		}
		in = append(in, mi)
	}
	return in
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
func MergeS5(dst *S5, src S5) {
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
