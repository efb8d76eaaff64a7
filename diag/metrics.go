package diag

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/shellquote"
)

// Findings of `metrics lint` and `metrics scrape`, from what the exposition
// linter and metrics.Conform found. Lint problems are grouped per rule (one finding
// with a count and the first place), so a payload with thousands of broken
// lines still gives a readable gate.

// conformanceCode maps a design rule to its finding code.
func conformanceCode(rule string) Code {
	switch rule {
	case metrics.RuleDesignMonitorStale:
		return CodeMetricsMonitorStale
	case metrics.RuleDesignStateOnFollower:
		return CodeMetricsStateOnFollower
	case metrics.RuleTTLCleanupFailed, metrics.RuleTTLCleanupStale:
		return CodeChangelogTTLCleanupFailed
	}
	return CodeMetricsNonconforming
}

func lintSeverity(s string) Severity {
	switch s {
	case exposition.SeverityError:
		return SeverityCritical
	case exposition.SeverityWarning:
		return SeverityWarning
	}
	return SeverityInfo
}

// MetricsFindings turns the problems of one payload into findings. source
// names the payload (a file, a URL or a host).
func MetricsFindings(source string, res *exposition.Result, conformance []exposition.Problem) []Finding {
	var out []Finding
	obj := Object{Kind: "metrics", Name: source}
	type group struct {
		code  Code
		sev   Severity
		first exposition.Problem
		n     int
	}
	groups := map[string]*group{}
	var order []string
	addGroup := func(code Code, sev Severity, p exposition.Problem) {
		key := code.String() + "\x00" + p.Rule
		g := groups[key]
		if g == nil {
			g = &group{code: code, sev: sev, first: p}
			groups[key] = g
			order = append(order, key)
		}
		g.n++
	}
	if res != nil {
		for _, p := range res.Problems {
			if p.Rule == exposition.RuleProblemsSuppressed {
				continue
			}
			code := CodeMetricsLint
			if p.Severity == exposition.SeverityError {
				code = CodeMetricsUnparseable
			}
			addGroup(code, lintSeverity(p.Severity), p)
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
		if code == CodeMetricsMonitorStale {
			sev = SeverityCritical
		}
		addGroup(code, sev, p)
	}
	for _, key := range order {
		g := groups[key]
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
			ev["value"] = p.Value
		}
		input := shellquote.Quote(source)
		if source == "stdin" {
			input = "- < payload.prom"
		}
		next := "dorisdiag metrics lint " + input
		if g.code == CodeMetricsUnparseable {
			next = "dorisdiag metrics lint --fix -w fixed.prom " + input
		}
		detail := p.Fix
		if detail != "" {
			detail = "fix: " + detail
		}
		out = append(out, Finding{Code: g.code, Severity: g.sev, Object: obj, Summary: summary, Detail: detail, Evidence: ev, Next: next})
	}
	return out
}

func codeForRule(rule string) Code {
	if r, ok := exposition.RuleByName(rule); ok && r.Severity == exposition.SeverityError {
		return CodeMetricsUnparseable
	}
	return CodeMetricsLint
}

// UnreachableFinding is a target whose /metrics could not be fetched.
func UnreachableFinding(kind, host string, err error) Finding {
	return Finding{
		Code:     CodeMetricsTargetUnreachable,
		Severity: CodeMetricsTargetUnreachable.Severity(),
		Object:   Object{Kind: "node", Name: strings.TrimSpace(kind + " " + host)},
		Summary:  fmt.Sprintf("%s %s: %v", kind, host, err),
		Evidence: map[string]string{"host": host, "error": err.Error()},
		Next:     "curl -sv --max-time 5 " + shellquote.Quote("http://"+host+"/metrics") + " -o /dev/null",
	}
}

// masterOnlyFindings words MasterOnlyFindings: exporters are the FEs with
// state series, masters those with node_info{type="is_master"} 1 (sorted).
func masterOnlyFindings(exporters, masters []string) []Finding {
	var out []Finding
	isMaster := map[string]bool{}
	for _, m := range masters {
		isMaster[m] = true
	}
	for _, e := range exporters {
		if !isMaster[e] {
			out = append(out, Finding{
				Code: CodeMetricsStateOnFollower, Severity: CodeMetricsStateOnFollower.Severity(),
				Object:  Object{Kind: "node", Name: "fe " + e},
				Summary: "fe " + e + " exports changelog/IVM state series but is not the Master (no node_info{type=\"is_master\"} 1)",
				Next:    "curl -s " + shellquote.Quote("http://"+e+"/metrics") + " | grep -E '^(node_info|doris_fe_ivm_mvs|doris_fe_changelog_streams)'",
			})
		}
	}
	if len(exporters) > 1 {
		sorted := append([]string(nil), exporters...)
		sort.Strings(sorted)
		out = append(out, Finding{
			Code: CodeMetricsStateOnFollower, Severity: CodeMetricsStateOnFollower.Severity(),
			Object:   Object{Kind: "cluster", Name: "fe"},
			Summary:  fmt.Sprintf("%d FEs export state series (%s); only the Master may", len(exporters), strings.Join(sorted, ", ")),
			Evidence: map[string]string{"exporters": strings.Join(sorted, ","), "masters": strings.Join(masters, ",")},
		})
	}
	return out
}
