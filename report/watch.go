package report

import (
	"fmt"
	"io"
	"time"
)

// WatchRound is the "watch" field of every document a --watch round writes
// (docs/cli.md "--watch"): which round it is and when it ran. It is absent
// without --watch.
type WatchRound struct {
	Round int `json:"round"`
	// Time is the wall clock of this machine when the round ran (the
	// document's "now" is the cluster's time).
	Time     time.Time `json:"time"`
	Interval string    `json:"interval"`
}

// Watched is a document that can carry the "watch" field.
type Watched interface {
	Doc
	WithWatch(*WatchRound) Doc
}

// WatchErrorDoc (kind "watch_error") is what a --watch round that failed
// writes instead of its command's document: what failed, since when, and
// which earlier round the last data shown comes from. Old data is never
// written again under a new round.
type WatchErrorDoc struct {
	Watch WatchRound `json:"watch"`
	// Error is what failed, as the exit line would say it.
	Error string `json:"error"`
	// FailingSince and FailingSinceRound: the first round of the current
	// run of failures.
	FailingSince      time.Time `json:"failing_since"`
	FailingSinceRound int       `json:"failing_since_round"`
	// LastGood*: the last round that succeeded (its data is the newest
	// there is), when it ran and the cluster time of its snapshot.
	LastGoodRound       int       `json:"last_good_round"`
	LastGoodTime        time.Time `json:"last_good_time"`
	LastGoodClusterTime time.Time `json:"last_good_cluster_time"`
}

// Kind implements Doc.
func (WatchErrorDoc) Kind() string { return "watch_error" }

// Banner is the text of a failed round, two lines, for the top of the
// screen (TTY) or between rounds (pipe).
func (d WatchErrorDoc) Banner() string {
	age := d.Watch.Time.Sub(d.LastGoodTime).Round(time.Second)
	return fmt.Sprintf("# round %d FAILED at %s: %s\n# failing since round %d (%s); the newest data is from round %d (cluster time %s), %s old: it is not current\n",
		d.Watch.Round, d.Watch.Time.UTC().Format(time.RFC3339), d.Error,
		d.FailingSinceRound, d.FailingSince.UTC().Format(time.RFC3339),
		d.LastGoodRound, d.LastGoodClusterTime.UTC().Format(time.RFC3339), age)
}

// WatchErrorProm is the -o prom file of a failed round: only these
// families, so that no finding count of an old round is exported as
// current (docs/check.md "-o prom").
func WatchErrorProm(d WatchErrorDoc) []PromFamily {
	one := func(v float64) []PromSample { return []PromSample{{Value: v}} }
	return []PromFamily{
		{Name: "dorisdiag_watch_round_failed", Help: "1 when the latest --watch round failed to collect or analyse: the check families are absent until a round succeeds.", Samples: one(1)},
		{Name: "dorisdiag_watch_round", Help: "Number of the latest --watch round.", Samples: one(float64(d.Watch.Round))},
		{Name: "dorisdiag_watch_failing_since_timestamp_seconds", Help: "Wall-clock time of the first round of the current run of failed rounds.", Samples: one(float64(d.FailingSince.UnixMilli()) / 1000)},
		{Name: "dorisdiag_watch_last_success_timestamp_seconds", Help: "Wall-clock time of the last --watch round that succeeded.", Samples: one(float64(d.LastGoodTime.UnixMilli()) / 1000)},
	}
}

// WatchRoundProm are the families a successful --watch round adds to the
// -o prom file of its command.
func WatchRoundProm(w WatchRound) []PromFamily {
	one := func(v float64) []PromSample { return []PromSample{{Value: v}} }
	return []PromFamily{
		{Name: "dorisdiag_watch_round_failed", Help: "1 when the latest --watch round failed to collect or analyse: the check families are absent until a round succeeds.", Samples: one(0)},
		{Name: "dorisdiag_watch_round", Help: "Number of the latest --watch round.", Samples: one(float64(w.Round))},
		{Name: "dorisdiag_watch_last_success_timestamp_seconds", Help: "Wall-clock time of the last --watch round that succeeded.", Samples: one(float64(w.Time.UnixMilli()) / 1000)},
	}
}

func init() {
	banner := func(w io.Writer, _ Style, d Doc) error {
		_, err := io.WriteString(w, d.(WatchErrorDoc).Banner())
		return err
	}
	Register("watch_error", FormatTable, banner)
	Register("watch_error", FormatWide, banner)
	Register("watch_error", FormatMarkdown, banner)
	Register("watch_error", FormatProm, func(w io.Writer, _ Style, d Doc) error { return WriteProm(w, WatchErrorProm(d.(WatchErrorDoc))) })
}

// WithWatch implements Watched.
func (d CheckDoc) WithWatch(w *WatchRound) Doc { d.Watch = w; return d }

// WithWatch implements Watched.
func (d StreamsDoc) WithWatch(w *WatchRound) Doc { d.Watch = w; return d }

// WithWatch implements Watched.
func (d StreamDoc) WithWatch(w *WatchRound) Doc { d.Watch = w; return d }
