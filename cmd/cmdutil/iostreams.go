package cmdutil

import (
	"context"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// IOStreams carries the process's streams and the colour policy, decided once
// (style.md: cli/cli IOStreams). Tests construct it with buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	IsTTY  bool // stdout is a terminal
	Getenv func(string) string
	// DialContext, when set, replaces the TCP dialer of every HTTP fetch
	// (tests: a dialer that fails the test proves a command stays offline).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// TermSize is the columns and rows of the terminal on stdout (0 when
	// unknown); nil when stdout is not a terminal (terminal.go).
	TermSize func() (width, height int)
	// RunPager, when set, replaces running the pager command with text on
	// its stdin (tests; pager.go).
	RunPager func(command string, text []byte) error
	// SetMemoryLimit is runtime/debug.SetMemoryLimit in the real process
	// (System); nil in tests that run commands in process, whose limit
	// would outlive the command.
	SetMemoryLimit func(int64) int64
}

// System returns the real process streams.
func System() *IOStreams {
	ios := &IOStreams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, IsTTY: isTerminal(os.Stdout), Getenv: os.Getenv, SetMemoryLimit: debug.SetMemoryLimit}
	if ios.IsTTY {
		ios.TermSize = func() (int, int) { return terminalSize(os.Stdout) }
	}
	return ios
}

// isTerminal asks the terminal driver (TCGETS through golang.org/x/term): a
// character device is not enough — /dev/null is one, and taking it for a
// terminal sent `dorisdiag … >/dev/null` through the pager (sh -c less: two
// more processes, the larger part of a short command's cost).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

func (s *IOStreams) getenv(k string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(k)
}

// colorEnabled reports whether to emit ANSI colour: only on a TTY, never
// with --no-color or a non-empty NO_COLOR (no-color.org).
func (s *IOStreams) colorEnabled(noColor bool) bool {
	return !noColor && s.IsTTY && s.getenv("NO_COLOR") == ""
}

// width is the number of columns the table format must fit (0: no limit;
// terminal.go).
func (s *IOStreams) width() int {
	if c, err := strconv.Atoi(strings.TrimSpace(s.getenv("COLUMNS"))); err == nil && c > 0 {
		return c
	}
	if s.IsTTY && s.TermSize != nil {
		w, _ := s.TermSize()
		return w
	}
	return 0
}

// password reads the secret from the environment only (docs/security.md
// "Credentials"): DORISDIAG_PASSWORD, then MYSQL_PWD.
func (s *IOStreams) password() string {
	if p := s.getenv("DORISDIAG_PASSWORD"); p != "" {
		return p
	}
	return s.getenv("MYSQL_PWD")
}
