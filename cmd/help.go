package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/cmd/doctor"
	"github.com/dorisdiag/dorisdiag/cmd/metrics"
	"github.com/dorisdiag/dorisdiag/report"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Help like gh's (docs/cli.md "Help"): every command's --help lists its -o
// formats (from the report registry), its exit codes and examples, and only
// the global flags that apply to it, grouped: source, connection, output,
// gate. A command declares what applies in its Annotations (annKind,
// annGlobals, annFailOn); commandMeta below holds them for the commands of
// commandTree, and a command added later may set them in its constructor.
// One that declares nothing gets every global flag.

const (
	// annKind: the report kind of the command's document; -o accepts
	// report.Formats(kind).
	annKind = "dorisdiag.kind"
	// annFormats: the -o formats, comma-separated, of a command without a
	// registered kind (version).
	annFormats = "dorisdiag.formats"
	// annGlobals: the global flags that apply, comma-separated group names
	// (source, connection, output, gate) or flag names; "-" for none.
	annGlobals = "dorisdiag.globals"
	// annFailOn: the default of --fail-on where the gate applies.
	annFailOn = "dorisdiag.fail-on"
	// annServes: "true" for a command that runs until stopped (exporter):
	// tests never run its examples.
	annServes = "dorisdiag.serves"

	// flagGroupAnn is the pflag annotation naming a global flag's group.
	flagGroupAnn = "dorisdiag_group"
)

// flagGroups, in the order help prints them, with their titles.
var flagGroups = []struct{ name, title string }{
	{"source", "Source flags (one of)"},
	{"connection", "Connection flags (with --host)"},
	{"output", "Output flags"},
	{"gate", "Gate flags"},
}

// globalFlagGroup assigns the root's persistent flags to their groups. A
// global flag added later without a group is shown everywhere, under
// "Global flags".
var globalFlagGroup = map[string]string{
	"host": "source", "snapshot": "source", "demo": "source", "assume-ttl-enforced": "source",
	"port": "connection", "http-port": "connection", "user": "connection", "tls": "connection", "tls-ca": "connection", "timeout": "connection",
	"http-scheme": "connection", "fe-https-port": "connection", "allow-http-credentials": "connection",
	"output": "output", "no-color": "output", "no-pager": "output", "cluster": "output",
	"fail-on": "gate",
}

type cmdMeta struct {
	kind, formats, globals, failOn, serves string
}

const allGlobals = "source,connection,output,gate"

// tableAndJSON is the annFormats of a command whose document has no kind in
// the report registry (bundle, version).
const tableAndJSON = string(report.FormatTable) + "," + string(report.FormatJSON)

// commandMeta is keyed by the command path without "dorisdiag ".
var commandMeta = map[string]cmdMeta{
	"bundle":           {formats: tableAndJSON, globals: "source,connection,output"},
	"check":            {kind: "check", globals: allGlobals, failOn: "critical"},
	"consumers":        {kind: "consumers", globals: allGlobals, failOn: "critical"},
	"demo":             {kind: "demo", globals: "demo,output,gate", failOn: "none"},
	"doctor":           {kind: "doctor", globals: allGlobals, failOn: doctor.FailOn},
	"doctor config":    {kind: "doctor", globals: allGlobals, failOn: doctor.FailOn},
	"doctor net":       {kind: "doctor", globals: allGlobals, failOn: doctor.FailOn},
	"doctor labels":    {kind: "doctor", globals: allGlobals, failOn: doctor.FailOn},
	"explain":          {kind: "explain", globals: "output"},
	"headroom":         {kind: "headroom", globals: allGlobals, failOn: "none"},
	"metrics":          {globals: "-"},
	"metrics lint":     {kind: "metrics_lint", globals: "snapshot,demo,timeout,user,tls,tls-ca,http-scheme,allow-http-credentials,output,gate", failOn: metrics.MetricsLintFailOn},
	"metrics scrape":   {kind: "metrics_scrape", globals: allGlobals, failOn: metrics.MetricsScrapeFailOn},
	"mv":               {globals: "-"},
	"mv list":          {kind: "mv_list", globals: allGlobals, failOn: "none"},
	"mv explain":       {kind: "mv_explain", globals: allGlobals, failOn: "none"},
	"snapshot":         {kind: "snapshot_summary", globals: "source,connection,output"},
	"streams":          {kind: "streams", globals: allGlobals, failOn: "none"},
	"streams show":     {kind: "stream", globals: allGlobals, failOn: "none"},
	"tso":              {globals: "-"},
	"tso decode":       {kind: "tso_decode", globals: "output"},
	"tso encode":       {kind: "tso_encode", globals: "output"},
	"tso diff":         {kind: "tso_diff", globals: "output"},
	"tso lag":          {kind: "tso_lag", globals: "output"},
	"tso headroom":     {kind: "tso_headroom", globals: "source,connection,output,gate,assume-ttl-enforced", failOn: "none"},
	"version":          {formats: tableAndJSON, globals: "output"},
	"completion":       {globals: "-"},
	"exporter":         {globals: "source,connection", serves: "true"},
	"help":             {globals: "-"},
	"__complete":       {globals: allGlobals},
	"__completeNoDesc": {globals: allGlobals},
}

// applyCommandMeta copies commandMeta into each command's Annotations
// (never over what a constructor set) and installs the help function.
func applyCommandMeta(root *cobra.Command) {
	for flag, group := range globalFlagGroup {
		if root.PersistentFlags().Lookup(flag) != nil {
			_ = root.PersistentFlags().SetAnnotation(flag, flagGroupAnn, []string{group})
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if m, ok := commandMeta[strings.TrimPrefix(c.CommandPath(), root.Name()+" ")]; ok && c != root {
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			for k, v := range map[string]string{annKind: m.kind, annFormats: m.formats, annGlobals: m.globals, annFailOn: m.failOn, annServes: m.serves} {
				if _, set := c.Annotations[k]; !set && v != "" {
					c.Annotations[k] = v
				}
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c.OutOrStdout(), c) })
}

func commandKind(c *cobra.Command) string { return c.Annotations[annKind] }

// appliesGlobal reports whether the root's persistent flag f applies to c.
func appliesGlobal(c *cobra.Command, f *pflag.Flag) bool {
	if c == c.Root() {
		return true
	}
	spec, ok := c.Annotations[annGlobals]
	if !ok {
		return true
	}
	group := ""
	if g := f.Annotations[flagGroupAnn]; len(g) > 0 {
		group = g[0]
	}
	if group == "" {
		return true // an ungrouped global flag applies everywhere
	}
	for _, s := range strings.Split(spec, ",") {
		if s == group || s == f.Name {
			return true
		}
	}
	return false
}

// checkGlobalsApply rejects a global flag given to a command it does not
// apply to ("tso decode --host fe1"): exit 2, rather than silently ignored.
func checkGlobalsApply(c *cobra.Command) error {
	if c.HasSubCommands() {
		return nil // a group: its guard names the subcommands (usage.go)
	}
	var bad []string
	c.Root().PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if got := c.Flags().Lookup(f.Name); got != nil && got.Changed && !appliesGlobal(c, f) {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return cmdutil.UsageErrorf("%s does not apply to %q (see '%s --help')", strings.Join(bad, ", "), c.CommandPath(), c.CommandPath())
}

// failOnDefault is the command's default --fail-on ("none" unless declared).
func failOnDefault(c *cobra.Command) string {
	if d := c.Annotations[annFailOn]; d != "" {
		return d
	}
	return "none"
}

// exitCodes is the "Exit codes" section of c's help.
func exitCodes(c *cobra.Command) []string {
	gate := c == c.Root()
	if f := c.Root().PersistentFlags().Lookup("fail-on"); f != nil && !gate {
		gate = appliesGlobal(c, f) && c.Annotations[annGlobals] != ""
	}
	if !gate {
		return []string{"0  ran", "2  could not run: bad usage, bad input, internal error"}
	}
	def := failOnDefault(c)
	if c == c.Root() {
		def = "none; check, doctor, metrics lint, metrics scrape: critical"
	}
	return []string{
		fmt.Sprintf("0  ran; no finding at or above --fail-on (default %s)", def),
		"1  ran; at least one finding at or above --fail-on",
		"2  could not run: bad usage, bad input, no connection, internal error",
	}
}

// writeHelp prints c's help: description, usage, examples, its own flags,
// the global flags that apply (grouped), subcommands and exit codes.
func writeHelp(w io.Writer, c *cobra.Command) {
	desc := strings.TrimSpace(c.Long)
	if desc == "" {
		desc = c.Short
	}
	fmt.Fprintf(w, "%s\n\n", desc)
	fmt.Fprintf(w, "Usage:\n")
	if c.Runnable() && !c.HasSubCommands() {
		fmt.Fprintf(w, "  %s\n", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "  %s [command]\n", c.CommandPath())
	}
	if ex := strings.TrimRight(c.Example, "\n "); ex != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", ex)
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nAvailable Commands:\n")
		width := 0
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				width = max(width, len(s.Name()))
			}
		}
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				fmt.Fprintf(w, "  %-*s  %s\n", width, s.Name(), s.Short)
			}
		}
	}
	// The command's own flags, and those of its parents other than root
	// (mv's thresholds).
	own := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if c.Root().PersistentFlags().Lookup(f.Name) == nil {
			own.AddFlag(f)
		}
	})
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if c.Root().PersistentFlags().Lookup(f.Name) == nil && own.Lookup(f.Name) == nil {
			own.AddFlag(f)
		}
	})
	printFlags(w, "Flags", own)

	groups := map[string]*pflag.FlagSet{}
	var other *pflag.FlagSet
	c.Root().PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || !appliesGlobal(c, f) {
			return
		}
		g := ""
		if a := f.Annotations[flagGroupAnn]; len(a) > 0 {
			g = a[0]
		}
		set := groups[g]
		if g == "" {
			if other == nil {
				other = pflag.NewFlagSet("global", pflag.ContinueOnError)
			}
			set = other
		} else if set == nil {
			set = pflag.NewFlagSet(g, pflag.ContinueOnError)
			groups[g] = set
		}
		set.AddFlag(helpFlag(c, f))
	})
	for _, g := range flagGroups {
		if set := groups[g.name]; set != nil {
			printFlags(w, g.title, set)
		}
	}
	if other != nil {
		printFlags(w, "Global flags", other)
	}
	if c.Runnable() && !c.HasSubCommands() || c == c.Root() {
		fmt.Fprintf(w, "\nExit codes:\n")
		for _, l := range exitCodes(c) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" for more about a command.\n", c.CommandPath())
	}
	if c == c.Root() {
		fmt.Fprintf(w, "Reference: docs/commands.md and docs/cli.md of the dorisdiag repository.\n")
	}
}

// helpFlag is f as c's help shows it: -o lists c's formats, --fail-on
// says c's default.
func helpFlag(c *cobra.Command, f *pflag.Flag) *pflag.Flag {
	cp := *f
	switch f.Name {
	case "output":
		if fs := commandFormats(c); len(fs) > 0 && c != c.Root() {
			names := make([]string, len(fs))
			for i, x := range fs {
				names[i] = string(x)
			}
			cp.Usage = "output format: " + strings.Join(names, ", ")
		}
	case "fail-on":
		if c != c.Root() {
			cp.Usage = fmt.Sprintf("exit 1 when a finding is at or above this severity: none, warning, critical (default %s)", failOnDefault(c))
		}
	}
	return &cp
}

func printFlags(w io.Writer, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(w, "\n%s:\n%s", title, fs.FlagUsagesWrapped(100))
}
