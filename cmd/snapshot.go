package cmd

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// snapshotOptions are the flags of `dorisdiag snapshot`.
type snapshotOptions struct {
	File        string
	Summary     bool
	TasksPerMV  int
	WithMetrics bool
}

func newSnapshotCmd(g *globalOptions) *cobra.Command {
	opts := &snapshotOptions{}
	cmd := &cobra.Command{
		Use:   "snapshot [-f FILE] [--summary] [--demo [SCENARIO]]",
		Short: "Capture a snapshot (live cluster, saved file or demo) as JSON, or summarise it",
		Long: `snapshot takes one read-only snapshot of a live cluster (--host), or loads a
saved one (--snapshot FILE) or a bundled scenario (--demo [SCENARIO]), and
writes it as JSON (docs/snapshot.md) to stdout or -f FILE. Every analysis
command accepts the file back with --snapshot FILE.

--summary prints what was captured instead: the clock, the row count of
every source, the capabilities found and what could not be read.

The password comes from DORISDIAG_PASSWORD or MYSQL_PWD, never a flag, and
never appears in the snapshot.`,
		Example: `  DORISDIAG_PASSWORD=... dorisdiag snapshot --host fe1 -f snap.json
  dorisdiag snapshot --host 127.0.0.1 --port 9030 --summary
  dorisdiag snapshot --demo incident --summary -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if opts.TasksPerMV < 0 {
				return usageErrorf("--tasks-per-mv must be positive, got %d", opts.TasksPerMV)
			}
			return snapshotRun(g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.File, "file", "f", "", "write the snapshot to FILE instead of stdout")
	f.BoolVar(&opts.Summary, "summary", false, "print what was captured (counts per source, capabilities, gaps) instead of the JSON")
	f.IntVar(&opts.TasksPerMV, "tasks-per-mv", 20, "live: read the latest N tasks() of each MV")
	f.BoolVar(&opts.WithMetrics, "with-metrics", false, "live: also fetch GET /metrics of the FE into the snapshot")
	return cmd
}

func snapshotRun(g *globalOptions, opts *snapshotOptions) error {
	var format report.Format
	var err error
	if opts.Summary {
		if format, err = g.format(report.FormatTable, report.FormatJSON, report.FormatMarkdown); err != nil {
			return err
		}
	} else if g.Output != "table" && g.Output != "json" {
		// The snapshot itself is always JSON; -o json is accepted for symmetry.
		return usageErrorf("snapshot writes JSON; -o %s is only valid with --summary", g.Output)
	}
	g.Source.TasksPerMV = opts.TasksPerMV
	g.Source.WithMetrics = opts.WithMetrics
	snaps, err := g.loadSnapshots()
	if err != nil {
		return err
	}
	s := snaps[len(snaps)-1]
	if !opts.Summary {
		return writeSnapshot(g.ios.Out, opts.File, s)
	}
	if opts.File != "" {
		if err := writeSnapshot(nil, opts.File, s); err != nil {
			return err
		}
	}
	sum := summarize(s)
	switch format {
	case report.FormatJSON:
		return report.JSON(g.ios.Out, "snapshot_summary", sum)
	case report.FormatMarkdown:
		return sum.markdown(g.ios.Out)
	}
	return sum.table(g.ios.Out, g.style())
}

// writeSnapshot writes to path (atomically: a temporary file renamed) or w.
func writeSnapshot(w io.Writer, path string, s *snapshot.Snapshot) error {
	if path == "" {
		return snapshot.Write(w, s)
	}
	tmp, err := os.CreateTemp(dirOf(path), ".dorisdiag-snapshot-*")
	if err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := snapshot.Write(tmp, s); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// snapshotSummary is the JSON of `snapshot --summary` (docs/snapshot.md).
type snapshotSummary struct {
	Source       snapshot.Source    `json:"source"`
	TakenAt      string             `json:"taken_at,omitempty"`
	ClusterNow   string             `json:"cluster_now"`
	CurrentTSO   string             `json:"current_tso"`
	ClockSource  string             `json:"clock_source"`
	DorisVersion string             `json:"doris_version,omitempty"`
	Naming       string             `json:"naming,omitempty"`
	CloudMode    bool               `json:"cloud_mode"`
	Sources      []summarySource    `json:"sources"`
	CouldNotRead []snapshot.ReadGap `json:"could_not_read"`
	Malformed    int                `json:"malformed"`
}

// summarySource is one source: whether the build has it (nil when the
// snapshot does not say, e.g. a hand-written scenario), its rows, and the
// columns the server named.
type summarySource struct {
	Source  string   `json:"source"`
	Present *bool    `json:"present"`
	Rows    *int     `json:"rows,omitempty"` // absent for a source with no rows of its own (a probe, a fallback)
	Columns []string `json:"columns,omitempty"`
}

func summarize(s *snapshot.Snapshot) snapshotSummary {
	withProps, withModel, withID, withSize := 0, 0, 0, 0
	for _, t := range s.Tables {
		if len(t.Properties) > 0 {
			withProps++
		}
		if t.KeyModel != "" {
			withModel++
		}
		if t.ID != nil {
			withID++
		}
		if t.ChangelogSizeBytes != nil {
			withSize++
		}
	}
	clock := 0
	if s.Cluster.CurrentTSO > 0 {
		clock = 1
	}
	rows := []struct {
		source string
		n      int
	}{
		{snapshot.SourceTSOStatus, clock},
		{snapshot.SourceTableStreams, len(s.Streams)},
		{snapshot.SourceTableStreamConsumption, len(s.Consumption)},
		{snapshot.SourceTableProperties, withProps},
		{snapshot.SourceTableOptions, withModel},
		{snapshot.SourceMetadataNameIDs, withID},
		{snapshot.SourcePartitions, len(s.Partitions)},
		{snapshot.SourceIVMMVStatus, len(s.MVStatus)},
		{snapshot.SourceIVMDependencies, len(s.Dependencies)},
		{snapshot.SourceMVInfos, len(s.MVs)},
		{snapshot.SourceJobs, len(s.Jobs)},
		{snapshot.SourceTasks, len(s.Tasks)},
		{snapshot.SourceFrontends, len(s.Frontends)},
		{snapshot.SourceBackends, len(s.Backends)},
		{snapshot.SourceShowData, withSize},
		{snapshot.SourceMetrics, len(s.Metrics)},
	}
	sum := snapshotSummary{
		Source: s.Source, ClusterNow: s.Cluster.Now.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		CurrentTSO: strconv.FormatInt(int64(s.Cluster.CurrentTSO), 10), ClockSource: s.Cluster.ClockSource,
		DorisVersion: s.Cluster.DorisVersion, Naming: s.Cluster.Naming, CloudMode: s.Cluster.CloudMode,
		CouldNotRead: s.CouldNotRead, Malformed: len(s.Malformed),
	}
	// A fallback another source superseded is shown as such (also for a
	// snapshot written before the collector marked it).
	sum.CouldNotRead = make([]snapshot.ReadGap, len(s.CouldNotRead))
	for i, g := range s.CouldNotRead {
		g.Superseded = diag.SupersededBy(s, g)
		sum.CouldNotRead[i] = g
	}
	if !s.TakenAt.IsZero() {
		sum.TakenAt = s.TakenAt.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	listed := map[string]bool{}
	for _, r := range rows {
		listed[r.source] = true
		n := r.n
		ss := summarySource{Source: r.source, Rows: &n}
		if c, ok := s.Capabilities.Sources[r.source]; ok {
			p := c.Present
			ss.Present, ss.Columns = &p, c.Columns
		}
		if r.source == snapshot.SourceTSOStatus && s.Cluster.ClockSource != "" && s.Cluster.ClockSource != snapshot.SourceTSOStatus {
			ss.Source = "clock: " + s.Cluster.ClockSource
		}
		sum.Sources = append(sum.Sources, ss)
	}
	var extra []string
	for name := range s.Capabilities.Sources {
		if !listed[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		c := s.Capabilities.Sources[name]
		p := c.Present
		sum.Sources = append(sum.Sources, summarySource{Source: name, Present: &p, Columns: c.Columns})
	}
	return sum
}

func (sum snapshotSummary) header() []string {
	lines := []string{
		fmt.Sprintf("source: %s%s", sum.Source.Kind, sourceDetail(sum.Source)),
		fmt.Sprintf("cluster time: %s (current TSO %s, from %s)", sum.ClusterNow, sum.CurrentTSO, orDash(sum.ClockSource)),
	}
	var facts []string
	if sum.DorisVersion != "" {
		facts = append(facts, "Doris "+sum.DorisVersion)
	}
	if sum.Naming != "" {
		facts = append(facts, "property naming "+sum.Naming+".*")
	}
	if sum.CloudMode {
		facts = append(facts, "cloud mode")
	}
	if sum.Source.Queries > 0 {
		facts = append(facts, fmt.Sprintf("%d statements in %d ms", sum.Source.Queries, sum.Source.DurationMs))
	}
	if len(facts) > 0 {
		lines = append(lines, strings.Join(facts, ", "))
	}
	return lines
}

func sourceDetail(s snapshot.Source) string {
	switch s.Kind {
	case "live":
		return fmt.Sprintf(" %s:%d as %s", s.Host, s.Port, s.User)
	case "demo":
		return " scenario " + s.Scenario
	case "file":
		return " " + s.File
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (sum snapshotSummary) tableRows() [][]string {
	var rows [][]string
	for _, s := range sum.Sources {
		present := "?"
		if s.Present != nil {
			present = "no"
			if *s.Present {
				present = "yes"
			}
		}
		cols := "-"
		if len(s.Columns) > 0 {
			cols = strconv.Itoa(len(s.Columns))
		}
		n := "-"
		if s.Rows != nil {
			n = strconv.Itoa(*s.Rows)
		}
		rows = append(rows, []string{s.Source, present, n, cols})
	}
	return rows
}

func (sum snapshotSummary) gapRows() [][]string {
	var rows [][]string
	for _, g := range sum.CouldNotRead {
		e := g.Error
		if g.Superseded != "" {
			e = "superseded by " + g.Superseded + ": " + e
		}
		rows = append(rows, []string{g.Source, e})
	}
	return rows
}

// gapCount is "N", or "N (M superseded by a fallback)".
func (sum snapshotSummary) gapCount() string {
	n := 0
	for _, g := range sum.CouldNotRead {
		if g.Superseded != "" {
			n++
		}
	}
	if n == 0 {
		return strconv.Itoa(len(sum.CouldNotRead))
	}
	return fmt.Sprintf("%d (%d superseded by a fallback: no finding)", len(sum.CouldNotRead), n)
}

var summaryHeaders = []string{"SOURCE", "PRESENT", "ROWS", "COLUMNS"}

func (sum snapshotSummary) table(w io.Writer, st report.Style) error {
	for _, l := range sum.header() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	if err := report.Table(w, summaryHeaders, sum.tableRows()); err != nil {
		return err
	}
	if len(sum.CouldNotRead) == 0 {
		fmt.Fprintln(w, "could not read: nothing")
	} else {
		fmt.Fprintln(w, st.Severity("warning", "could not read: "+sum.gapCount()))
		if err := report.Table(w, []string{"SOURCE", "ERROR"}, sum.gapRows()); err != nil {
			return err
		}
	}
	if sum.Malformed > 0 {
		fmt.Fprintf(w, "malformed values: %d (see \"malformed\" in the snapshot JSON)\n", sum.Malformed)
	}
	return nil
}

func (sum snapshotSummary) markdown(w io.Writer) error {
	for _, l := range sum.header() {
		fmt.Fprintf(w, "%s  \n", l)
	}
	fmt.Fprintln(w)
	if err := report.Markdown(w, summaryHeaders, sum.tableRows()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(sum.CouldNotRead) == 0 {
		fmt.Fprintln(w, "Could not read: nothing.")
		return nil
	}
	fmt.Fprintf(w, "Could not read: %s\n\n", sum.gapCount())
	return report.Markdown(w, []string{"SOURCE", "ERROR"}, sum.gapRows())
}
