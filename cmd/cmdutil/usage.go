package cmdutil

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/shellquote"
)

// Usage errors are exit 2, everywhere (docs/cli.md "Exit codes"): a CI step
// with a typo must never be green. This file holds the rules that are not
// one command's own: unknown subcommands, --fail-on "", --host h:port,
// --password, and the "nearest names" of a name that matches nothing.

// guardSubcommands walks the tree: every command with subcommands rejects an
// unknown one with cobra's "did you mean" suggestions. Without it cobra
// prints a group's help and exits 0 for "mv lsit" (a group has no RunE, so
// cobra never validates its arguments).
func GuardSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		GuardSubcommands(sub)
	}
	if !c.HasSubCommands() {
		return
	}
	c.SuggestionsMinimumDistance = 2
	orig := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 && (orig == nil || orig(cmd, args) != nil) {
			return unknownSubcommand(cmd, args[0])
		}
		return nil
	}
	if c.Runnable() {
		return
	}
	// A bare group ("dorisdiag mv") is a request for help: exit 0. A group
	// given flags ("dorisdiag mv --fail-on warning") meant to run something:
	// exit 2, naming the subcommands.
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if cmd.Flags().NFlag() == 0 {
			return cmd.Help()
		}
		return UsageErrorf("%q needs a subcommand: %s", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "))
	}
}

func unknownSubcommand(c *cobra.Command, arg string) error {
	msg := fmt.Sprintf("unknown command %q for %q", arg, c.CommandPath())
	if s := c.SuggestionsFor(arg); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", quoteJoin(s, " or "))
	}
	return UsageErrorf("%s (commands: %s)", msg, strings.Join(subcommandNames(c), ", "))
}

func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return names
}

func quoteJoin(ss []string, sep string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, sep)
}

// passwordRefused is the message of --password: the flag exists (hidden) only
// to say this, rather than "unknown flag". The value is never echoed.
const PasswordRefused = "--password is not accepted: a password on the command line is visible in ps and the shell history; set DORISDIAG_PASSWORD (or MYSQL_PWD) in the environment instead"

// checkGlobalUsage validates the global flags every command shares, before
// any work: --fail-on given empty, --password, --host h:port. It runs as the
// root's pre-run, while the flags are still being read: --host HOST:PORT is
// normalised into --host and --port here, before any command copies them.
func CheckGlobalUsage(c *cobra.Command, cfg *Config) error {
	if f := c.Flags().Lookup("password"); f != nil && f.Changed {
		return UsageErrorf("%s", PasswordRefused)
	}
	if f := c.Flags().Lookup("fail-on"); f != nil && f.Changed && strings.TrimSpace(cfg.FailOn) == "" {
		return UsageErrorf("--fail-on %q: want none, warning or critical (omit the flag for the command's default)", cfg.FailOn)
	}
	portFlag := c.Flags().Lookup("port")
	if portFlag != nil && portFlag.Changed && cfg.Conn.Port == cfg.Conn.HTTPPort {
		// The MySQL client would wait the whole --timeout for a handshake
		// the HTTP server never sends.
		return UsageErrorf("--port %d is the HTTP port (--http-port): --port is the FE's MySQL-protocol port (query_port, default 9030)", cfg.Conn.Port)
	}
	return cfg.Conn.SplitHostPort(portFlag != nil && portFlag.Changed)
}

// SplitHostPort accepts --host HOST:PORT (and [IPv6]:PORT) as --host HOST
// --port PORT; PORT is the MySQL-protocol port. A different explicit --port
// is a conflict, and the HTTP port given as the query port is caught.
func (o *ConnOptions) SplitHostPort(portGiven bool) error {
	h := o.Host
	if h == "" {
		return nil
	}
	if strings.Contains(h, "/") {
		return UsageErrorf("--host %q: want a host name or address, optionally with :PORT (the MySQL port), not a URL", h)
	}
	if !strings.Contains(h, ":") || net.ParseIP(h) != nil { // bare IPv6 has colons and no port
		return nil
	}
	host, portStr, err := net.SplitHostPort(h)
	if err != nil || host == "" {
		return UsageErrorf("--host %q: want HOST or HOST:PORT ([IPv6]:PORT)", h)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return UsageErrorf("--host %q: port %q is not a port number (want 1–65535)", h, portStr)
	}
	if portGiven && port != o.Port {
		return UsageErrorf("--host %q and --port %d name two different ports: give the port once", h, o.Port)
	}
	if port == o.HTTPPort && port != o.Port {
		return UsageErrorf("--host %q: %d is the HTTP port (--http-port); the port in --host is the MySQL-protocol port (--port, default 9030)", h, port)
	}
	o.Host, o.Port = host, port
	return nil
}

// nearestNames returns the candidates closest to name (case-insensitive
// edit distance, at most max of them, nearest first, ties in name order),
// for an error that names what exists instead.
func NearestNames(name string, candidates []string, max int) []string {
	seen := map[string]bool{}
	type cand struct {
		s string
		d int
	}
	var cs []cand
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		cs = append(cs, cand{c, Levenshtein(strings.ToLower(name), strings.ToLower(c))})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].s < cs[j].s
	})
	var out []string
	for i := 0; i < len(cs) && i < max; i++ {
		out = append(out, cs[i].s)
	}
	return out
}

// noMatch is the usage error of a name that matches nothing: what was asked,
// how many exist, and the nearest ones ("%s %q%s": before, name, after).
func NoMatch(before, name, after string, candidates []string) error {
	all := NearestNames(name, candidates, len(candidates))
	if len(all) == 0 {
		return UsageErrorf("%s %q%s (the snapshot has none)", before, name, after)
	}
	near := all[:min(5, len(all))]
	for i, n := range near {
		near[i] = shellquote.Quote(n) // pasteable as the flag's value
	}
	return UsageErrorf("%s %q%s (%d in the snapshot; nearest: %s)", before, name, after, len(all), strings.Join(near, ", "))
}

func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func ContainsFold(ss []string, s string) bool {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func Contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
