package metrics

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/exposition"
	cons "github.com/dorisdiag/dorisdiag/exposition/consumers"
	"github.com/dorisdiag/dorisdiag/shellquote"
)

// Findings of `metrics lint` and `metrics scrape`, from what the exposition
// linter and Conform found. Lint problems are grouped per rule (one finding
// with a count and the first place), so a payload with thousands of broken
// lines still gives a readable gate.

// CodeUnparseable: A /metrics payload is not valid exposition format

var CodeUnparseable = diag.Declare(diag.Declaration{
	Code:      "METRICS_UNPARSEABLE",
	NotLive:   "the live exporter does not fetch the nodes' /metrics: Prometheus scrapes them itself (a failed scrape is its own up == 0); lint them with dorisdiag metrics scrape or check",
	Action:    "lint the payload to see each problem",
	Severity:  diag.SeverityCritical,
	Impact:    diag.ImpactVisibility,
	Place:     3,
	Magnitude: diag.Measure{Name: "count"},
	Title:     "A /metrics payload is not valid exposition format (critical when a Prometheus server drops the scrape)",
	Spec:      "apache/doris#69907 §1 T8; docs/metrics.md",
	Meaning: "The payload has at least one error that makes expfmt (and so the Prometheus client libraries and promtool) reject it: an unescaped backslash, quote or line feed in a label value, a Go %q escape such as \\t or \\x41, a bad name, value or timestamp, a second HELP or TYPE, a missing final line feed; " +
		"or a Prometheus server's own parser refuses it (a negative timestamp, TYPE gaugehistogram). Each is listed with file:line:col, the family and the label. " +
		"A Prometheus server's scrape is more lenient than expfmt on some of them and stricter on others (docs/metrics.md \"Who rejects what\"): " +
		"critical when the server drops the scrape (a raw quote, duplicate label names, gaugehistogram, a negative timestamp), a warning naming who rejects it when the server keeps it (a\\b and Go-style escapes, a raw line feed in a label value, a missing final line feed, a repeated HELP or TYPE, le=\"bla\", negative histogram counts). " +
		"Without the payload's bytes (a live check lints each body as it streams in) the verdict follows the problem's class, and a class the server sometimes drops counts as dropped.",
	Matters: "When a Prometheus server drops the scrape it keeps nothing from it: every series of the node goes stale at once, alerts included. When it keeps it, Prometheus works, but every tool built on expfmt (federation parsers, promtool, exporters' tests, client libraries) fails on the payload.",
	Confirm: "dorisdiag metrics lint http://FE:8030/metrics   # or: curl -s FE:8030/metrics | promtool check metrics",
	Fix:     "Escape label values (\\ as \\\\, \" as \\\", line feed as \\n) where Doris renders them; until then `dorisdiag metrics lint --fix` shows the corrected payload. Rename the user or object with the offending character as a workaround.",
	Related: []string{"METRICS_LINT"},
})

// CodeLint: A /metrics payload parses but breaks a convention that hurts
var CodeLint = diag.Declare(diag.Declaration{
	Code:      "METRICS_LINT",
	NotLive:   "as METRICS_UNPARSEABLE",
	Action:    "follow each problem's fix line",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactHygiene,
	Place:     4,
	Magnitude: diag.Measure{Name: "count"},
	Title:     "A /metrics payload parses but breaks a convention that hurts",
	Spec:      "docs/metrics.md; promlint",
	Meaning:   "Duplicate series, a family split by another, NaN in a changelog/IVM series, an empty HELP, or a promlint naming rule (counter without _total, camelCase, _ms units, ...). Known Doris quirks are said to be so.",
	Matters:   "Prometheus keeps one of two duplicate series at random; naming problems make queries and alerts error-prone. Quirks Doris has always had are listed so they can be told apart from new ones.",
	Confirm:   "dorisdiag metrics lint FILE|URL   # warnings are grouped by rule",
	Fix:       "Follow the fix line of each rule; for a known Doris quirk, nothing to do until Doris renames the metric.",
	Related:   []string{"METRICS_UNPARSEABLE"},
})

// CodeNonconforming: The changelog/IVM series differ from the monitoring design
var CodeNonconforming = diag.Declare(diag.Declaration{
	Code:      "METRICS_NONCONFORMING",
	NotLive:   "as METRICS_UNPARSEABLE",
	Action:    "report the difference against the build",
	Severity:  diag.SeverityWarning,
	Impact:    diag.ImpactHygiene,
	Place:     3,
	Magnitude: diag.Measure{Name: "count"},
	Title:     "The changelog/IVM series differ from the monitoring design",
	Spec:      "apache/doris#69907 §2 Reference (metrics tables), §3 \"A bounded number of series\", \"Unknown values\"",
	Meaning:   "A changelog/IVM series has another type, label set or label value than the reference tables of apache/doris#69907, per-object series exceed the quota or disagree with objects_not_exported, a cluster-level series is missing beside per-object ones, a value is negative or NaN where the design allows none, or the series exceed the budget.",
	Matters:   "Alerts and dashboards written against the design silently match nothing, or miss the objects beyond the quota.",
	Confirm:   "dorisdiag metrics lint http://MASTER_FE:8030/metrics -o json | jq '.conformance'",
	Fix:       "Report the difference against the Doris build (the names may still change until each PR merges); check prom_output_ivm_mv_metrics_limit and prom_output_table_stream_metrics_limit.",
	Related:   []string{"METRICS_STATE_ON_FOLLOWER", "METRICS_MONITOR_STALE"},
})

// CodeMonitorStale: The changelog/IVM monitor on the Master FE is stale
var CodeMonitorStale = diag.Declare(diag.Declaration{
	Code:     "METRICS_MONITOR_STALE",
	NotLive:  "as METRICS_UNPARSEABLE; the exporter's own DorisChangelogMonitorStale covers its rounds",
	Action:   "look for monitor errors in the Master's log",
	Severity: diag.SeverityCritical,
	Impact:   diag.ImpactVisibility,
	Place:    8,
	Series:   "doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds",
	Alert:    "DorisChangelogMonitorStale",
	Title:    "The changelog/IVM monitor on the Master FE is stale",
	Spec:     "apache/doris#69907 §2 alert \"The monitoring itself is stale\"; §3 \"One sampler on the Master FE\"",
	Meaning:  "now − doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds is over 2 × the monitor interval (changelog_ivm_monitor_interval_seconds, 15 s by default), or the Master exports state series without the timestamp.",
	Matters:  "A round that fails keeps the previous snapshot: every state, delay and headroom series shows old values, so delay alerts stay quiet while MVs and streams fall behind.",
	Confirm:  "curl -s MASTER_FE:8030/metrics | grep -E 'changelog_ivm_monitor_(last_sample_timestamp|sample_failures)'",
	Fix:      "Look for ChangelogIvmMonitor errors in the Master's fe.log; check enable_changelog_ivm_monitor and changelog_ivm_monitor_max_partitions_per_round.",
	Related:  []string{"METRICS_NONCONFORMING"},
})

// CodeStateOnFollower: State series come from an FE that is not the Master, or from more than one FE
var CodeStateOnFollower = diag.Declare(diag.Declaration{
	Code:     "METRICS_STATE_ON_FOLLOWER",
	NotLive:  "as METRICS_UNPARSEABLE",
	Action:   "report it against the Doris build",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactHygiene,
	Place:    2,
	Title:    "State series come from an FE that is not the Master, or from more than one FE",
	Spec:     "apache/doris#69907 §2 \"Only the Master FE exports the state series\"; §3 \"One sampler on the Master FE\"",
	Meaning:  "An FE without node_info{type=\"is_master\"} 1 exports changelog/IVM state series, or several FEs do.",
	Matters:  "The design relies on one exporter: a 0 from every other FE drags min() over the FEs to 0 and sums double-count.",
	Confirm:  "for h in FE1 FE2 FE3; do curl -s $h:8030/metrics | grep -c '^doris_fe_ivm_mvs'; done",
	Fix:      "Report it against the Doris build: followers must export none of the state series (not 0).",
	Related:  []string{"METRICS_NONCONFORMING"},
})

// CodeChangelogTTLCleanupFailed: A BE's changelog TTL cleanup failed, or has not succeeded for too long
var CodeChangelogTTLCleanupFailed = diag.Declare(diag.Declaration{
	Code:     "CHANGELOG_TTL_CLEANUP_FAILED",
	NotLive:  "read from the BEs' /metrics, which the live exporter does not fetch (DorisChangelogTtlCleanupFailed in design-alerts.yml reads the BE series directly)",
	Action:   "find the cleanup error in the BE's be.INFO",
	Severity: diag.SeverityWarning,
	Impact:   diag.ImpactFreshness,
	Place:    5,
	Series:   "doris_be_changelog_ttl_cleanup_total{result=\"failed\"}",
	Alert:    "DorisChangelogTtlCleanupFailed",
	Title:    "A BE's changelog TTL cleanup failed, or has not succeeded for too long",
	Spec:     "apache/doris#69907 §1 S5; §2 alert \"A TTL cleanup failed\"",
	Meaning:  "doris_be_changelog_ttl_cleanup_total{result=\"failed\"} > 0 on a BE, or doris_be_changelog_ttl_last_success_timestamp_seconds is older than --ttl-cleanup-max-age.",
	Matters:  "Expired changelog is not reclaimed: doris_fe_changelog_retained_bytes keeps growing and disks fill.",
	Confirm:  "curl -s BE:8040/metrics | grep doris_be_changelog_ttl",
	Fix:      "Check the BE's be.INFO for the cleanup error (disk, permissions, a stuck tablet) and restart the cleanup by fixing its cause.",
	Related:  []string{"METRICS_NONCONFORMING"},
})

// conformanceCode maps a design rule to its finding code.
func conformanceCode(rule string) diag.Code {
	switch rule {
	case RuleDesignMonitorStale:
		return CodeMonitorStale
	case RuleDesignStateOnFollower:
		return CodeStateOnFollower
	case RuleTTLCleanupFailed, RuleTTLCleanupStale:
		return CodeChangelogTTLCleanupFailed
	}
	return CodeNonconforming
}

func lintSeverity(s string) diag.Severity {
	switch s {
	case exposition.SeverityError:
		return diag.SeverityCritical
	case exposition.SeverityWarning:
		return diag.SeverityWarning
	}
	return diag.SeverityInfo
}

// Findings turns the problems of one payload into findings. source
// names the payload (a file, a URL or a host).
// consumers, when set, is what a Prometheus server and expfmt do with the
// payload (its bytes were read): it decides METRICS_UNPARSEABLE's severity
// (consumers.go); nil judges by the problems' classes.
func Findings(source string, res *exposition.Result, conformance []exposition.Problem, consumers *cons.Consumers) []diag.Finding {
	var out []diag.Finding
	obj := diag.Object{Kind: "metrics", Name: source}
	verdict, exact := serverVerdict(consumers, res)
	for _, g := range groupProblems(res, conformance) {
		f := g.finding(source, obj)
		if g.code == CodeUnparseable {
			consumerWording(&f, verdict, exact, consumers)
		}
		out = append(out, f)
	}
	if consumers != nil && consumers.Expfmt == cons.ExpfmtAccepted && consumers.PrometheusServer == cons.ServerDropped {
		out = append(out, serverOnlyFinding(source, obj, consumers))
	}
	return out
}

// problemGroup is the problems of one rule, raised as one finding of code.
type problemGroup struct {
	code  diag.Code
	sev   diag.Severity
	first exposition.Problem
	n     int
}

// groupProblems groups the lint problems and the conformance problems by
// code and rule, in the order each group first appears.
func groupProblems(res *exposition.Result, conformance []exposition.Problem) []*problemGroup {
	groups := map[string]*problemGroup{}
	var order []*problemGroup
	add := func(code diag.Code, sev diag.Severity, p exposition.Problem) {
		key := code.String() + "\x00" + p.Rule
		g := groups[key]
		if g == nil {
			g = &problemGroup{code: code, sev: sev, first: p}
			groups[key] = g
			order = append(order, g)
		}
		g.n++
	}
	if res != nil {
		for _, p := range res.Problems {
			if p.Rule == exposition.RuleProblemsSuppressed {
				continue
			}
			code := CodeLint
			if p.Severity == exposition.SeverityError {
				code = CodeUnparseable
			}
			add(code, lintSeverity(p.Severity), p)
		}
		for rule, n := range res.Suppressed {
			if g := groups[codeForRule(rule).String()+"\x00"+rule]; g != nil {
				g.n += n
			}
		}
	}
	for _, p := range conformance {
		code := conformanceCode(p.Rule)
		sev := lintSeverity(p.Severity)
		if code == CodeMonitorStale {
			sev = diag.SeverityCritical
		}
		add(code, sev, p)
	}
	return order
}

// finding is one group's finding: the count and the first place, the
// command that shows them all. Its magnitude is the count.
func (g *problemGroup) finding(source string, obj diag.Object) diag.Finding {
	p := g.first
	where := fmt.Sprintf("%s:%d:%d", source, p.Line, p.Col)
	summary := p.Rule + ": " + p.Message
	if g.n > 1 {
		summary = fmt.Sprintf("%d × %s, first at %s: %s", g.n, p.Rule, where, p.Message)
	} else {
		summary = where + ": " + summary
	}
	ev := map[string]string{"rule": p.Rule, "count": fmt.Sprint(g.n), "first": where}
	if p.Family != "" {
		ev["family"] = p.Family
	}
	if p.Label != "" {
		ev["label"] = p.Label
	}
	if p.Value != "" {
		ev["value"] = p.DisplayValue() // evidence is display text: escaped as the payload, cut with "…"
	}
	input := lintInput(source)
	next := "dorisdiag metrics lint " + input
	if g.code == CodeUnparseable {
		next = "dorisdiag metrics lint --fix -w fixed.prom " + input
	}
	detail := p.Fix
	if detail != "" {
		detail = "fix: " + detail
	}
	n := float64(g.n)
	return diag.Finding{Code: g.code, Severity: g.sev, Object: obj, Summary: summary, Detail: detail, Evidence: ev, Next: next, Magnitude: &n}
}

// lintInput is source as the argument of `dorisdiag metrics lint`.
func lintInput(source string) string {
	if source == "stdin" {
		return "- < payload.prom"
	}
	return shellquote.Quote(source)
}

func codeForRule(rule string) diag.Code {
	if r, ok := exposition.RuleByName(rule); ok && r.Severity == exposition.SeverityError {
		return CodeUnparseable
	}
	return CodeLint
}

// CodeTargetUnreachable: An FE or BE /metrics could not be fetched
var CodeTargetUnreachable = diag.Declare(diag.Declaration{
	Code:     "METRICS_TARGET_UNREACHABLE",
	NotLive:  "as METRICS_UNPARSEABLE",
	Action:   "check the node, its HTTP port and firewalls",
	Severity: diag.SeverityCritical,
	Impact:   diag.ImpactVisibility,
	Place:    4,
	Title:    "An FE or BE /metrics could not be fetched",
	Spec:     "docs/architecture.md \"Reliability\" (timeouts named with the host); the Stream Load field report (silent hang)",
	Meaning:  "The connection was refused or timed out, the node accepted the connection but sent no headers within the timeout, the request as a whole timed out, the HTTP status was not 2xx, or the body was over the size limit. The error names the host and which timeout fired.",
	Matters:  "Prometheus sees the same node as down: none of its series (state series on the Master, TTL cleanup on a BE) alert.",
	Confirm:  "curl -sv --max-time 5 http://HOST:PORT/metrics -o /dev/null",
	Fix:      "Check the node is alive (SHOW FRONTENDS / SHOW BACKENDS), the HTTP port, and firewalls; raise --connect-timeout/--header-timeout if the node is only slow.",
	Related:  []string{"SOURCE_UNREACHABLE"},
})

// targetObject is the object of a /metrics target: the node named by its
// host:port alone. Its role (fe, be) is a fact about it, in the evidence
// ("role"), not part of its name: the same node is the same object whatever
// a --targets entry said it was.
func targetObject(host string) diag.Object {
	return diag.Object{Kind: "node", Name: host}
}

// withRole adds a target's role to ev when it is known.
func withRole(ev map[string]string, role string) map[string]string {
	if role != "" {
		ev["role"] = role
	}
	return ev
}

// UnreachableFinding is a target whose /metrics could not be fetched.
func UnreachableFinding(kind, host string, err error) diag.Finding {
	return diag.Finding{
		Code:     CodeTargetUnreachable,
		Severity: CodeTargetUnreachable.Severity(),
		Object:   targetObject(host),
		Summary:  strings.TrimSpace(fmt.Sprintf("%s %s: %v", kind, host, err)),
		Evidence: withRole(map[string]string{"host": host, "error": err.Error()}, kind),
		Next:     "curl -sv --max-time 5 " + shellquote.Quote("http://"+host+"/metrics") + " -o /dev/null",
	}
}

// MasterOnlyFindings is the one rule "only the Master FE exports the
// changelog/IVM state series" of the monitoring design (docs/metrics.md
// "Conformance"). Every payload that is not a BE's counts —
// a --targets entry of unknown kind that exports FE state series is an FE.
// An exporter that does not say node_info{type="is_master"} 1 is a finding,
// and so is more than one exporter.
func MasterOnlyFindings(payloads []PayloadResult) []diag.Finding {
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

// masterOnlyFindings words MasterOnlyFindings: exporters are the FEs with
// state series, masters those with node_info{type="is_master"} 1 (sorted).
func masterOnlyFindings(exporters, masters []string) []diag.Finding {
	var out []diag.Finding
	isMaster := map[string]bool{}
	for _, m := range masters {
		isMaster[m] = true
	}
	for _, e := range exporters {
		if !isMaster[e] {
			out = append(out, diag.Finding{
				Code: CodeStateOnFollower, Severity: CodeStateOnFollower.Severity(),
				Object:   targetObject(e),
				Evidence: withRole(map[string]string{"host": e}, "fe"),
				Summary:  "fe " + e + " exports changelog/IVM state series but is not the Master (no node_info{type=\"is_master\"} 1)",
				Next:     "curl -s " + shellquote.Quote("http://"+e+"/metrics") + " | grep -E '^(node_info|doris_fe_ivm_mvs|doris_fe_changelog_streams)'",
			})
		}
	}
	if len(exporters) > 1 {
		sorted := append([]string(nil), exporters...)
		sort.Strings(sorted)
		out = append(out, diag.Finding{
			Code: CodeStateOnFollower, Severity: CodeStateOnFollower.Severity(),
			Object:   diag.Object{Kind: "cluster", Name: "fe"},
			Summary:  fmt.Sprintf("%d FEs export state series (%s); only the Master may", len(exporters), strings.Join(sorted, ", ")),
			Evidence: map[string]string{"exporters": strings.Join(sorted, ","), "masters": strings.Join(masters, ",")},
		})
	}
	return out
}
