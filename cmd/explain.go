package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report"
)

// explainDoc is the JSON of `explain CODE`.
type explainDoc struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Title    string   `json:"title"`
	Spec     string   `json:"spec"`
	Meaning  string   `json:"meaning"`
	Matters  string   `json:"why_it_matters"`
	Confirm  string   `json:"how_to_confirm"`
	Fix      string   `json:"how_to_fix"`
	Related  []string `json:"related"`
}

func toExplainDoc(c diag.CodeDoc) explainDoc {
	rel := c.Related
	if rel == nil {
		rel = []string{}
	}
	return explainDoc{c.Code, c.Severity.String(), c.Title, c.Spec, c.Meaning, c.Matters, c.Confirm, c.Fix, rel}
}

func newExplainCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "explain [CODE]",
		Short: "Explain a finding code: what it means, why it matters, how to confirm and fix it",
		Long: `explain CODE prints the documentation of one finding code: what it means, why
it matters, how to confirm it (the SQL to run), how to fix it and related
codes. Without a code it lists every code. The text is the same as
docs/findings.md.`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, c := range diag.Codes() {
				names = append(names, c.Code+"\t"+c.Title)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := g.format(report.FormatTable, report.FormatJSON, report.FormatMarkdown)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				codes := diag.Codes()
				switch f {
				case report.FormatJSON:
					docs := make([]explainDoc, len(codes))
					for i, c := range codes {
						docs[i] = toExplainDoc(c)
					}
					return report.JSON(g.ios.Out, "explain", map[string]any{"codes": docs})
				case report.FormatMarkdown:
					return report.FindingsDoc(g.ios.Out, codes)
				}
				return report.CodeList(g.ios.Out, g.style(), codes)
			}
			code := strings.ToUpper(strings.TrimSpace(args[0]))
			c, ok := diag.LookupCode(code)
			if !ok {
				return usageErrorf("unknown finding code %q: run 'dorisdiag explain' for the list", args[0])
			}
			switch f {
			case report.FormatJSON:
				return report.JSON(g.ios.Out, "explain", toExplainDoc(c))
			case report.FormatMarkdown:
				return report.FindingsDoc(g.ios.Out, []diag.CodeDoc{c})
			}
			return report.Explain(g.ios.Out, g.style(), c)
		},
	}
}
