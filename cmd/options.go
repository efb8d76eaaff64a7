package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
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
}

// System returns the real process streams.
func System() *IOStreams {
	ios := &IOStreams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, IsTTY: isTerminal(os.Stdout), Getenv: os.Getenv}
	if ios.IsTTY {
		ios.TermSize = func() (int, int) { return terminalSize(os.Stdout) }
	}
	return ios
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	ios     *IOStreams
	Output  string
	NoColor bool
	FailOn  string
	Timeout time.Duration
	Conn    connOptions
	Source  sourceOptions
	// withMetrics: a live collection also fetches /metrics of every FE and
	// BE (check sets it unless --no-metrics).
	withMetrics bool
	// metricsTargets, when set, replace the FEs and BEs discovered from
	// SHOW FRONTENDS/BACKENDS (nodes whose advertised address is not the
	// one this machine reaches).
	metricsTargets []scrape.Target
	// linted: the /metrics of the latest live snapshot, linted as each body
	// streamed in (no body is kept: check's memory does not grow with the
	// number of nodes).
	linted map[*snapshot.Snapshot][]metrics.Input
	// watch is the current --watch round, set while a round renders: emit
	// adds it to the document ("watch" field).
	watch *report.WatchRound
	// ndjson: -o json --watch writes each document compact, on one line.
	ndjson bool
	// pager is --no-pager and the stdout the pager may own (pager.go).
	pager pagerOptions
}

// connOptions are the live-cluster flags. The password is never a flag
// (visible in /proc and shell history): DORISDIAG_PASSWORD, then MYSQL_PWD.
type connOptions struct {
	Host     string
	Port     int
	HTTPPort int
	User     string
	TLS      bool
	TLSCA    string
	// HTTPScheme and AllowHTTPCredentials: docs/security.md "Network".
	HTTPScheme           string
	AllowHTTPCredentials bool
	FEHTTPSPort          int
}

// color reports whether to emit ANSI colour: only on a TTY, never with
// --no-color or a non-empty NO_COLOR (no-color.org).
func (g *globalOptions) color() bool {
	if g.NoColor || !g.ios.IsTTY {
		return false
	}
	if g.ios.Getenv != nil && g.ios.Getenv("NO_COLOR") != "" {
		return false
	}
	return true
}

func (g *globalOptions) style() report.Style {
	return report.NewStyle(g.ios.Out, g.color()).WithWidth(g.width())
}

// format validates -o against what a command supports.
func (g *globalOptions) format(supported ...report.Format) (report.Format, error) {
	f, err := report.ParseFormat(g.Output, supported...)
	if err != nil {
		return "", usageError{err}
	}
	return f, nil
}

// failOn resolves --fail-on; def is the command's default ("none" for most,
// "critical" for check).
func (g *globalOptions) failOn(def string) (diag.Severity, error) {
	v := g.FailOn
	if v == "" {
		v = def
	}
	s, err := diag.ParseSeverity(v)
	if err != nil || s == diag.SeverityInfo {
		return 0, usageErrorf("--fail-on %q: want none, warning or critical", v)
	}
	return s, nil
}

// gate turns findings into the exit code contract: errFindings when any
// reaches --fail-on.
func (g *globalOptions) gate(fs []diag.Finding, def string) error {
	th, err := g.failOn(def)
	if err != nil {
		return err
	}
	if diag.AtOrAbove(fs, th) {
		return errFindings
	}
	return nil
}

// checkFormat validates -o against the formats report registers for kind,
// before any work is done (a bad -o is exit 2, not a failed collection).
func (g *globalOptions) checkFormat(kind string) error {
	_, err := g.format(report.Formats(kind)...)
	return err
}

// emit writes a command's one document in the -o format (docs/cli.md).
func (g *globalOptions) emit(d report.Doc) error {
	f, err := g.format(report.Formats(d.Kind())...)
	if err != nil {
		return err
	}
	if wd, ok := d.(report.Watched); ok && g.watch != nil {
		d = wd.WithWatch(g.watch)
	}
	if f != report.FormatJSON || !g.ndjson {
		if g.pagerWanted(f) {
			return g.emitPaged(f, d)
		}
		return report.Emit(g.ios.Out, g.style(), f, d)
	}
	// NDJSON (docs/cli.md "--watch"): one compact document per line.
	var doc, line bytes.Buffer
	if err := report.Emit(&doc, g.style(), f, d); err != nil {
		return err
	}
	if err := json.Compact(&line, doc.Bytes()); err != nil {
		return fmt.Errorf("encoding %s JSON: %w", d.Kind(), err)
	}
	line.WriteByte('\n')
	_, err = g.ios.Out.Write(line.Bytes())
	return err
}

// printf writes to the command's stdout.
func (g *globalOptions) printf(format string, a ...any) { fmt.Fprintf(g.ios.Out, format, a...) }

// dialContext is the TCP dialer of every HTTP fetch: nil is the system one;
// tests set IOStreams.DialContext to fail on any connection.
func (g *globalOptions) dialContext() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return g.ios.DialContext
}
