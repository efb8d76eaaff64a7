package cmd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// The exporter is its own binary, dorisdiag-exporter (cmd/dorisdiag-exporter):
// Go runs every linked package's init before main, so the only way for
// `dorisdiag tso decode` not to initialise client_golang's default registry,
// exporter-toolkit, protobuf and procfs is not to link them
// (docs/performance.md "Start-up and binary size"). `dorisdiag exporter`
// stays, so that every documented command line, systemd unit and container
// command keeps working: this shim finds dorisdiag-exporter and replaces
// this process with it (exec: the same pid, the same signals, the same
// environment). It imports nothing of the exporter.

// newCmdExporterShim builds `dorisdiag exporter` as dorisdiag ships it.
func newCmdExporterShim(_ *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "exporter",
		Short: cmdutil.ExporterShort,
		Long: `exporter runs ` + cmdutil.ExporterBinary + `, the exporter's own program, with the same
arguments and environment, in place of this process (exec: the pid, the
signals and the exit code are the exporter's). dorisdiag links nothing of
the exporter, so that every other command starts without it. It is looked
for beside this dorisdiag, then on PATH; install it with

  ` + cmdutil.ExporterInstall + `

'dorisdiag exporter --help' shows its flags; docs/exporter.md lists every
series, the flags, and how to run it under systemd and Kubernetes.`,
		Example: `  dorisdiag exporter --demo incident --web.listen-address 127.0.0.1:10930
  DORISDIAG_PASSWORD=... dorisdiag exporter --host fe1 --user monitor
  dorisdiag exporter --host fe1 --web.config.file web.yml --interval 30s`,
		// Every argument is the exporter's, flags before "exporter" too
		// (cobra hands them over without the command word): it parses them.
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			path, err := findExporter()
			if err != nil {
				return err
			}
			return execExporter(path, args)
		},
		ValidArgsFunction: completeExporter,
	}
	// `dorisdiag help exporter` is the exporter's help, as
	// `dorisdiag exporter --help` is; without the binary, this command's.
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if path, err := findExporter(); err == nil {
			if err := execExporter(path, []string{"--help"}); err != nil {
				fmt.Fprintf(c.ErrOrStderr(), "dorisdiag: %v\n", err)
			}
			return
		}
		writeHelp(c.OutOrStdout(), c)
	})
	return c
}

// errNoExporter is the shim's error when dorisdiag-exporter is not
// installed: exit 2 (could not run; docs/cli.md "Exit codes").
type errNoExporter struct{ looked []string }

func (e errNoExporter) Error() string {
	return fmt.Sprintf("exporter: %s not found (looked in %s); the exporter is its own program: install it with `%s`, or put it beside dorisdiag",
		cmdutil.ExporterBinary, strings.Join(e.looked, " and "), cmdutil.ExporterInstall)
}

// findExporter returns the path of dorisdiag-exporter: beside this
// executable (symbolic links resolved: a release unpacked into one
// directory, `go install` of both into GOBIN), else the first on PATH.
func findExporter() (string, error) {
	var looked []string
	if exe, err := os.Executable(); err == nil {
		if p, err := filepath.EvalSymlinks(exe); err == nil {
			exe = p
		}
		dir := filepath.Dir(exe)
		looked = append(looked, dir)
		cand := filepath.Join(dir, cmdutil.ExporterBinary)
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	looked = append(looked, "PATH")
	if p, err := exec.LookPath(cmdutil.ExporterBinary); err == nil {
		return p, nil
	}
	return "", errNoExporter{looked: looked}
}

// execExporter replaces this process with path, args after the program
// name, and this process's environment. It returns only on failure.
func execExporter(path string, args []string) error {
	argv := append([]string{path}, args...)
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("exporter: running %s: %w", path, err)
	}
	return errors.New("unreachable: exec returned") // syscall.Exec returns only an error
}

// completeExporter completes the exporter's flags and their values by
// asking dorisdiag-exporter (cobra's hidden __complete command, which the
// shell completion script calls): the shim parses no flag of its own.
func completeExporter(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	path, err := findExporter()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	argv := append(append([]string{cobra.ShellCompRequestCmd}, args...), toComplete)
	out, err := exec.CommandContext(ctx, path, argv...).Output()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return parseCompletions(out)
}

// parseCompletions reads cobra's __complete output: one completion a line,
// then ":DIRECTIVE".
func parseCompletions(out []byte) ([]cobra.Completion, cobra.ShellCompDirective) {
	var comps []cobra.Completion
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, ":"); ok {
			n, err := strconv.Atoi(d)
			if err != nil {
				break
			}
			return comps, cobra.ShellCompDirective(n)
		}
		comps = append(comps, line)
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}
