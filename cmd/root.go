// Package cmd wires flags to options to source → diag → report. It holds no
// SQL and no math (design.md "The pipeline").
package cmd

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/report"

	"github.com/spf13/cobra"
)

// exporterCommand builds `dorisdiag exporter`: the shim that execs
// dorisdiag-exporter, so that dorisdiag links nothing of the exporter
// (exporter_shim.go). This package's tests set it to the real command: they
// run the exporter in-process, as dorisdiag-exporter does (MainExporter).
var exporterCommand = newCmdExporterShim

// NewRootCmd builds the command tree over the streams.
func NewRootCmd(ios *cmdutil.IOStreams) *cobra.Command {
	cfg := &cmdutil.Config{}
	f := cmdutil.NewFactory(ios, cfg)
	root := newRoot(f, cfg, exporterCommand)
	registerCompletions(root, f)
	return root
}

// newRootFor is the tree Main runs for args: the value completions of every
// flag (a walk over every flag of every command, most of the tree's cost)
// are attached only when args ask the shell's completion (cobra's hidden
// __complete commands), so that `tso decode` does not pay for them
// (docs/performance.md "Start-up").
func newRootFor(ios *cmdutil.IOStreams, args []string, exporter func(*cmdutil.Factory) *cobra.Command) *cobra.Command {
	cfg := &cmdutil.Config{}
	f := cmdutil.NewFactory(ios, cfg)
	root := newRoot(f, cfg, exporter)
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		registerCompletions(root, f)
	}
	return root
}

// newRoot builds the command tree: the root's flags bound to cfg, which f
// reads, and every command of commandTree built over f, exporter building
// `exporter`.
func newRoot(f *cmdutil.Factory, cfg *cmdutil.Config, exporter func(*cmdutil.Factory) *cobra.Command) *cobra.Command {
	ios := f.IOStreams
	if f.LoadConfig == nil {
		f.LoadConfig = loadFileConfig
	}
	root := &cobra.Command{
		Use:   "dorisdiag",
		Short: "Diagnose Apache Doris table streams and IVM materialized views",
		Long: `dorisdiag diagnoses the consumers of an Apache Doris table changelog — table
streams and incrementally maintained (IVM) materialized views — from a live
cluster (MySQL protocol + HTTP), a saved snapshot, or a bundled demo scenario.`,
		Example: `  dorisdiag demo                                       # no cluster needed
  dorisdiag check --host fe1                           # what is wrong right now
  dorisdiag mv explain demo.mv_orders_daily --demo incident
  source <(dorisdiag completion bash)                  # TAB completes names too`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := checkGlobalsApply(c); err != nil {
				return err
			}
			if err := cmdutil.CheckGlobalUsage(c, cfg); err != nil {
				return err
			}
			if cfg.FailOn != "" {
				if _, err := cfg.CheckFailOn(""); err != nil {
					return err
				}
			}
			if cfg.Timeout <= 0 {
				return cmdutil.UsageErrorf("--timeout must be positive, got %s", cfg.Timeout)
			}
			if s := cfg.Conn.HTTPScheme; s != "" && s != "http" && s != "https" {
				return cmdutil.UsageErrorf("--http-scheme %q: want http or https", s)
			}
			if p := cfg.Conn.FEHTTPSPort; p < 0 || p > 65535 {
				return cmdutil.UsageErrorf("--fe-https-port %d: want a port, 1-65535", p)
			}
			return nil
		},
	}
	// --version as every CLI has it (the same as `dorisdiag version`).
	root.Version = readVersion().Version
	root.SetVersionTemplate("dorisdiag {{.Version}}\n")
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if err.Error() == "flag needs an argument: --password" { // bare --password: the value is missing, the hint is not
			return cmdutil.UsageErrorf("%s", cmdutil.PasswordRefused)
		}
		return cmdutil.UsageError{Err: err}
	})

	pf := root.PersistentFlags()
	pf.StringVarP(&cfg.Output, "output", "o", string(report.FormatTable), "output format: "+formatNames(report.AllFormats()...)+" (each command lists the ones it supports)")
	pf.BoolVar(&cfg.NoColor, "no-color", false, "never colour output (also: NO_COLOR environment variable); colour is used only on a TTY")
	pf.StringVar(&cfg.FailOn, "fail-on", "", "exit 1 when a finding is at or above this severity: none, warning, critical (default none; check, doctor, metrics lint, metrics scrape: critical)")
	pf.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "timeout for each network operation (connect, query, HTTP request)")
	pf.StringVar(&cfg.Conn.Host, "host", "", "Doris FE host, or HOST:PORT with the MySQL port (live mode); the password comes from DORISDIAG_PASSWORD or MYSQL_PWD, never a flag")
	pf.IntVar(&cfg.Conn.Port, "port", 9030, "Doris FE MySQL-protocol (query) port")
	pf.String("password", "", "refused: set DORISDIAG_PASSWORD (or MYSQL_PWD) instead")
	_ = pf.MarkHidden("password")
	pf.IntVar(&cfg.Conn.HTTPPort, "http-port", 8030, "Doris FE HTTP port (/metrics, /api/tso)")
	pf.StringVar(&cfg.Conn.User, "user", "root", "Doris user name")
	pf.BoolVar(&cfg.Conn.TLS, "tls", false, "use TLS on the MySQL connection, and HTTPS on the HTTP ports (see --http-scheme)")
	pf.StringVar(&cfg.Conn.TLSCA, "tls-ca", "", "PEM file of the CA that signed the FE certificate (implies --tls); also verifies HTTPS to the FEs and BEs")
	pf.StringVar(&cfg.Conn.HTTPScheme, "http-scheme", "", "http or https for the FE and BE HTTP ports (/metrics, /api/tso); default https with --tls or --tls-ca, else http")
	pf.IntVar(&cfg.Conn.FEHTTPSPort, "fe-https-port", 0, "with HTTPS: every FE's HTTPS port, for FEs with the older enable_https (Doris https_port, default 8050, which SHOW FRONTENDS does not report); default: their HTTP port")
	pf.BoolVar(&cfg.Conn.AllowHTTPCredentials, "allow-http-credentials", false, "answer a Basic challenge over plain http:// from any host, and with --tls at all (the password then crosses the network in cleartext); without it only the nodes the cluster lists get it")
	pf.StringArrayVar(&cfg.Snapshots, "snapshot", nil, "read a saved snapshot file instead of a live cluster (repeat for a series, oldest first; - reads stdin)")
	pf.StringVar(&cfg.Demo, "demo", "", "use a bundled scenario instead of a live cluster: "+strings.Join(cmdutil.ScenarioNames(), ", "))
	pf.Lookup("demo").NoOptDefVal = "incident"
	pf.StringVar(&cfg.Cluster, "cluster", "", "cluster label of every -o prom series and of the exporter's (default: the FE host given, demo-SCENARIO for a bundled scenario)")
	cmdutil.AddPagerFlag(root, cfg)
	cmdutil.AddTTLFlag(root, cfg)

	for _, add := range commandTree(exporter) {
		root.AddCommand(add(f))
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(NewCmdCompletion(f, nil))
	cmdutil.GuardSubcommands(root)
	applyCommandMeta(root)
	return root
}

// Main runs dorisdiag with args and returns the exit code.
func Main(args []string, ios *cmdutil.IOStreams) int { return mainWith(args, ios, exporterCommand) }

// MainExporter runs dorisdiag-exporter with args (its arguments after the
// program name, which are those of `dorisdiag exporter`) and returns the exit
// code: the tree of dorisdiag with newCmd as its `exporter`, so that the
// global flags (--host, --demo, --config, --cluster, …), the help, the
// usage errors and the exit codes are dorisdiag's. cmd/dorisdiag-exporter
// passes the real command (cmd/exporter); dorisdiag never links it.
func MainExporter(args []string, ios *cmdutil.IOStreams, newCmd func(*cmdutil.Factory) *cobra.Command) int {
	return mainWith(exporterArgs(args), ios, newCmd)
}

// exporterArgs puts the command word "exporter" in front of the exporter's
// arguments, after cobra's __complete when the shell asks for completions;
// a lone --version is the root's (dorisdiag-exporter --version).
func exporterArgs(args []string) []string {
	if len(args) == 1 && args[0] == "--version" {
		return args
	}
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return append([]string{args[0], "exporter"}, args[1:]...)
	}
	return append([]string{"exporter"}, args...)
}

func mainWith(args []string, ios *cmdutil.IOStreams, exporter func(*cmdutil.Factory) *cobra.Command) int {
	root := newRootFor(ios, args, exporter)
	root.SetArgs(joinDemoValue(completeDemoValue(args)))
	c, err := root.ExecuteC()
	if err != nil && isCobraUsageError(err) {
		// "--demo nope" leaves "nope" as an argument (the value is optional):
		// say what was really wrong.
		if bad := unknownDemoValue(root, args); bad != "" && strings.Contains(err.Error(), strconv.Quote(bad)) {
			err = fmt.Errorf("--demo: unknown scenario %q (bundled: %s)", bad, strings.Join(cmdutil.ScenarioNames(), ", "))
		}
		err = cmdutil.UsageError{Err: withUsageHint(err, args)}
	}
	return cmdutil.ExitCodeFor(err, ios.Err, cmdutil.HelpPath(root, c))
}

// joinDemoValue turns "--demo NAME" into "--demo=NAME" when NAME is a bundled
// scenario, and "--watch D" into "--watch=D" when D is a duration: both flags
// have an optional value (bare --demo means incident, bare --watch 15s), and
// pflag only binds an optional value written with "=".
func joinDemoValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			return append(out, args[i:]...)
		}
		if args[i] == "--demo" && i+1 < len(args) && isScenarioName(args[i+1]) {
			out = append(out, "--demo="+args[i+1])
			i++
			continue
		}
		if args[i] == "--watch" && i+1 < len(args) {
			if d, err := time.ParseDuration(args[i+1]); err == nil && d > 0 {
				out = append(out, "--watch="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, args[i])
	}
	return out
}

// unknownDemoValue returns X for "--demo X" when X is neither a scenario, a
// flag nor a command name.
func unknownDemoValue(root *cobra.Command, args []string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--" {
			return ""
		}
		if args[i] != "--demo" {
			continue
		}
		x := args[i+1]
		if isScenarioName(x) || strings.HasPrefix(x, "-") {
			return ""
		}
		if c, _, err := root.Find([]string{x}); err == nil && c != root {
			return ""
		}
		return x
	}
	return ""
}

func isScenarioName(s string) bool {
	for _, n := range cmdutil.ScenarioNames() {
		if n == s {
			return true
		}
	}
	return false
}

// isCobraUsageError recognises cobra's own argument and command errors,
// which it returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "requires exactly", "received ", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// withUsageHint adds to cobra's words what the user most likely meant
// (issue 25, papercuts): a bare number after --watch, a negative number
// read as a flag, -p for a password.
func withUsageHint(err error, args []string) error {
	msg := err.Error()
	if bad, ok := strings.CutPrefix(msg, "unknown command "); ok {
		word, _, _ := strings.Cut(bad, " for ")
		if w, e := strconv.Unquote(word); e == nil {
			for i := 1; i < len(args); i++ {
				if args[i] == w && args[i-1] == "--watch" {
					return fmt.Errorf("%w: --watch takes an interval with a unit (--watch %ss), or none for the default 15s", err, w)
				}
			}
		}
	}
	if bad, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok && len(bad) >= 3 {
		switch c := bad[1]; {
		case c >= '0' && c <= '9':
			return fmt.Errorf("%w: a negative number is read as a flag; put -- before the values (dorisdiag tso decode -- -1)", err)
		case c == 'p':
			return fmt.Errorf("%w: there is no -p; the password is read from DORISDIAG_PASSWORD (or MYSQL_PWD), never from the command line", err)
		}
	}
	return err
}

// Execute runs the process and exits with the contract's code.
func Execute() { os.Exit(Main(os.Args[1:], cmdutil.System())) }

// formatNames lists formats as help text names them: "table, wide, json".
func formatNames(fs ...report.Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
