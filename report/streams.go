package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// HeadroomBarWidth is the width of the headroom bar in cells.
const HeadroomBarWidth = 8

// HeadroomBar draws the share of the TTL a headroom has left: full = a whole
// TTL, empty = expired. Only on a colour terminal (st.Color()); "" otherwise,
// so pipes and goldens stay plain. The colour is the severity, so the worst
// partition is seen before it is read.
func HeadroomBar(st Style, fraction *float64, severity string) string {
	if !st.Color() || fraction == nil {
		return ""
	}
	f := math.Min(1, math.Max(0, *fraction))
	full := int(math.Round(f * HeadroomBarWidth))
	if f > 0 && full == 0 {
		full = 1 // a sliver left is not "expired"
	}
	bar := strings.Repeat("█", full) + strings.Repeat("░", HeadroomBarWidth-full)
	sev := severity
	if sev == "" {
		sev = "ok"
	}
	return st.Severity(sev, bar)
}

// Secs renders seconds as a duration ("-" when unknown).
func Secs(v *float64) string {
	if v == nil {
		return "-"
	}
	return tso.FormatDuration(int64(math.Round(*v * 1000)))
}

// AgeValue renders a value with its precision: "5m03s", "≤26h00m" for an
// upper bound, "?" when unknown.
func AgeValue(v diag.Value) string {
	if v.Seconds == nil {
		if v.Lower != nil {
			return "≥" + Secs(v.Lower)
		}
		return "?"
	}
	s := Secs(v.Seconds)
	if v.Precision == diag.PrecisionUpperBound && *v.Seconds > 0 {
		s = "≤" + s
	}
	return s
}

func boolCell(b *bool) string {
	if b == nil {
		return "-"
	}
	if *b {
		return "yes"
	}
	return "NO"
}

func headroomCell(st Style, h *float64, frac *float64, sev string) string {
	if h == nil {
		return "-"
	}
	s := Secs(h)
	if bar := HeadroomBar(st, frac, sev); bar != "" {
		s = bar + " " + s
	}
	return s
}

// streamFraction is the stream's smallest headroom as a share of its TTL.
func streamFraction(s *streams.Stream) *float64 {
	if s.MinHeadroomSeconds == nil || s.TTLSeconds == nil || *s.TTLSeconds <= 0 {
		return nil
	}
	f := math.Min(1, math.Max(0, *s.MinHeadroomSeconds/float64(*s.TTLSeconds)))
	return &f
}

func mode(s *streams.Stream) string {
	if s.ConsumeType != "" && s.ReadMode != "" && !strings.EqualFold(s.ConsumeType, s.ReadMode) {
		return s.ConsumeType + "→" + s.ReadMode
	}
	if s.ConsumeType == "" {
		return s.ReadMode
	}
	return s.ConsumeType
}

// StreamsDoc is the document of `streams` (kind "streams"): the streams and
// findings the flags selected.
type StreamsDoc struct {
	Now                  time.Time `json:"now"`
	CurrentTSO           string    `json:"current_tso"`
	Snapshots            int       `json:"snapshots"`
	MinHeadroomThreshold float64   `json:"min_headroom_threshold_seconds"`
	MaxPendingThreshold  float64   `json:"max_pending_threshold_seconds"`
	// TTLEnforcement: does the build enforce the changelog TTL (yes, no,
	// unknown) and the evidence (docs/streams.md "Does this build enforce
	// the TTL?"); absent in documents that predate it.
	TTLEnforcement *snapshot.TTLEnforcement `json:"ttl_enforcement,omitempty"`
	Streams        []streams.Stream         `json:"streams"`
	Findings       []diag.Finding           `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *WatchRound `json:"watch,omitempty"`
}

// Kind implements Doc.
func (StreamsDoc) Kind() string { return "streams" }

// StreamDoc is the document of `streams show` (kind "stream").
type StreamDoc struct {
	Now        time.Time       `json:"now"`
	CurrentTSO string          `json:"current_tso"`
	Snapshots  int             `json:"snapshots"`
	Stream     *streams.Stream `json:"stream"`
	Findings   []diag.Finding  `json:"findings"`
	// Watch: the --watch round (absent without --watch).
	Watch *WatchRound `json:"watch,omitempty"`
}

// Kind implements Doc.
func (StreamDoc) Kind() string { return "stream" }

func init() {
	Register("streams", FormatTable, func(w io.Writer, st Style, d Doc) error { return streamsTable(w, st, d.(StreamsDoc), streamsNarrow) })
	Register("streams", FormatWide, func(w io.Writer, st Style, d Doc) error { return streamsTable(w, st, d.(StreamsDoc), 0) })
	Register("streams", FormatMarkdown, func(w io.Writer, _ Style, d Doc) error { return streamsMarkdown(w, d.(StreamsDoc)) })
	// streams show has one table; wide is accepted and prints it.
	show := func(w io.Writer, st Style, d Doc) error { return StreamShow(w, st, d.(StreamDoc)) }
	Register("stream", FormatTable, show)
	Register("stream", FormatWide, show)
	Register("stream", FormatMarkdown, func(w io.Writer, _ Style, d Doc) error { return streamShowMarkdown(w, d.(StreamDoc)) })
}

// streamsNarrow is how many columns of streamsRows the table format keeps
// (wide and markdown keep them all).
const streamsNarrow = 9

// streamsRows is the `streams` table: one row per stream, worst first, with
// every column (the table format cuts them to streamsNarrow).
func streamsRows(st Style, ss []streams.Stream) ([]string, [][]string) {
	// Columns by importance: a narrow terminal leaves the last ones to -o wide.
	h := []string{"STREAM", "STATE", "MAX PENDING AGE", "MIN HEADROOM", "CAN RESUME", "PENDING", "KIND", "MODE", "PRECISION",
		"NEXT READ", "TTL", "BASE TABLE", "MV"}
	rows := make([][]string, 0, len(ss))
	for i := range ss {
		s := &ss[i]
		prec := string(s.MaxPendingAge.Precision)
		if s.MaxPendingAge.Source == diag.SourceServer {
			prec += " (server)"
		}
		base := "(dropped)"
		if !s.BaseTableDropped {
			base = s.BaseTableDB + "." + s.BaseTableName
		}
		mv := "-"
		if s.Kind == streams.KindIVM {
			mv = s.MVName
			if s.MVID != nil {
				mv += " (" + strconv.FormatInt(*s.MVID, 10) + ")"
			}
		}
		ttl := "-"
		if s.TTLSeconds != nil {
			ttl = tso.FormatDuration(*s.TTLSeconds * 1000)
		}
		rows = append(rows, []string{s.DB + "." + s.Name, st.Severity(string(s.State), string(s.State)), AgeValue(s.MaxPendingAge),
			headroomCell(st, s.MinHeadroomSeconds, streamFraction(s), s.Severity), boolCell(s.CanResume), strconv.Itoa(s.PendingPartitions),
			string(s.Kind), mode(s), prec, s.NextRead, ttl, base, strings.TrimSpace(mv)})
	}
	return h, rows
}

// FirstColumns keeps the first n columns of a table (n <= 0: all of them).
func FirstColumns(n int, h []string, rows [][]string) ([]string, [][]string) {
	if n <= 0 || n >= len(h) {
		return h, rows
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:n]
	}
	return h[:n], out
}

// streamsTable writes the `streams` table (the first cols columns) and the
// findings under it.
func streamsTable(w io.Writer, st Style, d StreamsDoc, cols int) error {
	fmt.Fprintf(w, "Streams at cluster time %s (%d stream(s), %d snapshot(s))\n", d.Now.Format("2006-01-02T15:04:05Z"), len(d.Streams), d.Snapshots)
	h, rows := streamsRows(st, d.Streams)
	h, rows = FirstColumns(cols, h, rows)
	if err := st.Table(w, h, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nFindings (%s):\n", CountBySeverity(d.Findings))
	return Findings(w, st, d.Findings)
}

// streamsMarkdown writes every column of the `streams` table as markdown,
// then the findings.
func streamsMarkdown(w io.Writer, d StreamsDoc) error {
	h, rows := streamsRows(Style{}, d.Streams)
	if err := Markdown(w, h, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return FindingsMarkdown(w, d.Findings)
}

// PartitionRows is the per-partition table of `streams show`, worst first.
// Columns by importance: what the next read does and what is lost come
// before the raw offset, so a narrow terminal leaves the raw ones to -o wide.
func PartitionRows(st Style, s *streams.Stream) ([]string, [][]string) {
	h := []string{"PARTITION", "NEXT READ", "LOST", "HEADROOM", "CAN RESUME", "PENDING AGE", "OFFSET", "GAP", "CAUGHT UP", "PRECISION", "CONSUMED TSO"}
	rows := make([][]string, 0, len(s.Partitions))
	for i := range s.Partitions {
		p := &s.Partitions[i]
		consumed := "-"
		if p.ConsumedTSO != nil {
			consumed = p.ConsumedTSO.String()
		}
		lost := "-"
		switch {
		case p.LostWindowMs != nil:
			lost = tso.FormatDuration(*p.LostWindowMs)
		case p.RowsSkipped == "yes":
			lost = "rows"
		case p.RowsSkipped == "may":
			lost = "rows?"
		}
		gap := Secs(p.PositionGapSeconds)
		if p.LagInVersions {
			gap = p.Lag + " versions"
		}
		read := p.NextRead
		if read != streams.NextReadProceed {
			read = st.Severity(sevOr(p.Severity, "warning"), strings.ToUpper(read))
		}
		rows = append(rows, []string{p.Unit, read, lost, headroomCell(st, p.HeadroomSeconds, p.HeadroomFraction, p.Severity), boolCell(p.CanResume),
			AgeValue(p.PendingAge), string(p.OffsetState), gap, boolCell(p.CaughtUp), string(p.PendingAge.Precision), consumed})
	}
	return h, rows
}

func sevOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// StreamShow writes `streams show`: identity, the partitions worst first,
// the verdict paragraph and the stream's findings.
func StreamShow(w io.Writer, st Style, d StreamDoc) error {
	s, fs := d.Stream, d.Findings
	// The name whole (cut in the middle only when wider than the terminal),
	// what it is after it, or on the next line when both do not fit.
	rest := fmt.Sprintf("%s stream, %s, state %s", s.Kind, orDash(mode(s)), st.Severity(string(s.State), string(s.State)))
	name := Sanitize(s.DB + "." + s.Name)
	if st.width > 0 {
		name = Truncate(name, st.width)
	}
	if st.width > 0 && TextWidth(name)+2+TextWidth(rest) > st.width {
		fmt.Fprintf(w, "%s\n  %s\n", st.Bold(name), rest)
	} else {
		fmt.Fprintf(w, "%s  %s\n", st.Bold(name), rest)
	}
	st.Para(w, "  ", "    ", fmt.Sprintf("id %d; %s", s.ID, s.StateReason))
	if s.BaseTableDropped {
		fmt.Fprintln(w, "  base table: dropped (N/A)")
	} else {
		fmt.Fprintf(w, "  base table: %s", Sanitize(s.BaseTableDB+"."+s.BaseTableName))
		if s.KeyModel != "" {
			fmt.Fprintf(w, " (%s)", s.KeyModel)
		}
		fmt.Fprintln(w)
	}
	if s.Kind == streams.KindIVM {
		id := ""
		if s.MVID != nil {
			id = " (id " + strconv.FormatInt(*s.MVID, 10) + ")"
		}
		fmt.Fprintf(w, "  owner MV: %s%s\n", Sanitize(orDash(s.MVName)), id)
	}
	if s.TTLSeconds != nil {
		fmt.Fprintf(w, "  TTL: %s = %d (%s)", Sanitize(s.TTLProperty), *s.TTLSeconds, tso.FormatDuration(*s.TTLSeconds*1000))
		if s.TTLSource != "" {
			fmt.Fprintf(w, ", from %s", Sanitize(s.TTLSource))
		}
		fmt.Fprintln(w)
	}
	if s.TTLNote != "" {
		st.Para(w, "  ", "    ", "TTL note: "+s.TTLNote)
	}
	if s.ReadModeNote != "" {
		st.Para(w, "  ", "    ", "read mode: "+s.ReadModeNote)
	}
	if sv := s.Server; sv != nil {
		st.Para(w, "  ", "    ", fmt.Sprintf("server: state %s, can_resume %s, min headroom %s, max pending age %s %s, sampled %s ago",
			strOr(sv.MonitorState), boolCell(sv.CanResume), Secs(sv.MinRetentionHeadroomSeconds), Secs(sv.MaxPendingAgeSeconds), strOr(sv.PendingAgePrecision), Secs(sv.SampleAgeSeconds)))
	}
	if r := s.Rates; r != nil {
		st.Para(w, "  ", "    ", fmt.Sprintf("rates over %s: consumer %s, source %s; catch up in %s; TTL reaches the offset in %s",
			Secs(&r.WindowSeconds), rate(r.ConsumerRate), rate(r.SourceRate), Secs(r.CatchUpETASeconds), Secs(r.TTLETASeconds)))
	}
	fmt.Fprintln(w)
	h, rows := PartitionRows(st, s)
	if err := st.Table(w, h, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, st.Bold("Verdict"))
	for _, v := range s.Verdict {
		st.Para(w, "  ", "  ", v)
	}
	var notes []string
	for _, p := range s.Partitions {
		if p.NextReadNote != "" && p.NextRead != streams.NextReadProceed {
			notes = append(notes, p.Unit+": "+p.NextReadNote)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, st.Bold("Next read, per partition"))
		for _, n := range notes {
			st.Para(w, "  ", "    ", n)
		}
	}
	fmt.Fprintf(w, "\nFindings (%s):\n", CountBySeverity(fs))
	return Findings(w, st, fs)
}

// streamShowMarkdown is `streams show -o markdown`.
func streamShowMarkdown(w io.Writer, d StreamDoc) error {
	s, fs := d.Stream, d.Findings
	fmt.Fprintf(w, "### %s (%s, %s, %s)\n\n", Sanitize(s.DB+"."+s.Name), s.Kind, orDash(mode(s)), s.State)
	h, rows := PartitionRows(Style{}, s)
	if err := Markdown(w, h, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, v := range s.Verdict {
		fmt.Fprintf(w, "%s\n\n", v)
	}
	return FindingsMarkdown(w, fs)
}

func rate(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64) + "×"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func strOr(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}
