package explain

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/report"
	"io"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/sources"
)

// ExplainDoc is the document of `explain` (kind "explain"): one code
// (One) or the whole registry.
type ExplainDoc struct {
	Codes []diag.Declaration
	One   bool
}

// Kind implements Doc.
func (ExplainDoc) Kind() string { return "explain" }

// explainJSON is one code in the JSON of `explain`.
type explainJSON struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Title    string   `json:"title"`
	Spec     string   `json:"spec"`
	Meaning  string   `json:"meaning"`
	Matters  string   `json:"why_it_matters"`
	Confirm  string   `json:"how_to_confirm"`
	Fix      string   `json:"how_to_fix"`
	Action   string   `json:"action"`
	Related  []string `json:"related"`
}

// MarshalJSON writes one code's fields, or {"codes": [...]} for the list,
// without HTML escaping, as report.JSON does: the SQL in how_to_confirm
// holds <db>, < and >, and json.Marshal would write them as \u003c.
func (d ExplainDoc) MarshalJSON() ([]byte, error) {
	docs := make([]explainJSON, len(d.Codes))
	for i, c := range d.Codes {
		rel := c.Related
		if rel == nil {
			rel = []string{}
		}
		docs[i] = explainJSON{c.Code, c.Severity.String(), c.Title, c.Spec, c.Meaning, c.Matters, c.Confirm, c.Fix, c.Action, rel}
	}
	if d.One && len(docs) == 1 {
		return report.MarshalNoEscape(docs[0])
	}
	return report.MarshalNoEscape(map[string]any{"codes": docs})
}

func init() {
	report.Register("explain", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		e := d.(ExplainDoc)
		if e.One && len(e.Codes) == 1 {
			return explainCode(w, st, e.Codes[0])
		}
		return codeList(w, st, e.Codes)
	})
	report.Register("explain", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error { return FindingsDoc(w, d.(ExplainDoc).Codes) })
}

// explainCode writes one code's documentation for `dorisdiag explain CODE`.
func explainCode(w io.Writer, st report.Style, c diag.Declaration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  (%s by default)\n", st.Bold(c.Code), st.Severity(c.Severity.String(), c.Severity.String()))
	fmt.Fprintf(&b, "%s\n", c.Title)
	// Prose wraps to the width; "How to confirm" holds commands and SQL,
	// which are pasted, so its lines are never broken.
	section := func(title, text string) {
		if text == "" {
			return
		}
		fmt.Fprintf(&b, "\n%s\n", st.Bold(title))
		for _, line := range strings.Split(text, "\n") {
			if title == "How to confirm" {
				if u := strings.ToUpper(line); strings.HasPrefix(u, "SELECT ") || strings.HasPrefix(u, "SHOW ") {
					for _, l := range report.SQLLines(report.Sanitize(line), st.Width()-2) {
						fmt.Fprintf(&b, "  %s\n", l)
					}
					continue
				}
				fmt.Fprintf(&b, "  %s\n", line)
				continue
			}
			st.Para(&b, "  ", "  ", line)
		}
	}
	section("What it means", c.Meaning)
	section("Why it matters", c.Matters)
	section("How to confirm", c.Confirm)
	section("How to fix", c.Fix)
	section("In short", c.Action)
	if len(c.Related) > 0 {
		section("Related", strings.Join(c.Related, ", "))
	}
	section("Specification", c.Spec)
	_, err := io.WriteString(w, b.String())
	return err
}

// codeList writes every code with its default severity and title.
func codeList(w io.Writer, st report.Style, codes []diag.Declaration) error {
	rows := make([][]string, len(codes))
	for i, c := range codes {
		rows[i] = []string{c.Code, st.Severity(c.Severity.String(), c.Severity.String()), c.Title}
	}
	return st.Table(w, []string{"CODE", "SEVERITY", "TITLE"}, rows)
}

// FindingsDoc writes docs/findings.md from the registry: the one source of
// truth shared with `dorisdiag explain` (a test keeps the file in step).
func FindingsDoc(w io.Writer, codes []diag.Declaration) error {
	var b strings.Builder
	b.WriteString("# Finding codes\n\n")
	b.WriteString("Generated from the finding declarations (`diag.Declare`, next to each check) by `go test ./cmd -run TestFindingsDoc -update`;\n")
	b.WriteString("`dorisdiag explain CODE` prints the same text. Severities are defaults: a finding may be raised or\n")
	b.WriteString("lowered (its detail says why), and a config file may override them (see docs/check.md).\n\n")
	b.WriteString("| code | default severity | title |\n|---|---|---|\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", c.Code, strings.ToLower(c.Code), c.Severity, mdCell(c.Title))
	}
	for _, c := range codes {
		fmt.Fprintf(&b, "\n## %s\n\n", c.Code)
		fmt.Fprintf(&b, "**%s** — default severity `%s`. Spec: %s.\n\n", mdCell(c.Title), c.Severity, c.Spec)
		fmt.Fprintf(&b, "**What it means.** %s\n\n", c.Meaning)
		fmt.Fprintf(&b, "**Why it matters.** %s\n\n", c.Matters)
		fmt.Fprintf(&b, "**How to confirm.**\n\n```sql\n%s\n```\n\n", strings.TrimSpace(c.Confirm))
		fmt.Fprintf(&b, "**How to fix.** %s\n", c.Fix)
		fmt.Fprintf(&b, "\n**In short** (a critical finding's `next:` line on a terminal when its whole step does not fit): %s.\n", c.Action)
		if len(c.Related) > 0 {
			links := make([]string, len(c.Related))
			for i, r := range c.Related {
				links[i] = fmt.Sprintf("[`%s`](#%s)", r, strings.ToLower(r))
			}
			fmt.Fprintf(&b, "\n**Related.** %s\n", strings.Join(links, ", "))
		}
	}
	b.WriteString("\n## What an unreadable source costs\n\n")
	b.WriteString("The severity of `SOURCE_UNREACHABLE` per source (`diag/sources`, generated here). A gap that a\n")
	b.WriteString("fallback superseded (`could_not_read[].superseded`) is no finding, whatever the source. A source not\n")
	b.WriteString("listed (from a snapshot of another version) is critical.\n\n")
	b.WriteString("| source | severity | not diagnosed without it | why |\n|---|---|---|---|\n")
	for _, c := range sources.Costs() {
		sev := c.Severity.String()
		if c.IfMVs != 0 {
			sev = c.IfMVs.String() + " when MVs exist, else " + sev
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Source, sev, mdCell(c.NotDiagnosed), mdCell(c.Why))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
