package metrics

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/report"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
)

// LintView is what `metrics lint` shows for one payload; cmd fills it,
// nothing here computes.
type LintView struct {
	Source      string
	Result      *exposition.Result
	Conformance []exposition.Problem
	S5          metrics.S5
	TopFamilies int // families shown by cardinality (0: none)
}

// MetricsLint writes problems like a compiler, grouped by severity:
// "file:line:col: rule: family label=value: message", the fix indented.
func MetricsLint(w io.Writer, st report.Style, v LintView) error {
	res := v.Result
	var b strings.Builder
	verdict := st.Severity("ok", "parses")
	if !res.Parseable {
		verdict = st.Severity("critical", "DOES NOT PARSE")
	}
	st.Para(&b, "", "    ", fmt.Sprintf("%s: %s — %d lines, %d series, %d bytes; %d errors, %d warnings, %d info",
		v.Source, verdict, res.Lines, res.Series, res.Bytes, res.Errors, res.Warnings, res.Infos))
	groups := []struct {
		sev, title string
	}{
		{exposition.SeverityError, "Errors (expfmt and Prometheus reject the payload)"},
		{exposition.SeverityWarning, "Warnings"},
		{exposition.SeverityInfo, "Info"},
	}
	for _, g := range groups {
		var ps []exposition.Problem
		for _, p := range res.Problems {
			if p.Severity == g.sev {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", st.Bold(g.title))
		for _, p := range ps {
			writeProblem(&b, st, v.Source, p)
		}
	}
	if len(res.Suppressed) > 0 {
		rules := make([]string, 0, len(res.Suppressed))
		for r := range res.Suppressed {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		fmt.Fprintf(&b, "\nNot listed (over --max-problems):")
		for _, r := range rules {
			fmt.Fprintf(&b, " %s×%d", r, res.Suppressed[r])
		}
		b.WriteString("\n")
	}
	if len(v.Conformance) > 0 {
		fmt.Fprintf(&b, "\n%s:\n", st.Bold("Conformance to the monitoring design (apache/doris#69907 §2 Reference)"))
		for _, p := range v.Conformance {
			writeProblem(&b, st, v.Source, p)
		}
	}
	if !v.S5.Empty() {
		fmt.Fprintf(&b, "\n%s:\n", st.Bold("Changelog space"))
		writeS5(&b, v.S5)
	}
	if v.TopFamilies > 0 && len(res.Families) > 0 {
		fams := append([]exposition.FamilyStat(nil), res.Families...)
		sort.SliceStable(fams, func(i, j int) bool { return fams[i].Series > fams[j].Series })
		n := min(v.TopFamilies, len(fams))
		fmt.Fprintf(&b, "\n%s (top %d of %d families):\n", st.Bold("Cardinality"), n, len(fams))
		for _, f := range fams[:n] {
			fmt.Fprintf(&b, "  %8d  %-9s %s\n", f.Series, f.Type, f.Name)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeProblem(b *strings.Builder, st report.Style, source string, p exposition.Problem) {
	sev := "info"
	switch p.Severity {
	case exposition.SeverityError:
		sev = "critical"
	case exposition.SeverityWarning:
		sev = "warning"
	}
	// Compiler style: "source:line:col: rule: ..." starts the first line,
	// continuation lines are indented (the prose wraps to the width).
	var line strings.Builder
	fmt.Fprintf(&line, "%s:%d:%d: %s:", source, p.Line, p.Col, st.Severity(sev, p.Rule))
	what := p.Family
	if p.Label != "" {
		what = strings.TrimSpace(what + " " + p.Label)
		if p.Value != "" {
			what += "=\"" + p.DisplayValue() + "\""
		}
	} else if p.Value != "" {
		what = strings.TrimSpace(what + " \"" + p.DisplayValue() + "\"")
	}
	if what != "" {
		fmt.Fprintf(&line, " %s:", what)
	}
	fmt.Fprintf(&line, " %s", p.Message)
	st.Para(b, "", "    ", line.String())
	if p.Fix != "" {
		for _, l := range report.Wrap(report.Sanitize("fix: "+p.Fix), st.Width(), "    ", "      ") {
			b.WriteString(st.Dim(l) + "\n")
		}
	}
}

func writeS5(b *strings.Builder, s metrics.S5) {
	f := func(name string, v *float64) {
		if v != nil {
			fmt.Fprintf(b, "  %-38s %s\n", name, exposition.FormatValue(*v))
		}
	}
	f("retained bytes (single replica)", s.RetainedBytesSingleReplica)
	f("retained bytes (all replicas)", s.RetainedBytesAllReplicas)
	f("TTL cleanups succeeded", s.TTLCleanupSuccess)
	f("TTL cleanups failed", s.TTLCleanupFailed)
	f("TTL reclaimed bytes", s.TTLReclaimedBytes)
	f("TTL last success (unix seconds)", s.TTLLastSuccessTimestamp)
}

// MetricsFix writes what --fix changed and what it could not repair.
func MetricsFix(w io.Writer, st report.Style, source string, rep fix.Report) error {
	var b strings.Builder
	if rep.OK {
		fmt.Fprintf(&b, "%s: fixed, %d change(s); the output parses\n", source, len(rep.Changes))
	} else {
		fmt.Fprintf(&b, "%s: %d change(s), %s\n", source, len(rep.Changes), st.Severity("critical", fmt.Sprintf("%d error(s) could not be repaired; those lines are copied unchanged", len(rep.Unrepaired))))
	}
	for _, c := range rep.Changes {
		fmt.Fprintf(&b, "%s:%d: %s", source, c.Line, c.What)
		if c.Label != "" {
			fmt.Fprintf(&b, " %s", c.Label)
		}
		if c.Before != "" || c.After != "" {
			cut := ""
			if c.Cut {
				cut = "…"
			}
			fmt.Fprintf(&b, ": \"%s%s\" -> \"%s%s\"", exposition.DisplayValue([]byte(c.Before)), cut, exposition.DisplayValue([]byte(c.After)), cut)
		}
		b.WriteString("\n")
	}
	for _, r := range rep.Refused {
		fmt.Fprintf(&b, "%s:%d: refused: %s: %s -> %s\n", source, r.Line, r.Reason, strconv.Quote(r.Before), strconv.Quote(r.After))
	}
	for _, p := range rep.Unrepaired {
		fmt.Fprintf(&b, "%s:%d:%d: not repaired: %s: %s\n", source, p.Line, p.Col, p.Rule, p.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
