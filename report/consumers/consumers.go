// Package consumers renders the document of `dorisdiag consumers` (kind
// "consumers"): the external consumers (docs/consumers.md), worst first,
// then their findings. Its renderers register with report from an init.
package consumers

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/consumers"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Doc is `dorisdiag consumers` (kind "consumers").
type Doc struct {
	Now        time.Time `json:"now"`
	CurrentTSO string    `json:"current_tso"`
	// MinHeadroomThreshold and MaxPublishAgeThreshold are the thresholds
	// the findings were judged with (seconds); InSeconds is --in (absent
	// without it).
	MinHeadroomThreshold   float64  `json:"min_headroom_threshold_seconds"`
	MaxPublishAgeThreshold float64  `json:"max_publish_age_threshold_seconds"`
	InSeconds              *float64 `json:"in_seconds,omitempty"`
	// TTLEnforcement: does the build enforce the changelog TTL (yes, no,
	// unknown) and the evidence.
	TTLEnforcement *snapshot.TTLEnforcement `json:"ttl_enforcement,omitempty"`
	Consumers      []consumers.Consumer     `json:"consumers"`
	Findings       []diag.Finding           `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *report.WatchRound `json:"watch,omitempty"`
}

// Kind implements report.Doc.
func (Doc) Kind() string { return "consumers" }

// WithWatch implements report.Watched.
func (d Doc) WithWatch(w *report.WatchRound) report.Doc { d.Watch = w; return d }

func init() {
	report.Register("consumers", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return table(w, st, d.(Doc), narrow)
	})
	report.Register("consumers", report.FormatWide, func(w io.Writer, st report.Style, d report.Doc) error {
		return table(w, st, d.(Doc), 0)
	})
	report.Register("consumers", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		h, rows := Rows(report.Style{}, d.(Doc))
		if err := report.Markdown(w, h, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
		return report.FindingsMarkdown(w, d.(Doc).Findings)
	})
}

// narrow is how many columns the table format keeps (wide: all).
const narrow = 8

// Sort orders consumers worst first (severity, then headroom), then by name.
func Sort(cs []consumers.Consumer) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Worst != b.Worst {
			return a.Worst > b.Worst
		}
		if (a.HeadroomSeconds == nil) != (b.HeadroomSeconds == nil) {
			return a.HeadroomSeconds == nil
		}
		if a.HeadroomSeconds != nil && *a.HeadroomSeconds != *b.HeadroomSeconds {
			return *a.HeadroomSeconds < *b.HeadroomSeconds
		}
		return a.Name < b.Name
	})
}

// Rows is the table: one row per consumer, every column (the table format
// keeps the first narrow ones).
func Rows(st report.Style, d Doc) ([]string, [][]string) {
	h := []string{"CONSUMER", "STATE", "HEADROOM", "RESTART NOW", "RESTART IN", "OFFSET", "ZONE", "OFFSET UTC", "PUBLISHED AGO", "TYPE", "TTL", "SOURCE TABLE", "OFFSET TABLE", "CONSUMER ID", "RESTART WITH", "LOST"}
	if d.InSeconds != nil {
		h[4] = "RESTART IN " + report.Secs(d.InSeconds)
	}
	rows := make([][]string, 0, len(d.Consumers))
	for _, c := range d.Consumers {
		in := "-"
		if c.Restart.In != "" {
			in = string(c.Restart.In)
		}
		// The offset and its zone apart: a timestamp is never cut to fit
		// a terminal (report.Style.Table cuts only text columns), a zone
		// name may be.
		off, zone := "-", "-"
		if c.OffsetTimestamp != "" {
			off, zone = c.OffsetTimestamp, c.TimeZone
			if zone == "" {
				zone = "UTC?"
			}
			if c.TimeZoneSource != "configured" {
				zone += ", " + c.TimeZoneSource
			}
		}
		ttl := "-"
		if c.TTLSeconds != nil {
			ttl = tso.FormatDuration(*c.TTLSeconds * 1000)
		}
		lost := "-"
		if c.Restart.LostSeconds != nil {
			lost = report.Secs(c.Restart.LostSeconds) + " (" + c.Restart.LostFromUTC + " .. " + c.Restart.LostToUTC + ")"
		}
		state := string(c.State)
		if c.Error != "" {
			state += ": " + c.Error
		}
		restart := strings.Join(c.Restart.Options, " ")
		if restart == "" {
			restart = "-"
		}
		rows = append(rows, []string{c.Name, st.Severity(c.Severity, state), report.Secs(c.HeadroomSeconds), string(c.Restart.Now), in,
			off, zone, dash(c.OffsetUTC), report.Secs(c.PublishAgeSeconds), c.IncrementType, ttl, c.SourceTable, c.OffsetTable, c.ConsumerID, restart, lost})
	}
	return h, rows
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func table(w io.Writer, st report.Style, d Doc, cols int) error {
	fmt.Fprintf(w, "External consumers at cluster time %s (%d consumer(s); TTL enforced: %s)\n", d.Now.Format("2006-01-02T15:04:05Z"), len(d.Consumers), ttlVerdict(d))
	if len(d.Consumers) == 0 {
		fmt.Fprintln(w, "No consumer declared: list them under consumers: in the config file (docs/consumers.md).")
	} else {
		h, rows := Rows(st, d)
		h, rows = report.FirstColumns(cols, h, rows)
		if err := st.Table(w, h, rows); err != nil {
			return err
		}
		for _, c := range d.Consumers {
			if len(c.Restart.Options) > 0 {
				fmt.Fprintf(w, "  %s: restart with %s   # = %s\n", c.Name, strings.Join(c.Restart.Options, " "), c.Restart.TimestampUTC)
			}
		}
	}
	fmt.Fprintf(w, "\nFindings (%s):\n", report.CountBySeverity(d.Findings))
	return report.Findings(w, st, d.Findings)
}

func ttlVerdict(d Doc) string {
	if d.TTLEnforcement == nil {
		return snapshot.TTLUnknown
	}
	return d.TTLEnforcement.Verdict
}
