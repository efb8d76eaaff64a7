package doctor

import (
	"sort"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Options are the doctor's thresholds.
type Options struct {
	// ReplayWindow is how far back a Stream Load sink may replay its
	// labels (--replay-window); 0: not stated, the label window is shown
	// and not judged.
	ReplayWindow time.Duration
	// MaxClockSkew is the clock skew between this host and a node beyond
	// which doctor warns (--max-clock-skew); 0: DefaultMaxClockSkew.
	MaxClockSkew time.Duration
}

// DefaultMaxClockSkew is the skew doctor tolerates between this host and the
// cluster: a TSO decoded here (dorisdiag tso decode --local) or a --now given
// in this host's time is off by as much.
const DefaultMaxClockSkew = 5 * time.Second

// Status is the verdict of one check line, worst first.
type Status string

// Statuses. Unknown is a reading that could not be taken: never a pass.
const (
	StatusFail    Status = "fail"
	StatusWarn    Status = "warn"
	StatusUnknown Status = "unknown"
	StatusInfo    Status = "info"
	StatusPass    Status = "pass"
)

func (s Status) rank() int {
	switch s {
	case StatusFail:
		return 0
	case StatusWarn:
		return 1
	case StatusUnknown:
		return 2
	case StatusInfo:
		return 3
	}
	return 4
}

// Check is one line of the report: one check of one node (or of the
// cluster, this host, a label).
type Check struct {
	// Group is what the line is about: "cluster", "this host", "FE <name>",
	// "BE <id> (<host>)", "labels".
	Group  string `json:"group"`
	Name   string `json:"name"` // the check: a key, a hop, "clock skew"
	Status Status `json:"status"`
	// Summary is the verdict with its numbers, one line.
	Summary string `json:"summary"`
	// Code is the finding code of a line that is not a pass ("" for a pass,
	// an info line or an unknown).
	Code string `json:"code,omitempty"`
	// Next is what to run or change next.
	Next string `json:"next,omitempty"`
}

// Counts counts the lines by status.
type Counts struct {
	Fail    int `json:"fail"`
	Warn    int `json:"warn"`
	Unknown int `json:"unknown"`
	Info    int `json:"info"`
	Pass    int `json:"pass"`
}

// Result is the doctor's judgment of one run.
type Result struct {
	// Parts is what ran: config, net, labels.
	Parts []string `json:"parts"`
	// Session is the FE the MySQL session landed on.
	Session snapshot.DoctorSession `json:"session"`
	// EffectivePolicy and PolicySource: the Stream Load redirect policy the
	// BE hops were judged with, and where it came from ("unknown": every
	// candidate address counts).
	EffectivePolicy string `json:"effective_policy"`
	PolicySource    string `json:"policy_source"`
	// TimeoutMs bounds every hop; NetElapsedMs is how long the matrix took.
	TimeoutMs    int64 `json:"timeout_ms"`
	NetElapsedMs int64 `json:"net_elapsed_ms,omitempty"`
	// Checks are the lines, grouped by node, the worst group first and the
	// worst line first in each.
	Checks []Check `json:"checks"`
	Counts Counts  `json:"counts"`
	// Findings are the lines that are not a pass, worst first
	// (diag.SortFindings): what --fail-on gates on.
	Findings []diag.Finding `json:"findings"`
}

// Analyze judges the doctor section of s: the parts it ran. A snapshot
// without one gives an empty result.
func Analyze(s *snapshot.Snapshot, o Options) *Result {
	if o.MaxClockSkew <= 0 {
		o.MaxClockSkew = DefaultMaxClockSkew
	}
	r := &run{s: s, d: s.Doctor, o: o}
	res := &Result{Checks: []Check{}, Findings: []diag.Finding{}, Parts: []string{}}
	if r.d != nil {
		d := r.d
		res.Parts, res.Session, res.EffectivePolicy, res.PolicySource = append(res.Parts, d.Parts...), d.Session, d.EffectivePolicy, d.PolicySource
		res.TimeoutMs, res.NetElapsedMs = d.TimeoutMs, d.NetElapsedMs
		for _, p := range d.Parts {
			switch p {
			case "config":
				r.configChecks()
			case "net":
				r.netChecks()
			case "labels":
				r.labelChecks()
			}
		}
		r.gapChecks()
	}
	res.Checks = order(r.checks)
	if res.Checks == nil {
		res.Checks = []Check{}
	}
	for _, c := range res.Checks {
		switch c.Status {
		case StatusFail:
			res.Counts.Fail++
		case StatusWarn:
			res.Counts.Warn++
		case StatusUnknown:
			res.Counts.Unknown++
		case StatusInfo:
			res.Counts.Info++
		default:
			res.Counts.Pass++
		}
	}
	if r.findings != nil {
		res.Findings = r.findings
	}
	diag.SortFindings(res.Findings)
	return res
}

// ConfigFindings are the findings of the config rules alone, for check: none
// when s carries no doctor configuration.
func ConfigFindings(s *snapshot.Snapshot, o Options) []diag.Finding {
	if s.Doctor == nil || len(s.Doctor.Config) == 0 {
		return nil
	}
	r := &run{s: s, d: s.Doctor, o: o}
	r.configChecks()
	return r.findings
}

// run is one analysis: the lines and findings raised so far.
type run struct {
	s        *snapshot.Snapshot
	d        *snapshot.Doctor
	o        Options
	checks   []Check
	findings []diag.Finding
}

func (r *run) line(c Check) { r.checks = append(r.checks, c) }

func (r *run) pass(group, name, summary string) {
	r.line(Check{Group: group, Name: name, Status: StatusPass, Summary: summary})
}

func (r *run) info(group, name, summary, next string) {
	r.line(Check{Group: group, Name: name, Status: StatusInfo, Summary: summary, Next: next})
}

func (r *run) unknown(group, name, summary, next string) {
	r.line(Check{Group: group, Name: name, Status: StatusUnknown, Summary: summary, Next: next})
}

// raise adds the finding f and its line.
func (r *run) raise(group, name string, f diag.Finding) {
	st := StatusWarn
	switch f.Severity {
	case diag.SeverityCritical:
		st = StatusFail
	case diag.SeverityInfo:
		st = StatusInfo
	}
	r.line(Check{Group: group, Name: name, Status: st, Summary: f.Summary, Code: f.Code.String(), Next: f.Next})
	r.findings = append(r.findings, f)
}

// finding builds a finding of code with its default severity.
func finding(code diag.Code, obj diag.Object, summary, detail, next string, ev map[string]string) diag.Finding {
	return diag.Finding{Code: code, Severity: code.Severity(), Object: obj, Summary: summary, Detail: detail, Next: next, Evidence: ev}
}

// order groups the lines by group, the group with the worst line first
// (then by name of group), and within a group worst first, then in the
// order they were raised.
func order(cs []Check) []Check {
	worst := map[string]int{}
	first := map[string]int{}
	for i, c := range cs {
		if w, ok := worst[c.Group]; !ok || c.Status.rank() < w {
			worst[c.Group] = c.Status.rank()
		}
		if _, ok := first[c.Group]; !ok {
			first[c.Group] = i
		}
	}
	out := append([]Check(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			if worst[a.Group] != worst[b.Group] {
				return worst[a.Group] < worst[b.Group]
			}
			return first[a.Group] < first[b.Group]
		}
		return a.Status.rank() < b.Status.rank()
	})
	return out
}
