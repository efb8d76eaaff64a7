// Package watch is --watch [INTERVAL] (docs/cli.md "--watch"): one wrapper
// around any command's run function. It loads the command's source once, or
// every interval, keeps the series of snapshots taken so far (oldest first,
// so that diag can narrow pending ages with the change-point rule of
// apache/doris#69907) and hands each round to the run function with the one
// stream it writes to. It owns what a round looks like on the screen, on a
// pipe, as NDJSON and in an atomically replaced -f FILE; it knows nothing
// of any command. It opens no socket: the source it is given does.
package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// DefaultMaxKeep is how many snapshots the series keeps (one hour at the
// default 15 s interval).
const DefaultMaxKeep = 240

// Options are the --watch flags of one command.
type Options struct {
	Interval time.Duration // --watch: 0 runs once
	Rounds   int           // --watch-rounds: stop after N rounds (tests, cron); 0 = until interrupted
	File     string        // -f: write the output to FILE, replaced atomically each round
	MaxKeep  int           // snapshots kept in the series (0: DefaultMaxKeep)
	// FileMode is --file-mode: the permission bits of -f FILE; "" is 0644
	// for -o prom (a node_exporter textfile, read by another user), 0600
	// otherwise (docs/security.md "Files").
	FileMode string
	mode     fs.FileMode
}

// AddFlags adds --watch, --watch-rounds and -f to c, bound to o.
func AddFlags(c *cobra.Command, o *Options) {
	c.Flags().DurationVar(&o.Interval, "watch", 0, "repeat every INTERVAL (default 15s when given without a value): redraw on a TTY, append on a pipe; -o json writes one document per line")
	c.Flags().Lookup("watch").NoOptDefVal = "15s"
	c.Flags().IntVar(&o.Rounds, "watch-rounds", 0, "with --watch, stop after this many rounds (0 = until interrupted); the exit code is that of the last round")
	c.Flags().StringVarP(&o.File, "file", "f", "", "write the output to FILE instead of stdout, replaced atomically (each round with --watch; required with -o prom --watch; - is stdout)")
	c.Flags().StringVar(&o.FileMode, "file-mode", "", "octal permission bits of -f FILE (default 0644 with -o prom, a node_exporter textfile another user reads; 0600 otherwise)")
}

// Round is one call of a command's run function.
type Round struct {
	// Series is every snapshot taken so far, oldest first.
	Series []*snapshot.Snapshot
	// Watch is this round's "watch" field of the document; nil without
	// --watch.
	Watch *report.WatchRound
	// Out is the one stream the run writes its document to: the command's
	// stdout, or this round's buffer (-f FILE, --watch).
	Out io.Writer
}

// Func is a command's run over one round.
type Func func(Round) error

// Source is where each round's snapshots come from.
type Source interface {
	// Files reports a --snapshot series: fixed, never read again.
	Files() bool
	// Check validates the source flags without reading anything.
	Check() error
	// Load reads the source: the files, the scenario, or the cluster.
	Load() ([]*snapshot.Snapshot, error)
}

// Env is what the loop needs of the command line, given explicitly.
type Env struct {
	Out, Err io.Writer // the command's stdout and stderr
	IsTTY    bool      // stdout is a terminal: each round redraws the screen
	// Format is -o: json writes each round on one line (NDJSON); prom needs
	// -f FILE and gets the round's own series appended.
	Format report.Format
	// Cluster is the cluster label of the -o prom series (--cluster).
	Cluster string
	Source  Source
	// EmitError renders a failed round's watch_error document in the -o
	// format.
	EmitError func(w io.Writer, d report.Doc) error
	// Verdict reports an error that is the run's verdict (a --fail-on gate),
	// not a failure: the round's output is written, and the error is the
	// exit code's if the round is the last.
	Verdict func(error) bool
	// AfterRound, when set (tests only), is called after each round has
	// been written: a test closes its emulator there to make the next round
	// fail, without any timing.
	AfterRound func(round int)
}

// UsageError is a misuse of the --watch flags: the command maps it to its
// usage exit code (2, with the hint to --help).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// Run calls run once, or every o.Interval with --watch (docs/cli.md
// "--watch"). On a TTY each round redraws the screen; on a pipe rounds are
// appended, each under a header line; -o json writes one compact document
// per line (NDJSON), each with its "watch" field; with -f the file is
// replaced atomically each round. A round that fails writes a watch_error
// document instead of the command's, and old data is never written again as
// a new round's. It returns the error of the last round (so the exit code
// reflects the latest state: 2 if it failed).
func Run(o Options, env Env, run Func) error {
	if o.Interval < 0 {
		return usageErrorf("--watch %s: want a positive interval", o.Interval)
	}
	if o.File == "-" {
		o.File = "" // -f - is stdout
	}
	o.mode = fileio.Mode
	if env.Format == report.FormatProm {
		o.mode = fileio.TextfileMode
	}
	if o.FileMode != "" {
		m, err := fileio.ParseMode(o.FileMode)
		if err != nil {
			return usageErrorf("--file-mode: %v", err)
		}
		if o.File == "" {
			return usageErrorf("--file-mode needs -f FILE")
		}
		o.mode = m
	}
	// A device, FIFO or directory target is refused before any work.
	if o.File != "" {
		if _, err := fileio.CheckOutput(o.File); err != nil {
			return fmt.Errorf("-f: %w", err)
		}
	}
	if o.Interval == 0 {
		if o.Rounds != 0 {
			return usageErrorf("--watch-rounds needs --watch")
		}
		return once(o, env, run)
	}
	if env.Source.Files() {
		return usageErrorf("--watch needs a live cluster (--host) or --demo, not --snapshot files")
	}
	if env.Format == report.FormatProm && o.File == "" {
		return usageErrorf("-o prom --watch needs -f FILE: the textfile is replaced atomically each round (a temp file in the same directory, fsync, rename), never appended to")
	}
	if o.Rounds < 0 {
		return usageErrorf("--watch-rounds %d: want 0 (until interrupted) or a positive count", o.Rounds)
	}
	if err := env.Source.Check(); err != nil {
		return err
	}
	return loop(o, env, run)
}

// once is a run without --watch: straight to stdout, or into -f FILE.
func once(o Options, env Env, run Func) error {
	series, err := env.Source.Load()
	if err != nil {
		return err
	}
	if o.File == "" {
		return run(Round{Series: series, Out: env.Out})
	}
	var b bytes.Buffer
	rerr := run(Round{Series: series, Out: &b})
	if rerr != nil && !env.verdict(rerr) {
		return rerr
	}
	if err := writeFileAtomic(o.File, o.mode, b.Bytes()); err != nil {
		return err
	}
	return rerr
}

func (env Env) verdict(err error) bool { return env.Verdict != nil && env.Verdict(err) }

// loop is --watch: a round every interval until --watch-rounds or an
// interrupt.
func loop(o Options, env Env, run Func) error {
	maxKeep := o.MaxKeep
	if maxKeep <= 0 {
		maxKeep = DefaultMaxKeep
	}
	ndjson := env.Format == report.FormatJSON
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	defer signal.Stop(stop)

	var (
		series   []*snapshot.Snapshot
		last     error
		good     report.WatchRound // the last round that succeeded
		goodNow  time.Time         // its cluster time
		goodOut  []byte            // what it wrote (replayed, marked old, on a TTY)
		failing  report.WatchRound // first round of the current run of failures
		interval = o.Interval.String()
	)
	for round := 1; ; round++ {
		wr := report.WatchRound{Round: round, Time: time.Now().UTC(), Interval: interval}
		next, err := env.Source.Load()
		switch {
		case err != nil && round == 1:
			// Nothing has been shown yet: there is nothing to watch.
			return err
		case err != nil:
			if failing.Round == 0 {
				failing = wr
			}
			doc := report.WatchErrorDoc{Watch: wr, Error: err.Error(), FailingSince: failing.Time, FailingSinceRound: failing.Round,
				LastGoodRound: good.Round, LastGoodTime: good.Time, LastGoodClusterTime: goodNow}
			var b bytes.Buffer
			if eerr := env.EmitError(&b, doc); eerr != nil {
				return eerr
			}
			out, eerr := oneLine(b.Bytes(), ndjson)
			if eerr != nil {
				return eerr
			}
			last = fmt.Errorf("round %d: %w", round, err)
			if o.Rounds == 0 || round < o.Rounds {
				fmt.Fprintf(env.Err, "dorisdiag: %s\n", report.Sanitize(last.Error())) // the server's text, inert
			}
			if err := writeRound(o, env, ndjson, round, nil, out, goodOut); err != nil {
				return err
			}
		default:
			failing = report.WatchRound{}
			series = append(series, next...)
			if len(series) > maxKeep {
				series = series[len(series)-maxKeep:]
			}
			var b bytes.Buffer
			rerr := run(Round{Series: series, Watch: &wr, Out: &b})
			if rerr != nil && !env.verdict(rerr) {
				return rerr
			}
			out, err := oneLine(b.Bytes(), ndjson)
			if err != nil {
				return err
			}
			if env.Format == report.FormatProm {
				var p bytes.Buffer
				if err := report.WritePromCluster(&p, env.Cluster, report.WatchRoundProm(wr)); err != nil {
					return err
				}
				out = append(out, p.Bytes()...)
			}
			now := series[len(series)-1].Cluster.Now.UTC()
			header := fmt.Sprintf("# round %d at cluster time %s (every %s; %d snapshots in the series)\n", round, now.Format(time.RFC3339), o.Interval, len(series))
			if err := writeRound(o, env, ndjson, round, []byte(header), out, nil); err != nil {
				return err
			}
			last, good, goodNow, goodOut = rerr, wr, now, out
		}
		if env.AfterRound != nil {
			env.AfterRound(round)
		}
		if o.Rounds > 0 && round >= o.Rounds {
			return last
		}
		select {
		case <-stop:
			return last
		case <-time.After(o.Interval):
		}
	}
}

// oneLine is a round's document as one NDJSON line (-o json --watch: one
// compact document per line); other formats are returned as they are.
func oneLine(doc []byte, ndjson bool) ([]byte, error) {
	if !ndjson {
		return doc, nil
	}
	var line bytes.Buffer
	if err := json.Compact(&line, doc); err != nil {
		return nil, fmt.Errorf("encoding a --watch round as one JSON line: %w", err)
	}
	line.WriteByte('\n')
	return line.Bytes(), nil
}

// writeRound writes one round: to -f FILE (replaced atomically), as NDJSON
// lines, or as text under header (on a TTY after clearing the screen; a
// failed round there shows stale, the last good round's output, between
// two copies of its banner, which says how old it is: at the top, and at
// the bottom where a long output cannot scroll it off).
func writeRound(o Options, env Env, ndjson bool, round int, header, body, stale []byte) error {
	if o.File != "" {
		return writeFileAtomic(o.File, o.mode, body)
	}
	out := env.Out
	if ndjson {
		_, err := out.Write(body)
		return err
	}
	if env.IsTTY {
		io.WriteString(out, "\x1b[H\x1b[2J")
	} else if round > 1 {
		fmt.Fprintln(out)
	}
	out.Write(header)
	out.Write(body)
	if env.IsTTY && len(stale) > 0 {
		out.Write(stale)
		// The old output can be longer than the screen and scroll the
		// banner off the top: the banner is written again below it, so the
		// last lines on the screen — what stays visible — say that the data
		// is not current until a round succeeds (issue 25).
		out.Write([]byte("\n"))
		out.Write(body)
	}
	return nil
}

// writeFileAtomic replaces path with data (fileio.WriteAtomicMode: a temp
// file in the same directory, fsync, rename; a regular file or a new path
// only; mode from --file-mode). A reader sees the old file or the new one,
// never a half-written one.
func writeFileAtomic(path string, mode fs.FileMode, data []byte) error {
	if err := fileio.WriteFileAtomicMode(path, mode, data); err != nil {
		return fmt.Errorf("-f %s: %w", path, err)
	}
	return nil
}
