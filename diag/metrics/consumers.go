package metrics

import (
	"fmt"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/exposition"
	cons "github.com/dorisdiag/dorisdiag/exposition/consumers"
)

// Who rejects a payload (docs/metrics.md "Who rejects what"). The linter's
// error rules follow expfmt, which client libraries and promtool use; a
// Prometheus server's scrape has its own parser (exposition.PrometheusServer),
// which keeps most of what expfmt rejects (a\b and Go-style escapes, a raw
// line feed in a label value, a missing final line feed, a repeated HELP or
// TYPE, le="bla", negative histogram counts) and drops some of what it
// accepts (a negative timestamp, gaugehistogram). METRICS_UNPARSEABLE is
// critical only when the server drops the scrape; otherwise it is a warning
// that names who rejects the payload.

// rejecters names the consumers that follow expfmt.
const rejecters = "expfmt, the Prometheus client libraries and promtool reject it"

// serverVerdict is the server's verdict on a payload: the exact one when its
// bytes were read (Input.Consumers), else the one its error rules' classes
// imply (cons.RuleConsumers): dropped when one class is dropped,
// depends or was not checked (a drop cannot be ruled out), kept when every
// class is kept. exact says which.
func serverVerdict(c *cons.Consumers, res *exposition.Result) (verdict string, exact bool) {
	if c != nil {
		return c.PrometheusServer, true
	}
	if res == nil {
		return "", false
	}
	verdict = cons.ServerKept
	for _, p := range res.Problems {
		if p.Severity != exposition.SeverityError {
			continue
		}
		if rc, ok := cons.RuleConsumers(p.Rule); !ok || rc.Server != cons.ServerKept {
			return cons.ServerDropped, false
		}
	}
	for rule := range res.Suppressed {
		if rc, ok := cons.RuleConsumers(rule); ok && rc.Expfmt == cons.ExpfmtRejected && rc.Server != cons.ServerKept {
			return cons.ServerDropped, false
		}
	}
	return verdict, false
}

// consumerWording sets a METRICS_UNPARSEABLE finding's severity and says who
// rejects the payload: critical when a Prometheus server drops the scrape,
// a warning naming expfmt, the client libraries and promtool when it keeps it.
func consumerWording(f *diag.Finding, verdict string, exact bool, c *cons.Consumers) {
	rc, _ := cons.RuleConsumers(f.Evidence["rule"])
	f.Evidence["prometheus_server"] = verdict
	f.Evidence["expfmt"] = cons.ExpfmtRejected
	how := "judged from the problem's class (" + rc.ServerNote + "); lint the payload itself to know"
	if exact {
		how = "checked on the payload"
	}
	switch verdict {
	case cons.ServerKept:
		f.Severity = diag.SeverityWarning
		f.Summary += " — " + rejecters + "; a Prometheus server keeps the scrape"
		f.Detail = strings.TrimSpace("A Prometheus server keeps this scrape (" + how + "); " + rejecters + ". " + f.Detail)
	default:
		f.Severity = diag.SeverityCritical
		why := ""
		if c != nil && c.ServerReason != "" {
			why = fmt.Sprintf(" (line %d: %s)", c.ServerLine, c.ServerReason)
		}
		f.Summary += " — a Prometheus server drops the whole scrape"
		f.Detail = strings.TrimSpace("A Prometheus server drops the whole scrape" + why + ": no sample of it is stored and up is 0 (" + how + "); " + rejecters + ". " + f.Detail)
	}
}

// serverOnlyFinding is a payload that expfmt accepts and a Prometheus server
// drops (a negative timestamp, gaugehistogram, ...): no lint error says it.
func serverOnlyFinding(source string, obj diag.Object, c *cons.Consumers) diag.Finding {
	where := fmt.Sprintf("%s:%d", source, c.ServerLine)
	one := 1.0
	return diag.Finding{Code: CodeUnparseable, Severity: diag.SeverityCritical, Object: obj,
		Summary: where + ": a Prometheus server drops the whole scrape: " + c.ServerReason + " (expfmt accepts the payload)",
		Detail: "A Prometheus server's parser refuses what expfmt and promtool accept (" + strings.Join(cons.ServerOnlyProblems, "; ") +
			"): no sample of the scrape is stored and up is 0.",
		Evidence:  map[string]string{"rule": "prometheus-server", "count": "1", "first": where, "prometheus_server": cons.ServerDropped, "expfmt": cons.ExpfmtAccepted, "reason": c.ServerReason},
		Next:      "dorisdiag metrics lint " + lintInput(source),
		Magnitude: &one,
	}
}

// setConsumers fills the payload's consumer verdicts (PayloadResult).
func (pr *PayloadResult) setConsumers(c *cons.Consumers, res *exposition.Result) {
	pr.PrometheusServer, _ = serverVerdict(c, res)
	pr.Expfmt = cons.ExpfmtAccepted
	if !res.Parseable {
		pr.Expfmt = cons.ExpfmtRejected
	}
	if c != nil {
		pr.ServerLine, pr.ServerReason = c.ServerLine, c.ServerReason
	}
}
