package cmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/scrape/collect"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Shell completion (docs/cli.md "Completion"): bash, zsh and fish scripts
// that work on a bare machine, flag values from their fixed sets, and MV and
// stream names from the selected source. A TAB never hangs: a live source is
// read within completionBudget.

// CompletionOptions are the inputs of `dorisdiag completion`.
type CompletionOptions struct {
	cmdutil.Common

	Shell string         // bash, zsh, fish or powershell
	Root  *cobra.Command // the tree the script completes
}

// NewCmdCompletion replaces cobra's default completion command: its bash
// script needs the bash-completion package (_get_comp_words_by_ref,
// _filedir) and errors on every TAB without it.
func NewCmdCompletion(f *cmdutil.Factory, runF func(*CompletionOptions) error) *cobra.Command {
	o := &CompletionOptions{}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script for bash, zsh, fish or PowerShell",
		Long: `completion prints a script that completes dorisdiag's commands, flags, flag
values (-o, --fail-on, --demo, --state, --kind, ...) and the MV and stream
names of the selected source (--demo, --snapshot, or --host within --timeout,
at most 2s unless --timeout is given). The bash script works without the
bash-completion package.`,
		Example: `  source <(dorisdiag completion bash)           # bash: the same line in ~/.bashrc
  dorisdiag completion zsh > _dorisdiag         # zsh: into a directory of $fpath
  dorisdiag completion fish > dorisdiag.fish    # fish: into ~/.config/fish/completions/`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(c *cobra.Command, args []string) error {
			o.Common, o.Shell, o.Root = f.Common(), args[0], c.Root()
			switch o.Shell {
			case "bash", "zsh", "fish", "powershell":
			default:
				return cmdutil.UsageErrorf("completion %q: want bash, zsh, fish or powershell", o.Shell)
			}
			if runF != nil {
				return runF(o)
			}
			return completionRun(o)
		},
	}
}

// completionRun writes the shell's completion script.
func completionRun(o *CompletionOptions) error {
	w := o.IO.Out
	switch o.Shell {
	case "bash":
		return writeBashCompletion(o.Root, w)
	case "zsh":
		return writeZshCompletion(o.Root, w)
	case "fish":
		return o.Root.GenFishCompletion(w, true)
	}
	return o.Root.GenPowerShellCompletionWithDesc(w)
}

// bashFallbacks define what cobra's V2 script takes from the bash-completion
// package, under our own names, calling the package's functions when they
// are loaded. cobra v1.10.2's bash_completionsV2.go calls exactly two:
// _get_comp_words_by_ref (from its __init_completion fallback) and
// _filedir (file and directory completion).
const bashFallbacks = `
# dorisdiag: fallbacks for the two bash-completion functions the script
# below uses, so it works without the bash-completion package.
__dorisdiag_comp_words()
{
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@"
        return
    fi
    local exclude=""
    if [[ $1 == -n ]]; then exclude=$2; fi
    # Rejoin what bash split at a character of $exclude (--output=json).
    local -a ws=()
    local i w join=0 cw=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if ((i > 0)) && [[ -n $exclude && -n $w && -z ${w//[$exclude]/} ]]; then
            ws[${#ws[@]}-1]+=$w
            join=1
        elif ((join)); then
            ws[${#ws[@]}-1]+=$w
            join=0
        else
            ws+=("$w")
            join=0
        fi
        ((i == COMP_CWORD)) && cw=$((${#ws[@]} - 1))
    done
    words=("${ws[@]}")
    cword=$cw
    cur=${ws[cw]}
    prev=""
    ((cw > 0)) && prev=${ws[cw-1]}
    return 0
}

__dorisdiag_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n' f
    local -a found=()
    if [[ $1 == -d ]]; then
        found=($(compgen -d -- "$cur"))
    else
        local ext=${1%|}
        for f in $(compgen -f -- "$cur"); do
            if [[ -d $f || -z $ext ]]; then
                found+=("$f")
            else
                local e
                for e in ${ext//|/$'\n'}; do
                    [[ $f == *.$e ]] && { found+=("$f"); break; }
                done
            fi
        done
    fi
    COMPREPLY+=("${found[@]}")
    compopt -o filenames 2>/dev/null
    return 0
}
`

// writeBashCompletion writes cobra's V2 bash script with its two
// bash-completion calls routed through bashFallbacks.
func writeBashCompletion(root *cobra.Command, w io.Writer) error {
	var b strings.Builder
	if err := root.GenBashCompletionV2(&b, true); err != nil {
		return err
	}
	script, err := patchBashCompletion(b.String())
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, script)
	return err
}

func patchBashCompletion(script string) (string, error) {
	head, body, ok := strings.Cut(script, "\n")
	if !ok {
		return "", fmt.Errorf("completion: unexpected bash script from cobra")
	}
	for _, r := range []struct{ old, new string }{
		{`_get_comp_words_by_ref "$@" cur prev words cword`, `__dorisdiag_comp_words "$@" cur prev words cword`},
		{`_filedir`, `__dorisdiag_filedir`},
	} {
		if !strings.Contains(body, r.old) {
			return "", fmt.Errorf("completion: cobra's bash script no longer calls %s", r.old)
		}
		body = strings.ReplaceAll(body, r.old, r.new)
	}
	return head + "\n" + bashFallbacks + body, nil
}

// writeZshCompletion writes cobra's zsh script; sourced into a zsh without
// compinit (compdef undefined) it loads compinit first instead of failing.
func writeZshCompletion(root *cobra.Command, w io.Writer) error {
	var b strings.Builder
	if err := root.GenZshCompletion(&b); err != nil {
		return err
	}
	head, body, _ := strings.Cut(b.String(), "\n")
	_, err := io.WriteString(w, head+"\n(( ${+functions[compdef]} )) || { autoload -Uz compinit && compinit -u }\n"+body)
	return err
}

// completionBudget bounds the whole source read of one TAB when --timeout is
// not given: a dead or silent host yields no names, quickly.
const completionBudget = 2 * time.Second

// fixedValues are the flag value sets, by flag name; state depends on the
// command (MV freshness or stream state).
func fixedValues(c *cobra.Command, flag string) ([]string, bool) {
	switch flag {
	case "fail-on":
		return []string{"none", "warning", "critical"}, true
	case "demo", "scenario":
		return cmdutil.ScenarioNames(), true
	case "kind":
		return []string{"user", "ivm"}, true
	case "tz":
		return []string{"UTC", "Local"}, true
	case "state":
		if underMV(c) {
			return cmdutil.Names(mv.FreshnessStates), true
		}
		return cmdutil.Names(streams.States), true
	case "output":
		var out []string
		for _, f := range commandFormats(c) {
			out = append(out, string(f))
		}
		return out, true
	}
	return nil, false
}

// registerCompletions attaches value completion to every flag with a fixed
// set, a file flag or a name from the source, over the whole tree (commands
// added later get it too).
func registerCompletions(root *cobra.Command, f *cmdutil.Factory) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen := map[string]bool{}
		reg := func(fl *pflag.Flag) {
			if seen[fl.Name] {
				return
			}
			seen[fl.Name] = true
			if _, exists := c.GetFlagCompletionFunc(fl.Name); exists {
				return
			}
			var fn cobra.CompletionFunc
			switch {
			case fl.Name == "snapshot":
				fn = fileExt("json")
			case fl.Name == "config":
				fn = fileExt("yaml", "yml")
			case fl.Name == "db":
				fn = func(cc *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
					kind := cmdutil.KindStream
					if underMV(cc) {
						kind = cmdutil.KindMV
					}
					return sourceNames(cc, f, func(series []*snapshot.Snapshot) []string {
						var dbs []string
						for _, r := range cmdutil.ObjectRefs(series, kind) {
							dbs = append(dbs, r.DB)
						}
						return dbs
					}), cobra.ShellCompDirectiveNoFileComp
				}
			default:
				if _, ok := fixedValues(c, fl.Name); !ok {
					return
				}
				name := fl.Name
				fn = func(cc *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
					vs, _ := fixedValues(cc, name)
					return vs, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
				}
			}
			_ = c.RegisterFlagCompletionFunc(fl.Name, fn)
		}
		c.LocalNonPersistentFlags().VisitAll(reg)
		c.PersistentFlags().VisitAll(reg)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for path, fn := range map[string]cobra.CompletionFunc{"mv explain": completeMVNames(f), "streams show": completeStreamNames(f)} {
		if c, _, err := root.Find(strings.Fields(path)); err == nil && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = fn
		}
	}
}

func fileExt(exts ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completeMVNames and completeStreamNames are the ValidArgsFunction of
// mv explain and streams show: DB.NAME from the selected source, written as
// the argument accepts it (objectNames, names.go).
func completeMVNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return sourceNames(c, f, func(series []*snapshot.Snapshot) []string { return cmdutil.ObjectNames(series, cmdutil.KindMV) }), cobra.ShellCompDirectiveNoFileComp
	}
}

func completeStreamNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return sourceNames(c, f, func(series []*snapshot.Snapshot) []string { return cmdutil.ObjectNames(series, cmdutil.KindStream) }), cobra.ShellCompDirectiveNoFileComp
	}
}

// underMV: c is the mv group or one of its commands.
func underMV(c *cobra.Command) bool {
	for p := c; p != nil; p = p.Parent() {
		if p.Name() == "mv" {
			return true
		}
	}
	return false
}

// sourceNames reads the selected source for a completion and returns the
// sorted, distinct names pick finds; nothing when there is no source or it
// cannot be read within the budget. It never prints.
func sourceNames(c *cobra.Command, f *cmdutil.Factory, pick func([]*snapshot.Snapshot) []string) []string {
	series := completionSnapshots(c, f)
	if len(series) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range pick(series) {
		// A name with a control character (ESC, a line break, a bidi
		// override) is left out: the shell would print it raw in its menu,
		// and escaped it would name no object.
		if n != "" && !seen[n] && report.Sanitize(n) == n {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func completionSnapshots(c *cobra.Command, f *cmdutil.Factory) []*snapshot.Snapshot {
	src := f.Source(cmdutil.SourceOptions{})
	kind, err := src.Kind()
	if err != nil {
		return nil
	}
	if kind != "live" {
		series, err := src.Load()
		if err != nil {
			return nil
		}
		return series
	}
	// Completion runs no pre-run: --host HOST:PORT is split here, on a copy.
	conn := f.Config().Conn
	if conn.SplitHostPort(false) != nil {
		return nil
	}
	budget := completionBudget
	if fl := c.Flags().Lookup("timeout"); fl != nil && fl.Changed {
		budget = f.Config().Timeout
	}
	cfg := src.LiveConfig()
	cfg.Host, cfg.Port = conn.Host, conn.Port
	if cfg.Timeout > budget {
		cfg.Timeout = budget
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	done := make(chan *snapshot.Snapshot, 1)
	go func() {
		s, err := collect.Collect(ctx, cfg)
		if err != nil {
			s = nil
		}
		done <- s
	}()
	select {
	case s := <-done:
		if s == nil {
			return nil
		}
		return []*snapshot.Snapshot{s}
	case <-ctx.Done():
		return nil
	}
}

// commandFormats is what -o accepts for c: the formats registered for its
// document kind (annotation "dorisdiag.kind"), its declared list, or, for
// the root and the groups, every format some subcommand accepts.
func commandFormats(c *cobra.Command) []report.Format {
	if c.Annotations[annKind] == "" && c.Annotations[annFormats] == "" {
		seen := map[report.Format]bool{}
		for _, s := range c.Commands() {
			for _, f := range commandFormats(s) {
				seen[f] = true
			}
		}
		var out []report.Format
		for _, f := range report.AllFormats() {
			if seen[f] {
				out = append(out, f)
			}
		}
		return out
	}
	if kind := commandKind(c); kind != "" {
		return report.Formats(kind)
	}
	if f := c.Annotations[annFormats]; f != "" {
		var out []report.Format
		for _, s := range strings.Split(f, ",") {
			out = append(out, report.Format(s))
		}
		return out
	}
	return nil
}

// completeDemoValue turns a completion request whose word follows "--demo"
// ("__complete ... --demo inc") into one for "--demo=inc": --demo's value is
// optional, so cobra would otherwise complete the word as an argument.
func completeDemoValue(args []string) []string {
	if len(args) < 3 || (args[0] != cobra.ShellCompRequestCmd && args[0] != cobra.ShellCompNoDescRequestCmd) {
		return args
	}
	n := len(args)
	if args[n-2] != "--demo" || strings.HasPrefix(args[n-1], "-") {
		return args
	}
	for _, s := range cmdutil.ScenarioNames() {
		if strings.HasPrefix(s, args[n-1]) {
			out := append([]string(nil), args[:n-2]...)
			return append(out, "--demo="+args[n-1])
		}
	}
	return args
}
