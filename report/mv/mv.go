package mv

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/report"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/tso"
)

// MVListDoc is the document of `mv list` (kind "mv_list", docs/mv.md).
type MVListDoc struct {
	Now          time.Time       `json:"now"`
	Thresholds   mv.Thresholds   `json:"thresholds"`
	Capabilities mv.Capabilities `json:"capabilities"`
	MVs          []mv.ListItem   `json:"mvs"`
	NotIVM       int             `json:"not_ivm"`
	Unmatched    []string        `json:"unmatched_internal_streams,omitempty"`
	Findings     []diag.Finding  `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *report.WatchRound `json:"watch,omitempty"`
}

// Kind implements Doc.
func (MVListDoc) Kind() string { return "mv_list" }

// MVExplainDoc is the document of `mv explain` (kind "mv_explain", docs/mv.md).
type MVExplainDoc struct {
	Now          time.Time       `json:"now"`
	Thresholds   mv.Thresholds   `json:"thresholds"`
	Capabilities mv.Capabilities `json:"capabilities"`
	MV           *mv.MV          `json:"mv"`
	Findings     []diag.Finding  `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *report.WatchRound `json:"watch,omitempty"`
	// Details (--details): the table format shows everything, as wide and
	// markdown do; without it, one screen (mvExplainCompact).
	Details bool `json:"-"`
}

// Kind implements Doc.
func (MVExplainDoc) Kind() string { return "mv_explain" }

// mvExplainCompact is what `mv explain` shows without --details, so that the
// worst MV fits one 40-row screen (issue 13): the findings as heading and
// summary, the first mvCompactRows worst partitions and recent tasks, and
// the first SQL statement; the rest is named with --details.
const mvCompactRows = 3

func init() {
	report.Register("mv_list", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return mvList(w, st, d.(MVListDoc), mvListNarrow, style{st}.mvListTable)
	})
	report.Register("mv_list", report.FormatWide, func(w io.Writer, st report.Style, d report.Doc) error {
		return mvList(w, st, d.(MVListDoc), 0, style{st}.mvListTable)
	})
	report.Register("mv_list", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		return mvList(w, report.Style{}, d.(MVListDoc), mvListNarrow, report.Markdown)
	})
	report.Register("mv_explain", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		doc := d.(MVExplainDoc)
		return MVExplain(w, st, doc, TextBlocks(st), !doc.Details)
	})
	report.Register("mv_explain", report.FormatWide, func(w io.Writer, st report.Style, d report.Doc) error {
		return MVExplain(w, st, d.(MVExplainDoc), TextBlocks(st), false)
	})
	report.Register("mv_explain", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		return MVExplain(w, report.Style{}, d.(MVExplainDoc), markdownBlocks, false)
	})
}

// mvListNarrow is how many columns the table and markdown formats of
// `mv list` keep; wide adds the state source, headroom, job status and codes.
const mvListNarrow = 7

// mvList renders `mv list`: one row per IVM MV, worst first, through grid
// (Table or Markdown), then the counts and the next command.
func mvList(w io.Writer, st report.Style, d MVListDoc, cols int, grid func(io.Writer, []string, [][]string) error) error {
	headers := []string{"MV", "STATE", "DELAY", "LAGGING REASON", "FAILURES", "LAST METHOD", "FALLBACKS", "SOURCE", "MIN HEADROOM", "JOB", "CODES"}
	rows := make([][]string, 0, len(d.MVs))
	for _, it := range d.MVs {
		fails := strconv.Itoa(it.ConsecutiveFailures)
		if it.ConsecutiveFailuresAtLeast {
			fails = "≥" + fails
		}
		method := mvDash(string(it.LastMethod))
		if it.LastMethodInferred {
			method += " (inferred)"
		}
		rows = append(rows, []string{it.DB + "." + it.Name, st.Severity(string(it.FreshnessState), string(it.FreshnessState)), diag.ValueText(it.DataDelay), string(it.LaggingReason),
			fails, method, strconv.Itoa(it.FallbacksInWindow), it.StateSource, mvHeadroomText(it.MinHeadroomSeconds), mvDash(it.JobStatus), mvDash(strings.Join(it.Codes, ","))})
	}
	headers, rows = report.FirstColumns(cols, headers, rows)
	if err := grid(w, headers, rows); err != nil {
		return err
	}
	st.Para(w, "", "", fmt.Sprintf("%d IVM MVs; %s. Cluster time %s.", len(d.MVs), mvStateCounts(d.MVs), d.Now.UTC().Format(time.RFC3339)))
	if !d.Capabilities.IvmMVStatus {
		st.Para(w, "", "", "This build has no information_schema.ivm_mv_status: delays are client bounds, rebuild_required and PUBLISHING cannot be seen.")
	}
	// An example to paste: the first MV whose command is printable as is (a
	// name with a control character is escaped on a terminal, and would not
	// name the MV once pasted).
	for _, m := range d.MVs {
		if c := diag.MVExplainCommand(m.DB, m.Name); report.Sanitize(c) == c {
			fmt.Fprintf(w, "Explain one: %s\n", c)
			break
		}
	}
	return nil
}

// mvListTable is Table, or a sentence when there is no MV (markdown keeps
// its empty table).
func (st style) mvListTable(w io.Writer, headers []string, rows [][]string) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No IVM materialized views.")
		return err
	}
	return st.Table(w, headers, rows)
}

func mvStateCounts(items []mv.ListItem) string {
	n := map[mv.FreshnessState]int{}
	for _, it := range items {
		n[it.FreshnessState]++
	}
	var parts []string
	for _, s := range mv.FreshnessStates {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
			delete(n, s)
		}
	}
	for _, s := range report.SortedKeys(n) {
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
	title    func(b *strings.Builder, m *mv.MV)
	heading  func(b *strings.Builder, title string)
	grid     func(w io.Writer, headers []string, rows [][]string) error
	findings func(w io.Writer, fs []diag.Finding) error
	// compactFindings: heading and summary only (mv explain without --details).
	compactFindings func(w io.Writer, fs []diag.Finding) error
	// sql writes one statement (laid out to the width, SQLLines).
	sql      func(b *strings.Builder, stmt string)
	sqlOpen  string
	sqlClose string
}

func TextBlocks(st report.Style) blocks {
	return blocks{
		title: func(b *strings.Builder, m *mv.MV) {
			// The name is an identifier (cut in the middle only when wider
			// than the terminal); what follows is prose, wrapped.
			name := report.Sanitize(m.DB + "." + m.Name)
			if st.Width() > 0 {
				name = report.Truncate(name, st.Width())
			}
			rest := report.Sanitize(fmt.Sprintf("(id %d, %s, job %s %s)", m.ID, mvDash(m.Refresh.Raw), mvDash(m.JobName), mvDash(m.JobStatus)))
			for _, l := range report.Wrap(rest, st.Width(), st.Bold(name)+"  ", "  ") {
				b.WriteString(l + "\n")
			}
		},
		heading:  func(b *strings.Builder, title string) { fmt.Fprintf(b, "\n%s\n", st.Bold(title)) },
		grid:     st.Table,
		findings: func(w io.Writer, fs []diag.Finding) error { return report.FindingsFull(w, st, fs) },
		compactFindings: func(w io.Writer, fs []diag.Finding) error {
			if len(fs) == 0 {
				return report.Findings(w, st, fs)
			}
			return report.FindingsFit(w, st, fs)
		},
		sql: func(b *strings.Builder, stmt string) {
			for _, l := range report.SQLLines(report.Sanitize(stmt), st.Width()) {
				b.WriteString(l + "\n")
			}
		},
	}
}

var markdownBlocks = blocks{
	title:           func(b *strings.Builder, m *mv.MV) { fmt.Fprintf(b, "# %s\n\n", report.Sanitize(m.DB+"."+m.Name)) },
	heading:         func(b *strings.Builder, title string) { fmt.Fprintf(b, "\n## %s\n\n", title) },
	grid:            report.Markdown,
	findings:        report.FindingsMarkdown,
	compactFindings: report.FindingsMarkdown,
	sql:             func(b *strings.Builder, stmt string) { b.WriteString(report.Sanitize(stmt) + "\n") },
	sqlOpen:         "```sql\n",
	sqlClose:        "```\n",
}

// MVExplain renders `mv explain`: the verdict, the state, the causes, the
// dependencies, the worst partitions, the recent tasks and the SQL to run.
func MVExplain(w io.Writer, st report.Style, d MVExplainDoc, f blocks, compact bool) error {
	now, m, fs := d.Now, d.MV, d.Findings
	var b strings.Builder
	h := func(title string) { f.heading(&b, title) }
	var dropped []string // columns the compact tables left out, named once at the end
	if compact {
		stc := st.WithDrops(&dropped)
		f.grid = stc.Table
	}
	f.title(&b, m)
	st.Para(&b, "verdict: ", "  ", m.Headline)
	h("State")
	var state [][2]string
	kv := func(k, v string) { state = append(state, [2]string{k, v}) }
	hist := &m.History
	fails := strconv.Itoa(hist.ConsecutiveFailures)
	if hist.ConsecutiveFailuresAtLeast {
		fails = "at least " + fails + " (every task in the history failed)"
	}
	share := "n/a"
	if hist.RecomputeShare != nil {
		share = fmt.Sprintf("%d of %d data refreshes recomputed", hist.RecomputeTasks, hist.DataTasks)
	}
	trend := hist.DurationTrend.Direction
	if hist.DurationTrend.Ratio > 0 {
		trend += fmt.Sprintf(" (×%.2f, %s → %s)", hist.DurationTrend.Ratio, tso.FormatDuration(hist.DurationTrend.OlderAvgMs), tso.FormatDuration(hist.DurationTrend.NewerAvgMs))
	}
	freshness := fmt.Sprintf("%s (%s: %s)", st.Severity(string(m.FreshnessState), string(m.FreshnessState)), m.StateSource, m.StateReason)
	delay := fmt.Sprintf("%s%s", diag.ValueText(m.DataDelay), mvNoteText(m.DataDelay.Note))
	reason := fmt.Sprintf("%s (%s)", m.LaggingReason, m.LaggingReasonSource)
	client := ""
	if m.ClientState != "" {
		cd := "unknown"
		if m.ClientDelay != nil {
			cd = diag.ValueText(*m.ClientDelay)
		}
		client = fmt.Sprintf("%s, %s (computed from the raw tables, for the cross-check)", m.ClientState, cd)
	}
	failures := fmt.Sprintf("%s in a row; last success %s; last failure %s", fails, mvTaskWhen(now, hist.LastSuccess), mvTaskWhen(now, hist.LastFailure))
	fallbacks := fmt.Sprintf("%d in the last %s%s; %s; duration trend %s", hist.FallbacksInWindow,
		tso.FormatDuration(hist.FallbackWindowSecs*1000), mvReasonsSuffix(hist.FallbackReasons), share, trend)
	if compact && st.Width() > 0 {
		// On a terminal, one row per subject (state, client cross-check,
		// refreshes): each wraps under the value column, and fewer rows
		// keep the worst MV on one screen.
		kv("freshness", freshness+"; delay "+delay+"; reason "+reason)
		if client != "" {
			kv("client", strings.Replace(client, " (computed from the raw tables, for the cross-check)", ", from the raw tables (cross-check)", 1))
		}
		kv("refreshes", fmt.Sprintf("%s failed in a row; last success %s; last failure %s; %d fallback(s) in %s%s; %s; duration %s",
			fails, mvTaskWhen(now, hist.LastSuccess), mvTaskWhen(now, hist.LastFailure), hist.FallbacksInWindow,
			tso.FormatDuration(hist.FallbackWindowSecs*1000), mvReasonsSuffix(hist.FallbackReasons), share, trend))
	} else {
		kv("freshness", freshness)
		kv("delay", delay)
		if client != "" {
			kv("client", client)
		}
		kv("reason", reason)
		kv("failures", failures)
		kv("fallbacks", fallbacks)
	}
	if m.MinHeadroomSeconds != nil {
		kv("headroom", fmt.Sprintf("%s (smallest retention headroom of the internal streams)", mvHeadroomText(m.MinHeadroomSeconds)))
	}
	if len(m.ExcludedOutdated) > 0 {
		v := ""
		if m.MaxExcludedDelay != nil {
			v = ", up to " + diag.ValueText(*m.MaxExcludedDelay)
		}
		kv("excluded", fmt.Sprintf("%s changed since covered%s (never counted in the delay)", strings.Join(m.ExcludedOutdated, ", "), v))
	}
	st.KeyValues(&b, state)

	h("Causes (root cause first)")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()
	writeFindings := f.findings
	if compact {
		writeFindings = f.compactFindings
		fs = withoutShownNext(fs, m.Next[:min(1, len(m.Next))])
	}
	if err := writeFindings(w, fs); err != nil {
		return err
	}
	var more []string // what --details adds

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
		// Columns by importance: a narrow terminal leaves the last to -o wide.
		drows = append(drows, []string{d.BaseTableDB + "." + d.BaseTableName, d.DependencyState, diag.ValueText(d.Delay), mvHeadroomText(d.HeadroomSeconds),
			mvBoolText(d.CanResume), mvDash(d.WorstPartition), kind, stream, mvBoolText(d.Covered), mvListText(d.LaggingPartitions, 3), d.Source})
	}
	if err := mvTable(&b, f.grid, []string{"BASE TABLE", "STATE", "DELAY", "HEADROOM", "CAN RESUME", "WORST", "KIND", "INTERNAL STREAM", "COVERED", "LAGGING PARTITIONS", "SOURCE"}, drows); err != nil {
		return err
	}
	if len(m.WorstPartitions) > 0 {
		parts := m.WorstPartitions
		if compact && len(parts) > mvCompactRows {
			more = append(more, fmt.Sprintf("%d more worst partition(s)", len(parts)-mvCompactRows))
			parts = parts[:mvCompactRows]
		}
		h("Worst partitions")
		prows := make([][]string, 0, len(parts))
		for _, p := range parts {
			prows = append(prows, []string{p.BaseTable, p.Unit, mvDash(p.NextRead), diag.ValueText(p.PendingAge), mvHeadroomText(p.HeadroomSeconds), mvBoolText(p.CanResume), string(p.OffsetState), strconv.FormatInt(p.StreamID, 10)})
		}
		if err := mvTable(&b, f.grid, []string{"BASE TABLE", "PARTITION", "NEXT READ", "PENDING AGE", "HEADROOM", "CAN RESUME", "OFFSET", "STREAM ID"}, prows); err != nil {
			return err
		}
	}
	tasks := hist.Tasks
	if compact && len(tasks) > mvCompactRows {
		more = append(more, fmt.Sprintf("%d more task(s)", len(tasks)-mvCompactRows))
		tasks = tasks[:mvCompactRows]
	}
	h(fmt.Sprintf("Recent tasks (%d of %d in tasks())", len(tasks), hist.TasksSeen))
	trows := make([][]string, 0, len(tasks))
	for _, t := range tasks {
		method := mvDash(string(t.Method))
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
			errText = string(t.FailureReason) + ": " + errText
		}
		dur := "-"
		switch {
		case t.DurationMs != nil:
			dur = tso.FormatDuration(*t.DurationMs)
		case t.AgeSeconds != nil:
			dur = tso.FormatDuration(int64(*t.AgeSeconds*1000)) + " so far"
		}
		// The error in full (one line): the table cuts it to the width,
		// -o wide and --details show all of it.
		trows = append(trows, []string{strconv.FormatInt(t.TaskID, 10), string(t.Result), mvAgo(now, t.CreateTimeMs), dur, method, mvDash(strings.ReplaceAll(errText, "\n", " ")), fb, mvDash(t.LastQueryID)})
	}
	if err := mvTable(&b, f.grid, []string{"TASK", "RESULT", "CREATED", "DURATION", "METHOD", "ERROR", "FALLBACK", "QUERY ID"}, trows); err != nil {
		return err
	}
	if len(hist.Tasks) > 0 && hist.LastMethodInferred {
		b.WriteString("* method inferred from RefreshMode / IvmFallbackReason / IvmRebuiltPartitions (this build has no IvmRefreshMethod)\n")
	}
	h("Next (paste into a MySQL client)")
	next := m.Next
	if compact && len(next) > 1 {
		more = append(more, fmt.Sprintf("%d more statement(s)", len(next)-1))
		next = next[:1]
	}
	b.WriteString(f.sqlOpen)
	for _, s := range next {
		f.sql(&b, s)
	}
	b.WriteString(f.sqlClose)
	if len(m.Undetectable) > 0 {
		if compact {
			more = append(more, fmt.Sprintf("%d thing(s) not visible on this build", len(m.Undetectable)))
		} else {
			h("Not visible on this build")
			for _, u := range m.Undetectable {
				st.Para(&b, "- ", "  ", u)
			}
		}
	}
	if compact {
		more = append([]string{"the detail and next step of each finding"}, more...)
		if len(dropped) > 0 {
			more = append(more, "every column")
		}
		st.Para(&b, "", "", st.Dim("With --details: "+strings.Join(more, ", ")+"."))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// withoutShownNext is fs with the next step left out where it is a
// statement the Next section shows anyway (the compact view says it once).
func withoutShownNext(fs []diag.Finding, shown []string) []diag.Finding {
	out := make([]diag.Finding, len(fs))
	for i, f := range fs {
		for _, s := range shown {
			if strings.TrimSpace(f.Next) == strings.TrimSpace(s) {
				f.Next = ""
			}
		}
		out[i] = f
	}
	return out
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

func mvTaskWhen(now time.Time, t *refresh.TaskClass) string {
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

// WithWatch implements Watched.
func (d MVListDoc) WithWatch(w *report.WatchRound) report.Doc { d.Watch = w; return d }

// WithWatch implements Watched.
func (d MVExplainDoc) WithWatch(w *report.WatchRound) report.Doc { d.Watch = w; return d }

// style is report.Style with this package's table writers as methods.
type style struct{ report.Style }
