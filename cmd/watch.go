package cmd

import (
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// watchOptions is --watch [INTERVAL]: repeat a command, keeping the series of
// snapshots it took (oldest first) so that diag can narrow pending ages with
// the seed's change-point rule.
type watchOptions struct {
	Interval time.Duration
	Rounds   int // --watch-rounds: stop after N rounds (tests, cron); 0 = until interrupted
	MaxKeep  int // snapshots kept in the series
}

func addWatchFlags(c *cobra.Command, w *watchOptions) {
	c.Flags().DurationVar(&w.Interval, "watch", 0, "repeat every INTERVAL (default 15s when given without a value): redraw on a TTY, append on a pipe")
	c.Flags().Lookup("watch").NoOptDefVal = "15s"
	c.Flags().IntVar(&w.Rounds, "watch-rounds", 0, "with --watch, stop after this many rounds (0 = until interrupted)")
	w.MaxKeep = 240
}

// runWatch loads snapshots once, or every interval with --watch, and calls
// render with the series so far. On a TTY each round redraws the screen; on a
// pipe rounds are appended, each under a header line. It returns the error of
// the last round (so the exit code reflects the latest state).
func (g *globalOptions) runWatch(w watchOptions, render func(series []*snapshot.Snapshot) error) error {
	if w.Interval < 0 {
		return usageErrorf("--watch %s: want a positive interval", w.Interval)
	}
	series, err := g.loadSnapshots()
	if err != nil {
		return err
	}
	if w.Interval == 0 {
		return render(series)
	}
	if len(g.Source.Snapshots) > 0 {
		return usageErrorf("--watch needs a live cluster (--host) or --demo, not --snapshot files")
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	defer signal.Stop(stop)
	var last error
	for round := 1; ; round++ {
		if g.ios.IsTTY {
			fmt.Fprint(g.ios.Out, "\x1b[H\x1b[2J")
		} else if round > 1 {
			fmt.Fprintln(g.ios.Out)
		}
		now := series[len(series)-1].Cluster.Now.UTC().Format(time.RFC3339)
		fmt.Fprintf(g.ios.Out, "# round %d at cluster time %s (every %s; %d snapshots in the series)\n", round, now, w.Interval, len(series))
		last = render(series)
		if last != nil && last != errFindings {
			return last
		}
		if w.Rounds > 0 && round >= w.Rounds {
			return last
		}
		select {
		case <-stop:
			return last
		case <-time.After(w.Interval):
		}
		next, err := g.loadSnapshots()
		if err != nil {
			// A failed round is reported and the watch goes on: the on-call
			// engineer still sees the last good picture above.
			fmt.Fprintf(g.ios.Err, "dorisdiag: round %d: %v\n", round+1, err)
			continue
		}
		series = append(series, next...)
		if len(series) > w.MaxKeep {
			series = series[len(series)-w.MaxKeep:]
		}
	}
}
