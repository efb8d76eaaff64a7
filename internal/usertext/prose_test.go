package usertext

import (
	"encoding/json"
	"iter"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/internal/screentest"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Fitting prose to the terminal (issue 13, follow-up): the default view cut
// sentences and counts in the middle ("refreshes fail with CHANGELOG_BROKE…se
// table demo.payments expired", "lagging 5, caught_up 8" lost from the
// overview). A middle cut is right for an identifier in a column, nowhere
// else: prose wraps at word boundaries and, when it must be shorter, is cut
// at its end after a whole word.

// proseViews is every default view checked for cuts: check, and mv explain
// and streams show of each MV and stream of the scenario (for scale, those
// with a finding: thousands of healthy ones render alike).
func proseViews(name string) ([][]string, error) {
	s, err := scenario.Load(name)
	if err != nil {
		return nil, err
	}
	r := check.Run([]*snapshot.Snapshot{s}, check.Options{})
	flagged := map[string]bool{}
	for _, f := range r.Findings {
		flagged[f.Object.DB+"."+f.Object.Name] = true
	}
	demo := "--demo=" + name
	views := [][]string{{"check", demo}}
	const scaleEach = 3 // each scale run analyses 7000 streams: a few of each kind suffice
	nmv, ns := 0, 0
	for _, m := range r.MVs.MVs {
		if n := m.DB + "." + m.Name; name != "scale" || (flagged[n] && nmv < scaleEach) {
			views = append(views, []string{"mv", "explain", n, demo})
			nmv++
		}
	}
	for _, s := range r.Streams.Streams {
		if n := s.DB + "." + s.Name; name != "scale" || (flagged[n] && ns < scaleEach) {
			views = append(views, []string{"streams", "show", n, demo})
			ns++
		}
	}
	return views, nil
}

// identifiers is every string value without white space in a JSON
// document (check's holds every name, partition, state, code and id): what a
// middle cut may stand for.
func identifiers(doc string) (map[string]bool, error) {
	ids := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" && !strings.ContainsFunc(x, unicode.IsSpace) {
				ids[report.Sanitize(x)] = true
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
			if db, ok := x["db"].(string); ok {
				if name, ok := x["name"].(string); ok {
					walk(db + "." + name) // how a name is printed
				}
			}
		}
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return ids, err
	}
	walk(v)
	return ids, nil
}

// trimPunct strips what stands around a word in a sentence.
func trimPunct(s string) string {
	return strings.Trim(s, "()[]{},;:.\"'—-")
}

// ellipsisProblems lists each "…" of out that is neither an end cut after a
// whole word of full (the same view in -o wide) nor a middle cut of an
// identifier.
func ellipsisProblems(out, full string, ids map[string]bool) []string {
	words := map[string]bool{}
	for _, w := range strings.Fields(full) {
		words[trimPunct(w)] = true
	}
	// An ellipsis the text itself has (a list diag shortened, "p0003, …")
	// is no cut of ours.
	source := map[string]bool{}
	for _, w := range strings.Fields(full) {
		if strings.Contains(w, "…") {
			source[trimPunct(w)] = true
		}
	}
	var bad []string
	for _, line := range screentest.Lines(out) {
		for _, tok := range strings.Fields(line) {
			i := strings.Index(tok, "…")
			if i < 0 {
				continue
			}
			if source[trimPunct(tok)] || tok == "…" && strings.Contains(full, " … ") {
				continue
			}
			head, tail := tok[:i], tok[i+len("…"):]
			if trimPunct(tail) == "" {
				// An end cut: what precedes is a whole word of the text.
				if w := trimPunct(head); w == "" || !words[w] {
					bad = append(bad, "end cut not after a whole word: "+tok+"   in: "+line)
				}
				continue
			}
			head, tail = strings.TrimLeft(head, "([{\"'"), strings.TrimRight(tail, ")]},;:\"'")
			ok := false
			for id := range ids {
				if head != "" && len(id) > len(head)+len(tail) && strings.HasPrefix(id, head) && strings.HasSuffix(id, tail) {
					ok = true
					break
				}
			}
			if !ok {
				bad = append(bad, "cut in the middle of prose: "+tok+"   in: "+line)
			}
		}
	}
	return bad
}

// Why: prose was cut in the middle: "refreshes fail with CHANGELOG_BROKE…se
// table", "freshness lagging (server: information_schem…mv_status", the
// title "cluster time 2026-11-3…mo scenario incident", a task's error
// "CHANGELOG_…: payments". In the default 80-column view of check, mv
// explain and streams show, for every demo scenario, a "…" is only the middle
// of an identifier or the end of text cut after a whole word.
func TestNoEllipsisInsideProse(t *testing.T) {
	t.Parallel() // reads the one generation (everyOutput)
	for _, p := range everyOutput(t).ellipses {
		t.Error(p)
	}
}

// overviewTokens is the multiset of the tokens of check's overview (the
// lines before the "Findings" line) that are counts, durations, sizes,
// states or objects: those with a digit, a dot inside, an underscore, or in
// capitals.
func overviewTokens(out string) map[string]int {
	toks := map[string]int{}
	lines := screentest.Lines(out)
	var sources []string // on a terminal a whole view's Sources row closes the report
	if n := len(lines); n > 0 && strings.HasPrefix(lines[n-1], "Sources  ") {
		sources = lines[n-1:]
	}
	for i, line := range lines {
		if strings.HasPrefix(line, "Findings") {
			lines = append(lines[:i:i], sources...)
			break
		}
	}
	for _, line := range lines {
		for _, w := range strings.Fields(line) {
			w = trimPunct(w)
			keep := strings.ContainsAny(w, "0123456789_") || strings.Contains(w, ".") ||
				(len(w) > 1 && strings.ToUpper(w) == w && strings.ToLower(w) != w)
			if keep {
				toks[w]++
			}
		}
	}
	return toks
}

// checkViewsOfEveryScenario yields check's views of each bundled scenario
// from the one generation (everyOutput); a scenario whose views are missing
// is an error, not a skip.
func checkViewsOfEveryScenario(t *testing.T) iter.Seq2[string, checkViews] {
	g := everyOutput(t)
	return func(yield func(string, checkViews) bool) {
		for _, name := range scenario.Names() {
			v, ok := g.check[name]
			if !ok {
				t.Errorf("%s: check's views were not generated", name)
				continue
			}
			if !yield(name, v) {
				return
			}
		}
	}
}

// Why: the overview was cut in the middle at 80 columns ("Streams 24 —
// user: stale 1, cannot_resume 3, disabled 1, laggin…ught_up 1"): counts
// and objects were lost. Every count, state and object of the -o wide
// overview is in the 80-column one, as often, for every demo scenario; the
// title is whole.
func TestCheckOverviewKeepsEveryCountAt80(t *testing.T) {
	t.Parallel() // reads the one generation (everyOutput)
	for name, v := range checkViewsOfEveryScenario(t) {
		wide := overviewTokens(v.wide)
		out := v.out
		narrow := overviewTokens(out)
		var missing []string
		for tok, n := range wide {
			if narrow[tok] < n {
				missing = append(missing, tok)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: the 80-column overview lacks %q:\n%s", name, missing, out)
		}
		lines := screentest.Lines(out)
		title := strings.Join(lines[:2], " ")
		for _, want := range []string{"2026-11-30T10:00:00Z", name, "doris-"} {
			if !strings.Contains(title, want) || strings.Contains(lines[0], "…") {
				t.Errorf("%s: the title is cut or lacks %q:\n%s", name, want, strings.Join(lines[:2], "\n"))
			}
		}
	}
}

// Why: a finding's summary was one line cut in the middle ("refreshes fail
// with CHANGELOG_BROKE…se table demo.payments expired"), a symptom too. At 80
// columns a summary wraps to at most two lines under its heading (then a
// next step pasted whole), and when it is longer it ends with "…"; a symptom
// is cut only at its end. -o wide has them in full.
func TestFindingSummaryAtMostTwoLines(t *testing.T) {
	t.Parallel() // reads the one generation (everyOutput)
	for name, v := range checkViewsOfEveryScenario(t) {
		lines := screentest.Lines(v.out)
		for _, b := range screentest.FindingBlocks(lines) {
			summary := 0
			for _, l := range b[1:] {
				if !strings.HasPrefix(strings.TrimSpace(l), "next: ") {
					summary++
				}
			}
			if summary > 2 {
				t.Errorf("%s: %d summary lines:\n%s", name, summary, strings.Join(b, "\n"))
			}
			// A summary is cut only at its end: "…" ends its last line.
			for _, l := range b[1:] {
				if i := strings.Index(l, "…"); i >= 0 && !strings.HasPrefix(strings.TrimSpace(l), "next: ") && i != len(l)-len("…") {
					t.Errorf("%s: a summary cut elsewhere than at its end: %q", name, l)
				}
			}
			// A symptom is one line cut at its end (its own object, a name,
			// may be cut in the middle).
			if strings.HasPrefix(b[0], "  ↳ ") {
				f := strings.Fields(b[0])
				text := f[3:]
				if len(text) > 0 && strings.HasSuffix(text[0], ":") {
					text = text[1:]
				}
				if l := strings.Join(text, " "); strings.Contains(strings.TrimSuffix(l, "…"), "…") {
					t.Errorf("%s: a symptom cut elsewhere than at its end: %q", name, b[0])
				}
			}
			// A cut summary ends with "…" on its last line, never before.
			for i := 1; i < len(b)-1; i++ {
				if strings.Contains(b[i], "…") && !strings.HasPrefix(strings.TrimSpace(b[i+1]), "next: ") {
					t.Errorf("%s: an ellipsis before the last summary line:\n%s", name, strings.Join(b, "\n"))
				}
			}
		}
	}
}
