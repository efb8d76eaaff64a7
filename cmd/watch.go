package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// watchOptions is --watch [INTERVAL]: repeat a command, keeping the series of
// snapshots it took (oldest first) so that diag can narrow pending ages with
// the seed's change-point rule.
type watchOptions struct {
	Interval time.Duration
	Rounds   int    // --watch-rounds: stop after N rounds (tests, cron); 0 = until interrupted
	File     string // -f: write the output to FILE, replaced atomically each round
	MaxKeep  int    // snapshots kept in the series
}

func addWatchFlags(c *cobra.Command, w *watchOptions) {
	c.Flags().DurationVar(&w.Interval, "watch", 0, "repeat every INTERVAL (default 15s when given without a value): redraw on a TTY, append on a pipe; -o json writes one document per line")
	c.Flags().Lookup("watch").NoOptDefVal = "15s"
	c.Flags().IntVar(&w.Rounds, "watch-rounds", 0, "with --watch, stop after this many rounds (0 = until interrupted); the exit code is that of the last round")
	c.Flags().StringVarP(&w.File, "file", "f", "", "write the output to FILE instead of stdout, replaced atomically, mode 0600 (each round with --watch; required with -o prom --watch; - is stdout)")
	w.MaxKeep = 240
}

// watchAfterRound, when set (tests only), is called after each --watch
// round has been written: a test closes its emulator there to make the next
// round fail, without any timing.
var watchAfterRound func(round int)

// runWatch loads snapshots once, or every interval with --watch, and calls
// render with the series so far (docs/cli.md "--watch"). On a TTY each round
// redraws the screen; on a pipe rounds are appended, each under a header
// line; -o json writes one compact document per line (NDJSON), each with its
// "watch" field; with -f the file is replaced atomically each round. A round
// that fails writes a watch_error document instead of the command's, and
// old data is never written again as a new round's. It returns the error of
// the last round (so the exit code reflects the latest state: 2 if it
// failed).
func (g *globalOptions) runWatch(w watchOptions, render func(series []*snapshot.Snapshot) error) error {
	if w.Interval < 0 {
		return usageErrorf("--watch %s: want a positive interval", w.Interval)
	}
	if w.File == "-" {
		w.File = "" // -f - is stdout
	}
	// A device, FIFO or directory target is refused before any work.
	if err := checkOutput(w.File); err != nil {
		return fmt.Errorf("-f: %w", err)
	}
	if w.Interval == 0 {
		if w.Rounds != 0 {
			return usageErrorf("--watch-rounds needs --watch")
		}
		series, err := g.loadSnapshots()
		if err != nil {
			return err
		}
		if w.File == "" {
			return render(series)
		}
		out, rerr := g.capture(func() error { return render(series) })
		if rerr != nil && rerr != errFindings {
			return rerr
		}
		if err := writeFileAtomic(w.File, out); err != nil {
			return err
		}
		return rerr
	}
	if len(g.Source.Snapshots) > 0 {
		return usageErrorf("--watch needs a live cluster (--host) or --demo, not --snapshot files")
	}
	if g.Output == string(report.FormatProm) && w.File == "" {
		return usageErrorf("-o prom --watch needs -f FILE: the textfile is replaced atomically each round (a temp file in the same directory, fsync, rename), never appended to")
	}
	if w.Rounds < 0 {
		return usageErrorf("--watch-rounds %d: want 0 (until interrupted) or a positive count", w.Rounds)
	}
	if _, err := g.sourceKind(); err != nil {
		return err
	}
	g.ndjson = g.Output == string(report.FormatJSON)
	defer func() { g.ndjson, g.watch = false, nil }()
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
		interval = w.Interval.String()
	)
	for round := 1; ; round++ {
		wr := report.WatchRound{Round: round, Time: time.Now().UTC(), Interval: interval}
		next, err := g.loadSnapshots()
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
			out, eerr := g.capture(func() error { return g.emit(doc) })
			if eerr != nil {
				return eerr
			}
			last = fmt.Errorf("round %d: %w", round, err)
			if w.Rounds == 0 || round < w.Rounds {
				fmt.Fprintf(g.ios.Err, "dorisdiag: %v\n", last)
			}
			if err := g.writeRound(w, round, nil, out, goodOut); err != nil {
				return err
			}
		default:
			failing = report.WatchRound{}
			series = append(series, next...)
			if len(series) > w.MaxKeep {
				series = series[len(series)-w.MaxKeep:]
			}
			g.watch = &wr
			out, rerr := g.capture(func() error { return render(series) })
			g.watch = nil
			if rerr != nil && rerr != errFindings {
				return rerr
			}
			if g.Output == string(report.FormatProm) {
				var b bytes.Buffer
				if err := report.WriteProm(&b, report.WatchRoundProm(wr)); err != nil {
					return err
				}
				out = append(out, b.Bytes()...)
			}
			now := series[len(series)-1].Cluster.Now.UTC()
			header := fmt.Sprintf("# round %d at cluster time %s (every %s; %d snapshots in the series)\n", round, now.Format(time.RFC3339), w.Interval, len(series))
			if err := g.writeRound(w, round, []byte(header), out, nil); err != nil {
				return err
			}
			last, good, goodNow, goodOut = rerr, wr, now, out
		}
		if watchAfterRound != nil {
			watchAfterRound(round)
		}
		if w.Rounds > 0 && round >= w.Rounds {
			return last
		}
		select {
		case <-stop:
			return last
		case <-time.After(w.Interval):
		}
	}
}

// capture runs fn with the command's stdout redirected to a buffer.
func (g *globalOptions) capture(fn func() error) ([]byte, error) {
	var b bytes.Buffer
	saved := g.ios.Out
	g.ios.Out = &b
	defer func() { g.ios.Out = saved }()
	err := fn()
	return b.Bytes(), err
}

// writeRound writes one round: to -f FILE (replaced atomically), as NDJSON
// lines, or as text under header (on a TTY after clearing the screen; a
// failed round there shows stale, the last good round's output, below its
// banner, which says how old it is).
func (g *globalOptions) writeRound(w watchOptions, round int, header, body, stale []byte) error {
	if w.File != "" {
		return writeFileAtomic(w.File, body)
	}
	out := g.ios.Out
	if g.ndjson {
		_, err := out.Write(body)
		return err
	}
	if g.ios.IsTTY {
		io.WriteString(out, "\x1b[H\x1b[2J")
	} else if round > 1 {
		fmt.Fprintln(out)
	}
	out.Write(header)
	out.Write(body)
	if g.ios.IsTTY && len(stale) > 0 {
		out.Write(stale)
	}
	return nil
}

// writeFileAtomic replaces path with data (fileio.WriteAtomic: a temp file
// in the same directory, fsync, rename; a regular file or a new path only;
// mode 0600). A reader sees the old file or the new one, never a
// half-written one.
func writeFileAtomic(path string, data []byte) error {
	if err := fileio.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("-f %s: %w", path, err)
	}
	return nil
}
