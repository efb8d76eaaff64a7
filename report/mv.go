package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/tso"
)

// MVList renders `mv list`: one row per IVM MV, worst first. wide adds the
// state source, headroom, job status and codes.
func MVList(w io.Writer, st Style, items []diag.MVListItem, wide, markdown bool) error {
	headers := []string{"MV", "STATE", "DELAY", "LAGGING REASON", "FAILURES", "LAST METHOD", "FALLBACKS"}
	if wide {
		headers = append(headers, "SOURCE", "MIN HEADROOM", "JOB", "CODES")
	}
	rows := make([][]string, 0, len(items))
	for _, it := range items {
		fails := strconv.Itoa(it.ConsecutiveFailures)
		if it.ConsecutiveFailuresAtLeast {
			fails = "≥" + fails
		}
		method := mvDash(it.LastMethod)
		if it.LastMethodInferred {
			method += " (inferred)"
		}
		state := it.FreshnessState
		if !markdown {
			state = st.Severity(it.FreshnessState, state)
		}
		row := []string{it.DB + "." + it.Name, state, diag.ValueText(it.DataDelay), it.LaggingReason, fails, method, strconv.Itoa(it.FallbacksInWindow)}
		if wide {
			row = append(row, it.StateSource, mvHeadroomText(it.MinHeadroomSeconds), mvDash(it.JobStatus), mvDash(strings.Join(it.Codes, ",")))
		}
		rows = append(rows, row)
	}
	if markdown {
		return Markdown(w, headers, rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No IVM materialized views.")
		return err
	}
	return Table(w, headers, rows)
}

// MVExplain renders `mv explain`: the verdict, the state, the causes, the
// dependencies, the worst partitions, the recent tasks and the SQL to run.
func MVExplain(w io.Writer, st Style, now time.Time, m *diag.MVResult, fs []diag.Finding, markdown bool) error {
	var b strings.Builder
	h := func(title string) {
		if markdown {
			fmt.Fprintf(&b, "\n## %s\n\n", title)
		} else {
			fmt.Fprintf(&b, "\n%s\n", st.Bold(title))
		}
	}
	if markdown {
		fmt.Fprintf(&b, "# %s.%s\n\n", m.DB, m.Name)
	} else {
		fmt.Fprintf(&b, "%s  %s\n", st.Bold(m.DB+"."+m.Name), st.Dim(fmt.Sprintf("(id %d, %s, job %s %s)", m.ID, mvDash(m.Refresh.Raw), mvDash(m.JobName), mvDash(m.JobStatus))))
	}
	fmt.Fprintf(&b, "verdict: %s\n", m.Headline)
	h("State")
	fmt.Fprintf(&b, "freshness  %s (%s: %s)\n", st.Severity(m.FreshnessState, m.FreshnessState), m.StateSource, m.StateReason)
	fmt.Fprintf(&b, "delay      %s%s\n", diag.ValueText(m.DataDelay), mvNoteText(m.DataDelay.Note))
	if m.ClientState != "" {
		cd := "unknown"
		if m.ClientDelay != nil {
			cd = diag.ValueText(*m.ClientDelay)
		}
		fmt.Fprintf(&b, "client     %s, %s (computed from the raw tables, for the cross-check)\n", m.ClientState, cd)
	}
	fmt.Fprintf(&b, "reason     %s (%s)\n", m.LaggingReason, m.LaggingReasonSource)
	hist := &m.History
	fails := strconv.Itoa(hist.ConsecutiveFailures)
	if hist.ConsecutiveFailuresAtLeast {
		fails = "at least " + fails + " (every task in the history failed)"
	}
	fmt.Fprintf(&b, "failures   %s in a row; last success %s; last failure %s\n", fails, mvTaskWhen(now, hist.LastSuccess), mvTaskWhen(now, hist.LastFailure))
	share := "n/a"
	if hist.RecomputeShare != nil {
		share = fmt.Sprintf("%d of %d data refreshes recomputed", hist.RecomputeTasks, hist.DataTasks)
	}
	trend := hist.DurationTrend.Direction
	if hist.DurationTrend.Ratio > 0 {
		trend += fmt.Sprintf(" (×%.2f, %s → %s)", hist.DurationTrend.Ratio, tso.FormatDuration(hist.DurationTrend.OlderAvgMs), tso.FormatDuration(hist.DurationTrend.NewerAvgMs))
	}
	fmt.Fprintf(&b, "fallbacks  %d in the last %s%s; %s; duration trend %s\n", hist.FallbacksInWindow,
		tso.FormatDuration(hist.FallbackWindowSecs*1000), mvReasonsSuffix(hist.FallbackReasons), share, trend)
	if m.MinHeadroomSeconds != nil {
		fmt.Fprintf(&b, "headroom   %s (smallest retention headroom of the internal streams)\n", mvHeadroomText(m.MinHeadroomSeconds))
	}
	if len(m.ExcludedOutdated) > 0 {
		v := ""
		if m.MaxExcludedDelay != nil {
			v = ", up to " + diag.ValueText(*m.MaxExcludedDelay)
		}
		fmt.Fprintf(&b, "excluded   %s changed since covered%s (never counted in the delay)\n", strings.Join(m.ExcludedOutdated, ", "), v)
	}

	h("Causes (root cause first)")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()
	if markdown {
		if err := FindingsMarkdown(w, fs); err != nil {
			return err
		}
	} else if err := Findings(w, st, fs); err != nil {
		return err
	}

	h("Dependencies")
	drows := make([][]string, 0, len(m.Dependencies))
	for _, d := range m.Dependencies {
		kind := "trigger"
		if d.Excluded {
			kind = "excluded"
		}
		stream := mvDash(d.StreamName)
		if d.StreamID != nil {
			stream += " (" + strconv.FormatInt(*d.StreamID, 10) + ")"
		}
		drows = append(drows, []string{d.BaseTableDB + "." + d.BaseTableName, kind, stream, d.DependencyState, mvBoolText(d.Covered),
			mvListText(d.LaggingPartitions, 3), mvDash(d.WorstPartition), diag.ValueText(d.Delay), mvHeadroomText(d.HeadroomSeconds), mvBoolText(d.CanResume), d.Source})
	}
	if err := mvTable(&b, markdown, []string{"BASE TABLE", "KIND", "INTERNAL STREAM", "STATE", "COVERED", "LAGGING PARTITIONS", "WORST", "DELAY", "HEADROOM", "CAN RESUME", "SOURCE"}, drows); err != nil {
		return err
	}
	if len(m.WorstPartitions) > 0 {
		h("Worst partitions")
		prows := make([][]string, 0, len(m.WorstPartitions))
		for _, p := range m.WorstPartitions {
			prows = append(prows, []string{p.BaseTable, p.Unit, p.OffsetState, diag.ValueText(p.PendingAge), mvHeadroomText(p.HeadroomSeconds), mvBoolText(p.CanResume), mvDash(p.NextRead), strconv.FormatInt(p.StreamID, 10)})
		}
		if err := mvTable(&b, markdown, []string{"BASE TABLE", "PARTITION", "OFFSET", "PENDING AGE", "HEADROOM", "CAN RESUME", "NEXT READ", "STREAM ID"}, prows); err != nil {
			return err
		}
	}
	h(fmt.Sprintf("Recent tasks (%d of %d in tasks())", len(hist.Tasks), hist.TasksSeen))
	trows := make([][]string, 0, len(hist.Tasks))
	for _, t := range hist.Tasks {
		method := mvDash(t.Method)
		if t.MethodInferred && t.Method != "" {
			method += "*"
		}
		fb := "-"
		switch {
		case t.Fallback:
			fb = t.FallbackReason
		case t.NotFallback != "":
			fb = "(not: " + t.NotFallback + ")"
		}
		errText := t.ErrorMsg
		if t.FailureReason != "" {
			errText = t.FailureReason + ": " + errText
		}
		dur := "-"
		switch {
		case t.DurationMs != nil:
			dur = tso.FormatDuration(*t.DurationMs)
		case t.AgeSeconds != nil:
			dur = tso.FormatDuration(int64(*t.AgeSeconds*1000)) + " so far"
		}
		trows = append(trows, []string{strconv.FormatInt(t.TaskID, 10), t.Result, method, fb, dur, mvAgo(now, t.CreateTimeMs), mvDash(mvTruncate(errText, 60)), mvDash(t.LastQueryID)})
	}
	if err := mvTable(&b, markdown, []string{"TASK", "RESULT", "METHOD", "FALLBACK", "DURATION", "CREATED", "ERROR", "QUERY ID"}, trows); err != nil {
		return err
	}
	if len(hist.Tasks) > 0 && hist.LastMethodInferred {
		b.WriteString("* method inferred from RefreshMode / IvmFallbackReason / IvmRebuiltPartitions (this build has no IvmRefreshMethod)\n")
	}
	h("Next (paste into a MySQL client)")
	if markdown {
		b.WriteString("```sql\n")
	}
	for _, s := range m.Next {
		b.WriteString(s + "\n")
	}
	if markdown {
		b.WriteString("```\n")
	}
	if len(m.Undetectable) > 0 {
		h("Not visible on this build")
		for _, u := range m.Undetectable {
			b.WriteString("- " + u + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mvTable(w io.Writer, markdown bool, headers []string, rows [][]string) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, "(none)\n")
		return err
	}
	if markdown {
		return Markdown(w, headers, rows)
	}
	return Table(w, headers, rows)
}

func mvDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func mvBoolText(b *bool) string {
	switch {
	case b == nil:
		return "-"
	case *b:
		return "yes"
	}
	return "no"
}

func mvHeadroomText(s *float64) string {
	if s == nil {
		return "-"
	}
	return tso.FormatDuration(int64(*s * 1000))
}

func mvListText(xs []string, n int) string {
	if len(xs) == 0 {
		return "-"
	}
	if len(xs) <= n {
		return strings.Join(xs, ",")
	}
	return strings.Join(xs[:n], ",") + fmt.Sprintf(" +%d", len(xs)-n)
}

func mvNoteText(n string) string {
	if n == "" {
		return ""
	}
	return "  — " + n
}

func mvTruncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ago renders a time relative to the cluster's now: "12m00s ago".
func mvAgo(now time.Time, ms *int64) string {
	if ms == nil {
		return "-"
	}
	d := now.UnixMilli() - *ms
	if d < 0 {
		return "in " + tso.FormatDuration(-d)
	}
	return tso.FormatDuration(d) + " ago"
}

func mvTaskWhen(now time.Time, t *diag.TaskClass) string {
	if t == nil {
		return "none in the history"
	}
	at := t.FinishTimeMs
	if at == nil {
		at = t.CreateTimeMs
	}
	return fmt.Sprintf("%s (task %d)", mvAgo(now, at), t.TaskID)
}

func mvReasonsSuffix(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	mvSortStrings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func mvSortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
