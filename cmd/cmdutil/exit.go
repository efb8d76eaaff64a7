package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/cmd/watch"
	"github.com/dorisdiag/dorisdiag/report"
)

// Exit codes, for every command (design.md "Users and their contracts").
const (
	ExitOK       = 0 // ran; no finding at or above --fail-on
	ExitFindings = 1 // ran; at least one finding at or above --fail-on
	ExitError    = 2 // could not run: bad usage, bad input, no connection, internal error
)

// errFindings is the sentinel a command returns after printing its report
// when a finding reaches --fail-on: exit 1, nothing more printed.
var ErrFindings = errors.New("findings at or above --fail-on")

// usageError marks bad usage (exit 2, with a hint to --help).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func UsageErrorf(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// alreadyReported is an error whose message the command has already printed
// (e.g. tso decode reports each bad value inline): exit 2, nothing more printed.
type AlreadyReported struct{ Err error }

func (e AlreadyReported) Error() string { return e.Err.Error() }

// ExitCodeFor maps the error a command returned to the process exit code and
// prints it, in one place: one line "dorisdiag: <what>: <why>", never a
// stack. A usage error's hint points to helpCmd's --help: the command that
// was run ("dorisdiag mv explain"), not the root, so the hint shows that
// command's arguments and flags.
func ExitCodeFor(err error, stderr io.Writer, helpCmd string) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, ErrFindings) {
		return ExitFindings
	}
	var ar AlreadyReported
	if errors.As(err, &ar) {
		return ExitError
	}
	msg := strings.TrimSpace(err.Error())
	msg = strings.ReplaceAll(msg, "\n", " ")
	// An error can hold the server's text (a MySQL error, an HTTP body):
	// made inert like every untrusted string a person reads (an OSC 8 link,
	// a screen clear, CR or a bidi control shows as an escape).
	fmt.Fprintf(stderr, "dorisdiag: %s\n", report.Sanitize(msg))
	if IsUsage(err) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", helpCmd)
	}
	return ExitError
}

// isUsage recognises bad usage: a command's usageError, or a misuse of the
// --watch flags (package cmd/watch's UsageError).
func IsUsage(err error) bool {
	var ue UsageError
	var we watch.UsageError
	return errors.As(err, &ue) || errors.As(err, &we)
}

// helpPath is the command path whose --help a usage error points to: the
// command cobra ran or found (for an unknown subcommand, its group), else the
// root.
func HelpPath(root, c *cobra.Command) string {
	if c == nil {
		return root.CommandPath()
	}
	return c.CommandPath()
}
