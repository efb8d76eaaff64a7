package cmd

import (
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report/explain"
)

// ExplainOptions are the inputs of `dorisdiag explain`.
type ExplainOptions struct {
	cmdutil.Common

	// Code is the argument as typed, nil for every code.
	Code *string
}

// NewCmdExplain builds `dorisdiag explain`.
func NewCmdExplain(f *cmdutil.Factory, runF func(*ExplainOptions) error) *cobra.Command {
	o := &ExplainOptions{}
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
			o.Common = f.Common()
			if len(args) == 1 {
				o.Code = &args[0]
			}
			if err := o.CheckFormat("explain"); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return explainRun(o)
		},
	}
}

// explainRun prints one code's documentation, or every code's.
func explainRun(o *ExplainOptions) error {
	if o.Code == nil {
		return o.Emit(explain.ExplainDoc{Codes: diag.Codes()})
	}
	code := strings.ToUpper(strings.TrimSpace(*o.Code))
	c, ok := diag.LookupCode(code)
	if !ok {
		return cmdutil.UsageErrorf("unknown finding code %q: run 'dorisdiag explain' for the list", *o.Code)
	}
	return o.Emit(explain.ExplainDoc{Codes: []diag.Declaration{c}, One: true})
}
