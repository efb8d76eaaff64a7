package cmd

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/internal/screentest"

	"github.com/charmbracelet/lipgloss"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Issue 13, "Fits the terminal". Each command runs as on a terminal of the
// given width (stdout a TTY, so colour and the headroom bars are on; the
// width from COLUMNS, as a real terminal's would be from TIOCGWINSZ).

func runWidth(t *testing.T, width int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := map[string]string{"COLUMNS": strconv.Itoa(width), "PAGER": "cat"}
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, IsTTY: true, Getenv: func(k string) string { return env[k] }}
	if code := Main(args, ios); code != cmdutil.ExitOK && code != cmdutil.ExitFindings {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// demoCheck is diag's result for a bundled scenario.
func demoCheck(t *testing.T, name string) *check.Result {
	t.Helper()
	s, err := scenario.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return check.Run([]*snapshot.Snapshot{s}, check.Options{})
}

// worstDemoMV is the MV `demo` explains first: the one an on-call engineer
// opens.
func worstDemoMV(t *testing.T) string {
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	m := check.Run([]*snapshot.Snapshot{s}, check.Options{}).WorstMV()
	return m.DB + "." + m.Name
}

// Why: bordered tables were 113–190 columns wide and wrapped mid-word; the
// headroom bar pushed `streams show` to 122 columns; `tso decode` of four
// values was 128 wide. Nothing in the default view is wider than the
// terminal, at 80 and at 120 columns.
func TestDefaultViewFitsTheTerminal(t *testing.T) {
	cmds := [][]string{
		{"check", "--demo", "incident"},
		{"mv", "explain", worstDemoMV(t), "--demo", "incident"},
		{"mv", "list", "--demo", "incident"},
		{"streams", "--demo", "incident"},
		{"headroom", "--in", "20h", "--demo", "incident"},
		{"tso", "decode", "470819222323200000", "470819222323200001", "0x68a8c07a0000000", "470796573081862144"},
		{"tso", "decode", "--local", "470819222323200000", "470819222323200001", "470819222323200002", "470819222323200003"},
	}
	for _, s := range []string{"s_orders_audit", "s_orders_cdc", "s_events_dup", "s_payments_etl", "s_customers_idle", "s_dropped", "__doris_ivm_stream_mv_payments_rollup_144l_voa"} {
		cmds = append(cmds, []string{"streams", "show", "demo." + s, "--demo", "incident"})
	}
	for _, width := range []int{80, 120} {
		for _, args := range cmds {
			for i, l := range screentest.Lines(runWidth(t, width, args...)) {
				if w := lipgloss.Width(l); w > width {
					t.Errorf("%d columns, %v line %d is %d wide:\n%s", width, args, i+1, w, l)
				}
			}
		}
	}
}

// Why: `check --demo incident` printed 139 lines with the criticals off the
// first screen, which held only WARNING and INFO lines. On an 80×24
// terminal the first 24 lines hold the overview and the worst criticals,
// silent data loss first.
func TestCheckFirstScreenShowsTheWorstCriticals(t *testing.T) {
	lines := screentest.Lines(runWidth(t, 80, "check", "--demo", "incident"))
	first := strings.Join(lines[:min(24, len(lines))], "\n")
	// The whole overview (every count and object, TestCheckOverviewKeepsEveryCountAt80)
	// and the two worst criticals in full, each with its next step, take the
	// 24 lines; the third (STREAM_CANNOT_RESUME_REJECTED) starts the second
	// screen. Every source was read, so the Sources row closes the report.
	for _, want := range []string{"Streams", "MVs", "Tasks", "Space", "Findings: 15 critical", "CRITICAL STREAM_CANNOT_RESUME_CLIPPED", "CRITICAL STREAM_NO_OFFSET_ROWS_SKIPPED"} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "METRICS_UNPARSEABLE") || strings.Contains(first, "INFO ") {
		t.Errorf("first screen shows a /metrics or info finding before the data loss:\n%s", first)
	}
	// The first two criticals in full: heading and whole summary, wrapped
	// (not cut) within the first 24 lines.
	screen := lines[:min(24, len(lines))]
	for _, code := range []string{"STREAM_CANNOT_RESUME_CLIPPED", "STREAM_NO_OFFSET_ROWS_SKIPPED"} {
		var want string
		for _, f := range demoCheck(t, "incident").Findings {
			if f.Code.String() == code {
				want = f.Summary
				break
			}
		}
		var got []string
		for _, b := range screentest.FindingBlocks(screen) {
			if strings.HasPrefix(b[0], "CRITICAL "+code+" ") {
				for _, l := range b[1:] {
					if !strings.HasPrefix(strings.TrimSpace(l), "next: ") {
						got = append(got, strings.TrimSpace(l))
					}
				}
			}
		}
		if g := strings.Join(got, " "); want == "" || g != strings.Join(strings.Fields(want), " ") {
			t.Errorf("first screen: %s not in full:\n got %q\nwant %q\n%s", code, g, want, first)
		}
		// Issue 25 item 6: and what to run next.
		var next int
		for _, b := range screentest.FindingBlocks(screen) {
			if strings.HasPrefix(b[0], "CRITICAL "+code+" ") {
				for _, l := range b[1:] {
					if strings.HasPrefix(strings.TrimSpace(l), "next: ") {
						next++
					}
				}
			}
		}
		if next != 1 {
			t.Errorf("first screen: %s has %d next: lines, want 1:\n%s", code, next, first)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "Sources  every source read; FE monitor sampled") {
		t.Errorf("the whole view's Sources row does not close the report: %q", last)
	}
}

// Why: `mv explain`, "one screen", was 90 rows. For the worst demo MV it
// fits one 40-row screen at 80 and 120 columns; --details shows the rest.
func TestMVExplainWorstFitsOneScreen(t *testing.T) {
	mv := worstDemoMV(t)
	for _, width := range []int{80, 120} {
		lines := screentest.Lines(runWidth(t, width, "mv", "explain", mv, "--demo", "incident"))
		if len(lines) > 40 {
			t.Errorf("%d columns: mv explain %s is %d rows:\n%s", width, mv, len(lines), strings.Join(lines, "\n"))
		}
		all := strings.Join(lines, "\n")
		if !strings.Contains(all, "With --details") || !strings.Contains(all, "CRITICAL MV_CHANGELOG_BROKEN") {
			t.Errorf("%d columns: the cause or the --details pointer is missing:\n%s", width, all)
		}
		details := strings.Join(screentest.Lines(runWidth(t, width, "mv", "explain", mv, "--demo", "incident", "--details")), "\n")
		if !strings.Contains(details, `FROM tasks("type" = "mv")`) || !strings.Contains(details, "The latest refresh (task") {
			t.Errorf("%d columns: --details lacks the SQL or a finding's detail:\n%s", width, details)
		}
	}
}

// Long names are cut in the middle on a terminal, whole in -o wide and JSON.
func TestLongNamesCutInTheMiddleWholeInWide(t *testing.T) {
	const long = "demo.__doris_ivm_stream_mv_payments_rollup_144l_voa"
	narrow := runWidth(t, 80, "streams", "--demo", "incident")
	if strings.Contains(narrow, long) || !strings.Contains(narrow, "demo.__dor") || !strings.Contains(narrow, "…") {
		t.Errorf("80 columns: want %s cut in the middle with an ellipsis:\n%s", long, narrow)
	}
	for _, o := range []string{"wide", "json"} {
		if out := runWidth(t, 80, "streams", "--demo", "incident", "-o", o); !strings.Contains(out, long[len("demo."):]) {
			t.Errorf("-o %s: %s not shown whole", o, long)
		}
	}
}

// Why: `consumers` at 100 columns printed the offset as
// "2026-11-30 17:59…(Asia/Shanghai)": the timestamp and its zone shared a
// text column, so the table cut the timestamp. A timestamp is never cut;
// the zone stands in its own column.
func TestConsumersTimestampsNeverCut(t *testing.T) {
	cut := regexp.MustCompile(`\d{4}-\d\d-\d\d[ T][0-9:]{0,7}…`)
	for _, width := range []int{60, 80, 100, 120, 160} {
		for _, line := range screentest.Lines(runWidth(t, width, "consumers", "--demo", "incident")) {
			if cut.MatchString(line) {
				t.Errorf("at %d columns a timestamp is cut: %q", width, line)
			}
		}
	}
}

// Why (issue 25, "The first screen hides what to run"): `check` printed
// `next:` only when the whole step fit one line, so the resume-failure,
// consecutive-failure, stuck-task and queued-task findings showed none. For
// every bundled scenario at 80 and 120 columns, every top-level CRITICAL
// finding has exactly one next step, on lines that fit; when it is not the
// whole step it is the code's action in prose and says where the whole
// step is, and holds nothing that could be pasted as a statement.
func TestCheckEveryCriticalShowsItsNextStep(t *testing.T) {
	for _, name := range scenario.Names() {
		for _, width := range []int{80, 120} {
			var full []string // the whole steps, from -o wide
			for _, l := range screentest.Lines(runWidth(t, width, "check", "--demo", name, "-o", "wide")) {
				if s := strings.TrimSpace(l); strings.HasPrefix(s, "next: ") {
					full = append(full, s)
				}
			}
			lines := screentest.Lines(runWidth(t, width, "check", "--demo", name))
			for _, b := range screentest.FindingBlocks(lines) {
				if !strings.HasPrefix(b[0], "CRITICAL ") {
					continue
				}
				var next []string
				for _, l := range b[1:] {
					switch {
					case strings.HasPrefix(strings.TrimSpace(l), "next: "):
						next = append(next, strings.TrimSpace(l))
					case len(next) > 0 && strings.HasPrefix(l, strings.Repeat(" ", 15)):
						// A shortened step wrapped on a narrow terminal.
						next[len(next)-1] += " " + strings.TrimSpace(l)
					}
				}
				if len(next) != 1 {
					t.Errorf("%s at %d columns: %q has %d next: lines, want 1:\n%s", name, width, b[0], len(next), strings.Join(b, "\n"))
					continue
				}
				for _, l := range b {
					if w := lipgloss.Width(l); w > width {
						t.Errorf("%s at %d columns: a line of %q is %d wide: %q", name, width, b[0], w, l)
					}
				}
				if slices.Contains(full, next[0]) {
					continue // the whole step
				}
				short := regexp.MustCompile(`^next: [a-z][^;` + "`" + `]* \(full step: -o wide\)$`)
				if !short.MatchString(next[0]) {
					t.Errorf("%s at %d columns: %q: next step %q is neither the whole step nor an action with where the whole step is", name, width, b[0], next[0])
				}
			}
		}
	}
}
