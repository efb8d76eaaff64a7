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

// MVListDoc is the document of `mv list` (kind "mv_list", docs/mv.md).
type MVListDoc struct {
	Now          time.Time           `json:"now"`
	Thresholds   diag.MVThresholds   `json:"thresholds"`
	Capabilities diag.MVCapabilities `json:"capabilities"`
	MVs          []diag.MVListItem   `json:"mvs"`
	NotIVM       int                 `json:"not_ivm"`
	Unmatched    []string            `json:"unmatched_internal_streams,omitempty"`
	Findings     []diag.Finding      `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *WatchRound `json:"watch,omitempty"`
}

// Kind implements Doc.
func (MVListDoc) Kind() string { return "mv_list" }

// MVExplainDoc is the document of `mv explain` (kind "mv_explain", docs/mv.md).
type MVExplainDoc struct {
	Now          time.Time           `json:"now"`
	Thresholds   diag.MVThresholds   `json:"thresholds"`
	Capabilities diag.MVCapabilities `json:"capabilities"`
	MV           *diag.MVResult      `json:"mv"`
	Findings     []diag.Finding      `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *WatchRound `json:"watch,omitempty"`
}

// Kind implements Doc.
func (MVExplainDoc) Kind() string { return "mv_explain" }

func init() {
	Register("mv_list", FormatTable, func(w io.Writer, st Style, d Doc) error {
		return mvList(w, st, d.(MVListDoc), mvListNarrow, mvListTable)
	})
	Register("mv_list", FormatWide, func(w io.Writer, st Style, d Doc) error { return mvList(w, st, d.(MVListDoc), 0, mvListTable) })
	Register("mv_list", FormatMarkdown, func(w io.Writer, _ Style, d Doc) error {
		return mvList(w, Style{}, d.(MVListDoc), mvListNarrow, Markdown)
	})
	Register("mv_explain", FormatTable, func(w io.Writer, st Style, d Doc) error { return mvExplain(w, st, d.(MVExplainDoc), textBlocks(st)) })
	Register("mv_explain", FormatMarkdown, func(w io.Writer, _ Style, d Doc) error {
		return mvExplain(w, Style{}, d.(MVExplainDoc), markdownBlocks)
	})
}

// mvListNarrow is how many columns the table and markdown formats of
// `mv list` keep; wide adds the state source, headroom, job status and codes.
const mvListNarrow = 7

// mvList renders `mv list`: one row per IVM MV, worst first, through grid
// (Table or Markdown), then the counts and the next command.
func mvList(w io.Writer, st Style, d MVListDoc, cols int, grid func(io.Writer, []string, [][]string) error) error {
	headers := []string{"MV", "STATE", "DELAY", "LAGGING REASON", "FAILURES", "LAST METHOD", "FALLBACKS", "SOURCE", "MIN HEADROOM", "JOB", "CODES"}
	rows := make([][]string, 0, len(d.MVs))
	for _, it := range d.MVs {
		fails := strconv.Itoa(it.ConsecutiveFailures)
		if it.ConsecutiveFailuresAtLeast {
			fails = "≥" + fails
		}
		method := mvDash(it.LastMethod)
		if it.LastMethodInferred {
			method += " (inferred)"
		}
		rows = append(rows, []string{it.DB + "." + it.Name, st.Severity(it.FreshnessState, it.FreshnessState), diag.ValueText(it.DataDelay), it.LaggingReason,
			fails, method, strconv.Itoa(it.FallbacksInWindow), it.StateSource, mvHeadroomText(it.MinHeadroomSeconds), mvDash(it.JobStatus), mvDash(strings.Join(it.Codes, ","))})
	}
	headers, rows = firstColumns(cols, headers, rows)
	if err := grid(w, headers, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d IVM MVs; %s. Cluster time %s.\n", len(d.MVs), mvStateCounts(d.MVs), d.Now.UTC().Format(time.RFC3339))
	if !d.Capabilities.IvmMVStatus {
		fmt.Fprintf(w, "This build has no information_schema.ivm_mv_status: delays are client bounds, rebuild_required and PUBLISHING cannot be seen.\n")
	}
	if len(d.MVs) > 0 {
		fmt.Fprintf(w, "Explain one: dorisdiag mv explain %s.%s\n", d.MVs[0].DB, d.MVs[0].Name)
	}
	return nil
}

// mvListTable is Table, or a sentence when there is no MV (markdown keeps
// its empty table).
func mvListTable(w io.Writer, headers []string, rows [][]string) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No IVM materialized views.")
		return err
	}
	return Table(w, headers, rows)
}

func mvStateCounts(items []diag.MVListItem) string {
	n := map[string]int{}
	for _, it := range items {
		n[it.FreshnessState]++
	}
	var parts []string
	for _, s := range diag.FreshnessStates {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
			delete(n, s)
		}
	}
	for _, s := range sortedKeys(n) {
		parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// blocks is how one format writes the parts of a long text document
// (`mv explain`): its title, section headings, tables, findings and SQL.
type blocks struct {
	title    func(b *strings.Builder, m *diag.MVResult)
	heading  func(b *strings.Builder, title string)
	grid     func(w io.Writer, headers []string, rows [][]string) error
	findings func(w io.Writer, fs []diag.Finding) error
	sqlOpen  string
	sqlClose string
}

func textBlocks(st Style) blocks {
	return blocks{
		title: func(b *strings.Builder, m *diag.MVResult) {
			fmt.Fprintf(b, "%s  %s\n", st.Bold(m.DB+"."+m.Name), st.Dim(fmt.Sprintf("(id %d, %s, job %s %s)", m.ID, mvDash(m.Refresh.Raw), mvDash(m.JobName), mvDash(m.JobStatus))))
		},
		heading:  func(b *strings.Builder, title string) { fmt.Fprintf(b, "\n%s\n", st.Bold(title)) },
		grid:     Table,
		findings: func(w io.Writer, fs []diag.Finding) error { return Findings(w, st, fs) },
	}
}

var markdownBlocks = blocks{
	title:    func(b *strings.Builder, m *diag.MVResult) { fmt.Fprintf(b, "# %s.%s\n\n", m.DB, m.Name) },
	heading:  func(b *strings.Builder, title string) { fmt.Fprintf(b, "\n## %s\n\n", title) },
	grid:     Markdown,
	findings: FindingsMarkdown,
	sqlOpen:  "```sql\n",
	sqlClose: "```\n",
}

// mvExplain renders `mv explain`: the verdict, the state, the causes, the
// dependencies, the worst partitions, the recent tasks and the SQL to run.
func mvExplain(w io.Writer, st Style, d MVExplainDoc, f blocks) error {
	now, m, fs := d.Now, d.MV, d.Findings
	var b strings.Builder
	h := func(title string) { f.heading(&b, title) }
	f.title(&b, m)
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
	if err := f.findings(w, fs); err != nil {
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
	if err := mvTable(&b, f.grid, []string{"BASE TABLE", "KIND", "INTERNAL STREAM", "STATE", "COVERED", "LAGGING PARTITIONS", "WORST", "DELAY", "HEADROOM", "CAN RESUME", "SOURCE"}, drows); err != nil {
		return err
	}
	if len(m.WorstPartitions) > 0 {
		h("Worst partitions")
		prows := make([][]string, 0, len(m.WorstPartitions))
		for _, p := range m.WorstPartitions {
			prows = append(prows, []string{p.BaseTable, p.Unit, p.OffsetState, diag.ValueText(p.PendingAge), mvHeadroomText(p.HeadroomSeconds), mvBoolText(p.CanResume), mvDash(p.NextRead), strconv.FormatInt(p.StreamID, 10)})
		}
		if err := mvTable(&b, f.grid, []string{"BASE TABLE", "PARTITION", "OFFSET", "PENDING AGE", "HEADROOM", "CAN RESUME", "NEXT READ", "STREAM ID"}, prows); err != nil {
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
	if err := mvTable(&b, f.grid, []string{"TASK", "RESULT", "METHOD", "FALLBACK", "DURATION", "CREATED", "ERROR", "QUERY ID"}, trows); err != nil {
		return err
	}
	if len(hist.Tasks) > 0 && hist.LastMethodInferred {
		b.WriteString("* method inferred from RefreshMode / IvmFallbackReason / IvmRebuiltPartitions (this build has no IvmRefreshMethod)\n")
	}
	h("Next (paste into a MySQL client)")
	b.WriteString(f.sqlOpen)
	for _, s := range m.Next {
		b.WriteString(s + "\n")
	}
	b.WriteString(f.sqlClose)
	if len(m.Undetectable) > 0 {
		h("Not visible on this build")
		for _, u := range m.Undetectable {
			b.WriteString("- " + u + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mvTable(w io.Writer, grid func(io.Writer, []string, [][]string) error, headers []string, rows [][]string) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, "(none)\n")
		return err
	}
	return grid(w, headers, rows)
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
