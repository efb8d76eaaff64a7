package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report"
)

func newExplainCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "explain [CODE]",
		Short: "Explain a finding code: what it means, why it matters, how to confirm and fix it",
		Long: `explain CODE prints the documentation of one finding code: what it means, why
it matters, how to confirm it (the SQL to run), how to fix it and related
codes. Without a code it lists every code. The text is the same as
docs/findings.md.`,
		Example: `  dorisdiag explain STREAM_CANNOT_RESUME_CLIPPED
  dorisdiag explain mv_delay_high -o json
  dorisdiag explain -o markdown        # every code`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, c := range diag.Codes() {
				names = append(names, c.Code+"\t"+c.Title)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if err := g.checkFormat("explain"); err != nil {
				return err
			}
			if len(args) == 0 {
				return g.emit(report.ExplainDoc{Codes: diag.Codes()})
			}
			code := strings.ToUpper(strings.TrimSpace(args[0]))
			c, ok := diag.LookupCode(code)
			if !ok {
				return usageErrorf("unknown finding code %q: run 'dorisdiag explain' for the list", args[0])
			}
			return g.emit(report.ExplainDoc{Codes: []diag.Declaration{c}, One: true})
		},
	}
}
