package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/spf13/cobra"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/scrape"
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
}

// System returns the real process streams.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, IsTTY: isTerminal(os.Stdout), Getenv: os.Getenv}
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
	// watch is the current --watch round, set while a round renders: emit
	// adds it to the document ("watch" field).
	watch *report.WatchRound
	// ndjson: -o json --watch writes each document compact, on one line.
	ndjson bool
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

func (g *globalOptions) style() report.Style { return report.NewStyle(g.ios.Out, g.color()) }

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
		if def == "\x00" { // validating: --fail-on was given empty
			return 0, usageErrorf("--fail-on \"\": want none, warning or critical")
		}
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

// splitHostPort accepts --host h:port (and [v6]:port): the port goes to
// --port, and a different explicit --port is a usage error.
func (g *globalOptions) splitHostPort(c *cobra.Command) error {
	h := g.Conn.Host
	if !strings.Contains(h, ":") {
		return nil
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		if strings.Count(h, ":") > 1 && !strings.Contains(h, "[") {
			return nil // a bare IPv6 address
		}
		return usageErrorf("--host %q: want HOST or HOST:PORT (%v)", h, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return usageErrorf("--host %q: the port is not a number from 1 to 65535", h)
	}
	if c.Flags().Changed("port") && g.Conn.Port != p {
		return usageErrorf("--host %q names port %d but --port is %d: give the port once", h, p, g.Conn.Port)
	}
	g.Conn.Host, g.Conn.Port = host, p
	return nil
}

// nearest lists the names closest to want (edit distance), for a usage
// error about a name that matches nothing.
func nearest(want string, names []string) string {
	seen := map[string]bool{}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		cs = append(cs, cand{n, levenshtein(strings.ToLower(want), strings.ToLower(n))})
	}
	if len(cs) == 0 {
		return " (there is none)"
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].name < cs[j].name })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return "; nearest: " + strings.Join(out, ", ")
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
