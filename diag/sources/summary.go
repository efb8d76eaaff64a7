package sources

import (
	"sort"
	"strconv"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Summary is what a snapshot holds, source by source: the document
// of `snapshot --summary` (docs/snapshot.md).
type Summary struct {
	Source       snapshot.Source    `json:"source"`
	TakenAt      string             `json:"taken_at,omitempty"`
	ClusterNow   string             `json:"cluster_now"`
	CurrentTSO   string             `json:"current_tso"`
	ClockSource  string             `json:"clock_source"`
	DorisVersion string             `json:"doris_version,omitempty"`
	Naming       string             `json:"naming,omitempty"`
	CloudMode    bool               `json:"cloud_mode"`
	Sources      []SummarySource    `json:"sources"`
	CouldNotRead []snapshot.ReadGap `json:"could_not_read"`
	Malformed    int                `json:"malformed"`
}

// SummarySource is one source: whether the build has it (nil when the
// snapshot does not say, e.g. a hand-written scenario), its rows, and the
// columns the server named.
type SummarySource struct {
	Source  string   `json:"source"`
	Present *bool    `json:"present"`
	Rows    *int     `json:"rows,omitempty"` // absent for a source with no rows of its own (a probe, a fallback)
	Columns []string `json:"columns,omitempty"`
}

// Summarize counts the rows of every source of s, its capabilities
// and its gaps (a gap a fallback superseded is marked as such).
func Summarize(s *snapshot.Snapshot) *Summary {
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
	sum := Summary{
		Source: s.Source, ClusterNow: s.Cluster.Now.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		CurrentTSO: strconv.FormatInt(int64(s.Cluster.CurrentTSO), 10), ClockSource: s.Cluster.ClockSource,
		DorisVersion: s.Cluster.DorisVersion, Naming: s.Cluster.Naming, CloudMode: s.Cluster.CloudMode,
		CouldNotRead: s.CouldNotRead, Malformed: len(s.Malformed),
	}
	// A fallback another source superseded is shown as such (also for a
	// snapshot written before the collector marked it).
	sum.CouldNotRead = make([]snapshot.ReadGap, len(s.CouldNotRead))
	for i, g := range s.CouldNotRead {
		g.Superseded = SupersededBy(s, g)
		sum.CouldNotRead[i] = g
	}
	if !s.TakenAt.IsZero() {
		sum.TakenAt = s.TakenAt.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	listed := map[string]bool{}
	for _, r := range rows {
		listed[r.source] = true
		n := r.n
		ss := SummarySource{Source: r.source, Rows: &n}
		if Unreadable(s, r.source) != "" {
			// Not "0 rows": nothing was read (Unreadable); could_not_read
			// says why.
			ss.Rows = nil
		}
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
		sum.Sources = append(sum.Sources, SummarySource{Source: name, Present: &p, Columns: c.Columns})
	}
	return &sum
}
