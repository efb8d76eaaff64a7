package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/tso"
)

// CheckChanges marks, for --watch, what changed since the previous round:
// findings that are new and findings that went away (by code and object).
type CheckChanges struct {
	New      map[string]bool // FindingKey → new this round
	Resolved []diag.Finding
}

// FindingKey identifies a finding across rounds.
func FindingKey(f diag.Finding) string {
	return f.Code.String() + "|" + f.Object.Kind + "|" + f.Object.DB + "." + f.Object.Name + "|" + f.Object.Partition
}

// CheckDoc is the document of `check` (kind "check"): diag's result, the
// gate's threshold and verdict, and for --watch what changed since the
// previous round (table only).
type CheckDoc struct {
	*check.Result
	// FailOn and Passed are kept for readers of earlier releases; they are
	// Gate.FailOn and Gate.Passed.
	FailOn string `json:"fail_on"`
	Passed bool   `json:"passed"`
	// Gate is the --fail-on verdict said in full: under --fail-on none it
	// is not enforced, so passed says nothing about the findings.
	Gate    CheckGate     `json:"gate"`
	Changes *CheckChanges `json:"-"`
	// Watch: the --watch round (absent without --watch).
	Watch *WatchRound `json:"watch,omitempty"`
}

// CheckGate is the --fail-on gate of a run.
type CheckGate struct {
	// FailOn is the threshold applied: info, warning, critical or none.
	FailOn string `json:"fail_on"`
	// Enforced is false under --fail-on none: no finding can fail the run.
	Enforced bool `json:"enforced"`
	// Passed: no finding at or above FailOn, so the exit code is 0. Always
	// true when not Enforced.
	Passed bool `json:"passed"`
	// AtOrAboveFailOn counts the findings at or above FailOn (the ones that
	// fail the run; 0 when not Enforced).
	AtOrAboveFailOn int `json:"at_or_above_fail_on"`
	// Critical counts the critical findings, whatever FailOn says.
	Critical int `json:"critical"`
}

// NewCheckDoc is check's document with its gate at threshold.
func NewCheckDoc(res *check.Result, threshold diag.Severity) CheckDoc {
	n := diag.CountAtOrAbove(res.Findings, threshold)
	g := CheckGate{FailOn: threshold.String(), Enforced: threshold != diag.SeverityNone, Passed: n == 0,
		AtOrAboveFailOn: n, Critical: diag.CountAtOrAbove(res.Findings, diag.SeverityCritical)}
	return CheckDoc{Result: res, FailOn: g.FailOn, Passed: g.Passed, Gate: g}
}

// Kind implements Doc.
func (CheckDoc) Kind() string { return "check" }

func init() {
	table := func(w io.Writer, st Style, d Doc) error {
		c := d.(CheckDoc)
		if err := CheckOverview(w, st, c.Result); err != nil {
			return err
		}
		if st.width == 0 {
			fmt.Fprintln(w)
		}
		if err := checkFindings(w, st, c.Result, c.Changes); err != nil {
			return err
		}
		return CheckSources(w, st, c.Result)
	}
	// table fits the terminal; wide is the same with every line in full,
	// every detail and next step (Emit gives it no width).
	Register("check", FormatTable, table)
	Register("check", FormatWide, table)
	Register("check", FormatMarkdown, func(w io.Writer, _ Style, d Doc) error { return checkMarkdown(w, d.(CheckDoc).Result) })
	Register("check", FormatProm, func(w io.Writer, st Style, d Doc) error {
		return WritePromStyled(w, st, CheckProm(d.(CheckDoc).Result))
	})
}

// CheckOverview writes the overview of `check`: a title, then one row per
// subject, the same rows in every human format. On a terminal a row wraps
// at word boundaries under its value column (KeyValues): no count, state or
// object is ever cut, and each kind of stream and each part of the space
// has its own row so that the rows stay short.
func CheckOverview(w io.Writer, st Style, r *check.Result) error {
	var b strings.Builder
	for _, l := range Wrap(Sanitize(checkTitle(st, r)), st.width, "", "  ") {
		b.WriteString(l + "\n")
	}
	o := r.Overview
	kv := [][2]string{}

	// Streams: the total and the counts by state, one row per kind; then per
	// kind the worst pending age and the smallest headroom.
	first := fmt.Sprintf("%d", o.Streams.Total)
	for _, k := range streams.Kinds {
		kind := string(k)
		if c := stateCounts(st, o.Streams.ByKind[kind]); c != "" {
			if first != "" {
				kv = append(kv, [2]string{"Streams", first + " — " + kind + ": " + c})
				first = ""
			} else {
				kv = append(kv, [2]string{"", kind + ": " + c})
			}
		}
	}
	if first != "" {
		kv = append(kv, [2]string{"Streams", first})
	}
	// The extremes in one row, the worst pending age then the smallest
	// headroom, the kinds side by side (user first). A user stream is named
	// by its name, an IVM internal stream by its MV ("ivm of db.mv", when
	// known): its own name is long, and the finding about it names it whole.
	var pending, headroom []string
	for _, k := range streams.Kinds {
		kind := string(k)
		if v := o.Streams.MaxPendingAge[kind]; v != nil && v.Seconds > 0 {
			pending = append(pending, Glue(boundText(v))+" "+streamLabel(v))
		}
		if v := o.Streams.MinHeadroom[kind]; v != nil {
			obj := streamLabel(v)
			if v.Partition != "" {
				obj += " " + v.Partition
			}
			headroom = append(headroom, st.Severity(v.Level, dur(v.Seconds))+" "+obj)
		}
	}
	var extremes []string
	if len(pending) > 0 {
		extremes = append(extremes, "max pending: "+strings.Join(pending, ", "))
	}
	if len(headroom) > 0 {
		extremes = append(extremes, "min headroom: "+strings.Join(headroom, ", "))
	}
	if len(extremes) > 0 {
		kv = append(kv, [2]string{"", strings.Join(extremes, "; ")})
	}

	line := fmt.Sprintf("%d", o.MVs.Total)
	if c := stateCounts(st, o.MVs.ByState); c != "" {
		line += " — " + c
	}
	if v := o.MVs.MaxDelay; v != nil && v.Seconds > 0 {
		line += fmt.Sprintf("; worst delay %s %s", Glue(boundText(v)), v.Object)
	}
	if o.MVs.ExcludedOutdated > 0 {
		line += fmt.Sprintf("; %d with an excluded dependency outdated", o.MVs.ExcludedOutdated)
	}
	kv = append(kv, [2]string{"MVs", line})

	t := o.Tasks
	line = fmt.Sprintf("last %s: %d failed", dur(float64(t.WindowSeconds)), t.FailedInWindow)
	if o.MVs.MaxConsecutiveFailures > 0 {
		line += fmt.Sprintf(" (up to %d in a row)", o.MVs.MaxConsecutiveFailures)
	}
	line += fmt.Sprintf(", %d fallback(s)", t.FallbacksInWindow)
	if len(t.FallbackReasons) > 0 {
		line += " (" + countsText(t.FallbackReasons) + ")"
	}
	if v := t.OldestQueued; v != nil {
		line += fmt.Sprintf("; oldest queued %s %s", dur(v.Seconds), v.Object)
	}
	if v := t.LongestRunning; v != nil {
		line += fmt.Sprintf("; longest running %s %s", dur(v.Seconds), v.Object)
	}
	kv = append(kv, [2]string{"Tasks", line})

	s := o.Space
	var sp []string
	if s.ChangelogBytes != nil {
		line := fmt.Sprintf("changelog %s over %d/%d table(s)", Glue(Bytes(float64(*s.ChangelogBytes))), s.TablesWithSize, s.Tables)
		if n := len(s.TableSizes); n > 0 {
			var top []string
			for _, ts := range s.TableSizes[:min(3, n)] {
				approx := ""
				if ts.Approximate {
					approx = "~"
				}
				top = append(top, fmt.Sprintf("%s %s%s", ts.Object, approx, Glue(Bytes(float64(ts.Bytes)))))
			}
			if n > 3 {
				top = append(top, Glue(fmt.Sprintf("%d more", n-3)))
			}
			line += " (largest " + strings.Join(top, ", ") + ")"
		}
		sp = append(sp, line)
	} else {
		sp = append(sp, "changelog size unknown (no BinlogSize in SHOW DATA on this build, or not read)")
	}
	if n := len(s.DatabaseSizes); n > 0 {
		var dbs []string
		for _, d := range s.DatabaseSizes[:min(3, n)] {
			dbs = append(dbs, fmt.Sprintf("%s %s", d.DB, Glue(Bytes(float64(d.Bytes)))))
		}
		if n > 3 {
			dbs = append(dbs, fmt.Sprintf("%d more", n-3))
		}
		sp[0] += "; per database " + strings.Join(dbs, ", ")
	}
	// What the /metrics payloads say, in one row: how many were read, then
	// the FE's retained changelog and the BEs' TTL cleanup.
	var metrics string
	if s.MetricsPayloads > 0 {
		metrics = fmt.Sprintf("/metrics: %d payloads", s.MetricsPayloads)
		var bad []string
		if s.MetricsPayloadsUnparseable > 0 {
			bad = append(bad, st.Severity("critical", fmt.Sprintf("%d unparseable", s.MetricsPayloadsUnparseable)))
		}
		if s.MetricsPayloadsNotFetched > 0 {
			bad = append(bad, st.Severity("critical", fmt.Sprintf("%d not fetched", s.MetricsPayloadsNotFetched)))
		}
		if s.MetricsStyleProblems > 0 {
			bad = append(bad, fmt.Sprintf("%d style warnings", s.MetricsStyleProblems))
		}
		if len(bad) > 0 {
			metrics += " (" + strings.Join(bad, ", ") + ")"
		}
	}
	var facts []string
	if s.RetainedBytes != nil {
		facts = append(facts, "FE retained "+Glue(Bytes(*s.RetainedBytes)))
	}
	if s.TTLCleanupFailed != nil || s.TTLCleanupSucceeded != nil {
		c := "TTL cleanup"
		if s.TTLCleanupSucceeded != nil {
			c += fmt.Sprintf(" %g ok", *s.TTLCleanupSucceeded)
		}
		if s.TTLCleanupFailed != nil {
			failed := fmt.Sprintf("%g failed", *s.TTLCleanupFailed)
			if *s.TTLCleanupFailed > 0 {
				failed = st.Severity("warning", failed)
			}
			if s.TTLCleanupSucceeded != nil {
				c += ","
			}
			c += " " + failed
		}
		if s.TTLLastSuccessAgeSeconds != nil {
			c += ", last ok " + dur(*s.TTLLastSuccessAgeSeconds) + " ago (oldest BE)"
		}
		facts = append(facts, c)
	}
	switch {
	case metrics != "" && len(facts) > 0:
		sp = append(sp, metrics+": "+strings.Join(facts, "; "))
	case metrics != "":
		sp = append(sp, metrics)
	case len(facts) > 0:
		sp = append(sp, strings.Join(facts, "; "))
	}
	for i, x := range sp {
		key := ""
		if i == 0 {
			key = "Space"
		}
		kv = append(kv, [2]string{key, x})
	}

	// Sources and the FE monitor: whether the view is whole, in one row —
	// on a terminal at the end of the report when nothing is wrong with
	// them (CheckSources), so that the first screen holds what is.
	if row, whole := sourcesRow(st, r); !whole || st.width == 0 {
		kv = append(kv, [2]string{"Sources", row})
	}
	st.KeyValues(&b, kv)
	f := o.Findings
	if st.width == 0 {
		// On a terminal the findings follow right away: the first screen
		// holds the overview and the worst criticals in full.
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Findings: %s, %s, %d info", st.Severity("critical", fmt.Sprintf("%d critical", f.Critical)), st.Severity("warning", fmt.Sprintf("%d warning", f.Warning)), f.Info)
	if f.Suppressed > 0 {
		fmt.Fprintf(&b, " (%d suppressed by the config file)", f.Suppressed)
	}
	if st.width > 0 && len(r.Findings) > 0 {
		b.WriteString(st.Dim(" — details, next steps: " + st.hint()))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// sourcesRow is the Sources row of the overview, and whether the view is
// whole: every source read, no fallback used, the FE monitor present and
// fresh.
func sourcesRow(st Style, r *check.Result) (string, bool) {
	o := r.Overview
	var monitor string
	switch {
	case !o.Monitor.Present:
		monitor = "FE monitor not on this build (no sampled columns): every value is computed client-side"
	case o.Monitor.SampleAgeSeconds == nil:
		monitor = st.Severity("warning", "FE monitor: no sample yet")
	case o.Monitor.Stale:
		monitor = st.Severity("warning", "FE monitor stale: oldest sample "+dur(*o.Monitor.SampleAgeSeconds)+" old")
	default:
		monitor = "FE monitor sampled " + dur(*o.Monitor.SampleAgeSeconds) + " ago"
	}
	var fallbacks string
	if len(o.Sources.Superseded) > 0 {
		parts := make([]string, len(o.Sources.Superseded))
		for i, x := range o.Sources.Superseded {
			parts[i] = x.Source + " failed, " + x.By + " used"
		}
		fallbacks = " (superseded: " + strings.Join(parts, "; ") + ")"
	}
	if o.Sources.Unreadable+o.Sources.Malformed > 0 {
		return st.Severity("critical", fmt.Sprintf("%d unreadable, %d malformed value(s): the view is partial", o.Sources.Unreadable, o.Sources.Malformed)) + fallbacks + "; " + monitor, false
	}
	whole := fallbacks == "" && o.Monitor.Present && o.Monitor.SampleAgeSeconds != nil && !o.Monitor.Stale
	return "every source read" + fallbacks + "; " + monitor, whole
}

// CheckSources writes the Sources row at the end of the report on a
// terminal when the view is whole (CheckOverview shows it otherwise, at the
// top).
func CheckSources(w io.Writer, st Style, r *check.Result) error {
	row, whole := sourcesRow(st, r)
	if !whole || st.width == 0 {
		return nil
	}
	var b strings.Builder
	st.KeyValues(&b, [][2]string{{"Sources", row}})
	_, err := io.WriteString(w, b.String())
	return err
}

// checkTitle is the first line of `check`: what was analysed, and the
// cluster time. On a terminal too narrow for it, a shorter form (Wrap breaks
// it further, never cuts it).
func checkTitle(st Style, r *check.Result) string {
	src := r.Source.Kind
	short := src
	switch r.Source.Kind {
	case "live":
		src = fmt.Sprintf("live %s:%d", r.Source.Host, r.Source.Port)
		short = src
	case "demo":
		src = "demo scenario " + r.Source.Scenario
		short = "demo " + r.Source.Scenario
	case "file":
		src = "snapshot " + r.Source.File
		short = src
	}
	var extra string
	if r.DorisVersion != "" {
		extra += ", " + r.DorisVersion
	}
	if r.Snapshots > 1 {
		extra += fmt.Sprintf(", %d snapshots", r.Snapshots)
	}
	at := r.Now.UTC().Format(time.RFC3339)
	title := fmt.Sprintf("%s — cluster time %s (%s%s)", st.Bold("dorisdiag check"), at, src, extra)
	if st.width > 0 && TextWidth(Sanitize(title)) > st.width {
		title = fmt.Sprintf("%s at %s — %s%s", st.Bold("dorisdiag check"), at, short, extra)
	}
	return title
}

// checkFindings writes the findings, worst first, marking new ones and
// listing resolved ones when changes is not nil (--watch).
func checkFindings(w io.Writer, st Style, r *check.Result, changes *CheckChanges) error {
	if changes == nil {
		return Findings(w, st, r.Findings)
	}
	var fresh, old []diag.Finding
	for _, f := range r.Findings {
		if changes.New[FindingKey(f)] {
			fresh = append(fresh, f)
		} else {
			old = append(old, f)
		}
	}
	if len(fresh) > 0 {
		fmt.Fprintln(w, st.Severity("warning", fmt.Sprintf("New since the last round (%d):", len(fresh))))
		if err := Findings(w, st, fresh); err != nil {
			return err
		}
	}
	if len(changes.Resolved) > 0 {
		fmt.Fprintln(w, st.Severity("ok", fmt.Sprintf("Resolved since the last round (%d):", len(changes.Resolved))))
		for _, f := range changes.Resolved {
			fmt.Fprintf(w, "  %s %s\n", f.Code, f.Object.String())
		}
	}
	if len(old) > 0 || len(fresh) == 0 {
		if len(fresh) > 0 || len(changes.Resolved) > 0 {
			fmt.Fprintln(w, "Unchanged:")
		}
		return Findings(w, st, old)
	}
	return nil
}

// checkMarkdown writes check for a CI comment.
func checkMarkdown(w io.Writer, r *check.Result) error {
	o := r.Overview
	fmt.Fprintf(w, "### dorisdiag check — %d critical, %d warning, %d info\n\n", o.Findings.Critical, o.Findings.Warning, o.Findings.Info)
	fmt.Fprintf(w, "Cluster time %s", r.Now.UTC().Format(time.RFC3339))
	if r.DorisVersion != "" {
		fmt.Fprintf(w, ", %s", r.DorisVersion)
	}
	fmt.Fprint(w, ".\n\n")
	rows := [][]string{
		{"streams", fmt.Sprintf("%d (user: %s; ivm: %s)", o.Streams.Total, stateCounts(Style{}, o.Streams.ByKind[string(streams.KindUser)]), stateCounts(Style{}, o.Streams.ByKind[string(streams.KindIVM)]))},
		{"MVs", fmt.Sprintf("%d (%s)", o.MVs.Total, stateCounts(Style{}, o.MVs.ByState))},
	}
	if v := o.MVs.MaxDelay; v != nil {
		rows = append(rows, []string{"worst MV delay", boundText(v) + " — " + v.Object})
	}
	for _, k := range streams.Kinds {
		kind := string(k)
		if v := o.Streams.MinHeadroom[kind]; v != nil {
			rows = append(rows, []string{"smallest " + kind + " headroom", dur(v.Seconds) + " — " + v.Object + " " + v.Partition})
		}
	}
	rows = append(rows, []string{"tasks (window)", fmt.Sprintf("%d failed, %d fallbacks", o.Tasks.FailedInWindow, o.Tasks.FallbacksInWindow)})
	if err := Markdown(w, []string{"", "value"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return FindingsMarkdown(w, r.Findings)
}

// CheckProm maps the check result to the `-o prom` families (docs/check.md
// lists them). Unknown values are not exported; no NaN.
func CheckProm(r *check.Result) []PromFamily {
	o := r.Overview
	g := func(name, help string, samples ...PromSample) PromFamily {
		return PromFamily{Name: name, Help: help, Samples: samples}
	}
	one := func(v float64) PromSample { return PromSample{Value: v} }
	lab := func(v float64, kv ...string) PromSample {
		s := PromSample{Value: v}
		for i := 0; i+1 < len(kv); i += 2 {
			s.Labels = append(s.Labels, [2]string{kv[i], kv[i+1]})
		}
		return s
	}
	fams := []PromFamily{
		g("dorisdiag_last_run_timestamp_seconds", "Cluster time (physical part of the current TSO) of the snapshot this check analysed.", one(float64(r.Now.UnixMilli())/1000)),
		g("dorisdiag_findings_suppressed", "Findings removed by the config file's ignore rules.", one(float64(o.Findings.Suppressed))),
		g("dorisdiag_sources_unreadable", "Sources (system tables, TVFs, nodes) that could not be read: the view is partial when > 0.", one(float64(o.Sources.Unreadable))),
		g("dorisdiag_values_malformed", "Values in system tables that could not be interpreted.", one(float64(o.Sources.Malformed))),
		g("dorisdiag_mvs_excluded_dependency_outdated", "IVM MVs with an excluded trigger table changed since the MV covered it.", one(float64(o.MVs.ExcludedOutdated))),
		g("dorisdiag_mv_max_consecutive_failures", "Largest number of consecutive refresh failures of an IVM MV.", one(float64(o.MVs.MaxConsecutiveFailures))),
		g("dorisdiag_tasks_failed_in_window", "Refresh tasks that failed within the window (a lower bound: tasks() keeps a bounded history).", one(float64(o.Tasks.FailedInWindow))),
		g("dorisdiag_task_oldest_pending_age_seconds", "How long the oldest queued refresh task has waited, 0 if none.", one(ageOr0(o.Tasks.OldestQueued))),
		g("dorisdiag_task_oldest_running_age_seconds", "How long the longest running refresh task has run, 0 if none.", one(ageOr0(o.Tasks.LongestRunning))),
	}
	sev := g("dorisdiag_findings", "Findings by severity.")
	for _, s := range []struct {
		name string
		n    int
	}{{"critical", o.Findings.Critical}, {"warning", o.Findings.Warning}, {"info", o.Findings.Info}} {
		sev.Samples = append(sev.Samples, lab(float64(s.n), "severity", s.name))
	}
	byCode := g("dorisdiag_findings_by_code", "Findings by code and severity (codes: dorisdiag explain).")
	counts := map[[2]string]int{}
	for _, f := range r.Findings {
		counts[[2]string{f.Code.String(), f.Severity.String()}]++
	}
	keys := make([][2]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		byCode.Samples = append(byCode.Samples, lab(float64(counts[k]), "code", k[0], "severity", k[1]))
	}
	byKind := g("dorisdiag_streams", "Table streams by kind (user, ivm) and state (the 7 stream states of apache/doris#69907).")
	for _, kind := range SortedKeys(o.Streams.ByKind) {
		for _, st := range SortedKeys(o.Streams.ByKind[kind]) {
			byKind.Samples = append(byKind.Samples, lab(float64(o.Streams.ByKind[kind][st]), "kind", kind, "state", string(st)))
		}
	}
	pend := g("dorisdiag_stream_max_pending_age_seconds", "Largest pending age by stream kind: an upper bound, or the proven lower bound when dorisdiag_stream_max_pending_age_lower_bound says so (never too small).")
	pendLB := g("dorisdiag_stream_max_pending_age_lower_bound", "1 when dorisdiag_stream_max_pending_age_seconds of the kind is only a proven lower bound (the worst stream has no upper bound).")
	head := g("dorisdiag_stream_min_retention_headroom_seconds", "Smallest known retention headroom by stream kind; negative when an offset left the retention.")
	for _, kind := range []string{string(streams.KindIVM), string(streams.KindUser)} { // by name, as the samples above
		if v := o.Streams.MaxPendingAge[kind]; v != nil {
			pend.Samples = append(pend.Samples, lab(v.Seconds, "kind", kind))
			if v.LowerBound {
				pendLB.Samples = append(pendLB.Samples, lab(1, "kind", kind))
			}
		}
		if v := o.Streams.MinHeadroom[kind]; v != nil {
			head.Samples = append(head.Samples, lab(v.Seconds, "kind", kind))
		}
	}
	mvs := g("dorisdiag_mvs", "IVM MVs by freshness state.")
	for _, st := range SortedKeys(o.MVs.ByState) {
		mvs.Samples = append(mvs.Samples, lab(float64(o.MVs.ByState[st]), "state", string(st)))
	}
	// An unknown delay stays unknown: no sample when no MV's delay is known
	// (a 0 would read as "nobody behind" and its alert could never fire;
	// docs/check.md, DorisdiagMvDelayUnknown in docs/alerts/).
	delay := g("dorisdiag_mv_max_data_delay_seconds", "Largest IVM MV data delay: an upper bound, or the proven lower bound when dorisdiag_mv_max_data_delay_lower_bound says so (never too small).")
	delayLB := g("dorisdiag_mv_max_data_delay_lower_bound", "1 when dorisdiag_mv_max_data_delay_seconds is only a proven lower bound (the worst MV's delay has no upper bound).")
	if v := o.MVs.MaxDelay; v != nil {
		delay.Samples = append(delay.Samples, one(v.Seconds))
		if v.LowerBound {
			delayLB.Samples = append(delayLB.Samples, one(1))
		}
	}
	fb := g("dorisdiag_fallbacks_in_window", "IVM refresh fallbacks within the window, by reason.")
	for _, reason := range SortedKeys(o.Tasks.FallbackReasons) {
		fb.Samples = append(fb.Samples, lab(float64(o.Tasks.FallbackReasons[reason]), "reason", strings.ToLower(reason)))
	}
	finding := g("dorisdiag_finding", "1 for each finding at warning or above, by code, severity and object (the series the generated alert rules fire on).")
	for _, a := range check.Alertings(r.Findings) {
		finding.Samples = append(finding.Samples, lab(1, "code", a.Code, "severity", a.Severity, "kind", a.Kind, "db", a.DB, "name", a.Name, "partition", a.Partition))
	}
	fams = append(fams, sev, byCode, byKind, pend, pendLB, head, mvs, delay, delayLB, fb, finding)
	if b := o.Space.ChangelogBytes; b != nil {
		fams = append(fams, g("dorisdiag_changelog_bytes", "Changelog size summed over the base tables that report it (SHOW DATA BinlogSize).", one(float64(*b))))
	}
	if a := o.Monitor.SampleAgeSeconds; a != nil {
		fams = append(fams, g("dorisdiag_monitor_sample_age_seconds", "Age of the oldest sample of the FE changelog/IVM monitor.", one(*a)))
	}
	return fams
}

// streamLabel names the stream of an overview extreme: an IVM internal
// stream by its MV when known ("ivm of db.mv"), any other by its name.
func streamLabel(v *check.ObjectValue) string {
	if v.MV != "" {
		return "ivm of " + v.MV
	}
	return v.Object
}

func ageOr0(v *check.ObjectValue) float64 {
	if v == nil {
		return 0
	}
	return v.Seconds
}

func SortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// stateCounts renders "lagging 3, cannot_resume 2" for the non-zero states,
// worst first as the seed orders them.
func stateCounts[K ~string](st Style, m map[K]int) string {
	order := []K{K(streams.StateUnknown), K(streams.StateStale), K(streams.StateCannotResume), K(mv.FreshRebuildRequired), K(streams.StateDisabled),
		K(streams.StateInitializing), K(streams.StateLagging), K(streams.StateCaughtUp), K(mv.FreshFresh)}
	var parts []string
	seen := map[K]bool{}
	for _, s := range order {
		seen[s] = true
		if n := m[s]; n > 0 {
			parts = append(parts, st.Severity(string(s), fmt.Sprintf("%s %d", s, n)))
		}
	}
	for _, s := range SortedKeys(m) {
		if !seen[s] && m[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, m[s]))
		}
	}
	return strings.Join(parts, ", ")
}

func countsText(m map[string]int) string {
	keys := SortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s%s×%d", k, glue, m[k])
	}
	return strings.Join(parts, ", ")
}

func dur(seconds float64) string {
	ms := seconds * 1000
	if ms < 0 {
		return tso.FormatDuration(int64(ms - 0.5))
	}
	return tso.FormatDuration(int64(ms + 0.5))
}

// boundText is an extreme with its bound: "12m00s", "≤ … (≤, UPPER_BOUND)",
// "3h50m (≥, no upper bound)".
func boundText(v *check.ObjectValue) string {
	if v.LowerBound {
		return dur(v.Seconds) + " (≥, no upper bound)"
	}
	return dur(v.Seconds) + precision(v.Precision)
}

func precision(p diag.Precision) string {
	switch p {
	case diag.PrecisionUpperBound:
		return " (≤, UPPER_BOUND)"
	case "", diag.PrecisionPrecise:
		return ""
	}
	return " (" + string(p) + ")"
}

// Bytes renders a byte count in binary units.
func Bytes(b float64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%.0f B", b)
	}
	div, exp := float64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", b/div, "KMGTPE"[exp])
}
