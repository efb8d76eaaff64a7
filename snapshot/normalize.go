package snapshot

import (
	"strconv"
	"unicode/utf8"

	"github.com/dorisdiag/dorisdiag/doris"
)

// Normalize parses, once, every Doris text the tool interprets, into the
// typed fields diag reads: mv_infos() RefreshInfo, MvProperties and
// IvmBaseTableStreams, tasks() TaskContext, the changelog/binlog enable and
// ttl_seconds properties of the base tables, the seed's ivm_mv_status columns
// of open type, and the `\N`/NULL spellings of the TVF text columns. The raw
// text stays in the snapshot as evidence.
//
// A value that does not parse is counted in Malformed (source, row, column,
// value, why) and is unknown in the typed field — never replaced by a
// default: a ttl_seconds of "7d" leaves TTLSeconds nil, not 86400.
//
// Validate calls it, so it runs at the end of every live collection and on
// every snapshot file or scenario loaded. It is idempotent: the derived fields
// are recomputed from the raw text each time (they are never written to a
// snapshot file, see docs/snapshot.md "Parsed once").
func (s *Snapshot) Normalize() {
	s.normalizeTables()
	s.normalizeStreams()
	s.normalizeConsumers()
	for i := range s.MVs {
		m := &s.MVs[i]
		row := m.DB + "." + m.Name
		for _, p := range []*string{&m.JobName, &m.State, &m.SchemaChangeDetail, &m.RefreshState, &m.QuerySQL,
			&m.EnvInfo, &m.MvPartitionInfo} {
			nullToEmpty(p)
		}
		var err error
		if m.Refresh, err = ParseRefreshInfo(m.RefreshInfo); err != nil {
			s.bad(SourceMVInfos, row, doris.MVInfos.RefreshInfo.Name, m.RefreshInfo, err.Error())
		}
		if m.Properties, err = ParseMvProperties(m.MvProperties, m.DB); err != nil {
			s.bad(SourceMVInfos, row, doris.MVInfos.MvProperties.Name, m.MvProperties, err.Error()+"; excluded_trigger_tables may be incomplete")
		}
		entries, ok := ParseIvmBaseTableStreams(m.IvmBaseTableStreams, m.DB)
		m.BaseTableStreams = BaseTableStreams{Present: !IsNullText(m.IvmBaseTableStreams), Readable: ok, Entries: entries,
			Raw: m.IvmBaseTableStreams}
		if !ok {
			s.bad(SourceMVInfos, row, doris.MVInfos.IvmBaseTableStreams.Name, m.IvmBaseTableStreams,
				"not a base table → internal stream mapping in any known form; base tables taken from the internal streams")
		}
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		for _, p := range []*string{&j.Status, &j.ExecuteType, &j.RecurringStrategy} {
			nullToEmpty(p)
		}
	}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		for _, p := range []*string{&t.JobName, &t.Status, &t.ErrorMsg, &t.RefreshMode, &t.NeedRefreshPartitions,
			&t.CompletedPartitions, &t.Progress, &t.LastQueryID, &t.ComputeGroup, &t.IvmFallbackReason} {
			nullToEmpty(p)
		}
		if t.IvmRefreshMethod != nil && IsNullText(*t.IvmRefreshMethod) {
			t.IvmRefreshMethod = nil
		}
		var err error
		if t.Context, err = ParseTaskContext(t.TaskContext); err != nil {
			s.bad(SourceTasks, t.MVDatabaseName+"."+t.MVName+" task "+strconv.FormatInt(t.TaskID, 10), doris.Tasks.TaskContext.Name, t.TaskContext,
				err.Error()+"; trigger mode and explicit COMPLETE/PARTITIONS request unknown")
		}
	}
	for i := range s.MVStatus {
		m := &s.MVStatus[i]
		row := m.DB + "." + m.MVName
		for _, p := range []*string{&m.FreshnessState, &m.DelayPrecision, &m.LaggingReason, &m.JobStatus, &m.CurrentTaskStatus,
			&m.LastFailureReason, &m.LastErrorMessage, &m.LastRefreshMethod, &m.LastFallbackReason} {
			nullToEmpty(p)
		}
		open := func(col, raw string) CountOrList {
			v, err := ParseCountOrList(raw)
			if err != nil {
				s.bad(SourceIVMMVStatus, row, col, raw, err.Error()+": unknown")
			}
			return v
		}
		m.Lagging = open(doris.IVMMVStatus.LaggingDependencies.Name, m.LaggingDependencies)
		m.Dirty = open(doris.IVMMVStatus.DirtyPartitions.Name, m.DirtyPartitions)
		m.ExcludedOutdated = open(doris.IVMMVStatus.ExcludedOutdatedDependencies.Name, m.ExcludedOutdatedDependencies)
		switch {
		case m.PendingPublishTxnsText != "":
			m.PendingPublish = open(doris.IVMMVStatus.PendingPublishTxns.Name, m.PendingPublishTxnsText)
			m.PendingPublishTxns = m.PendingPublish.Count
		case m.PendingPublishTxns != nil:
			// A snapshot written before the column's text was kept.
			m.PendingPublish = open(doris.IVMMVStatus.PendingPublishTxns.Name, strconv.FormatInt(*m.PendingPublishTxns, 10))
			m.PendingPublishTxns = m.PendingPublish.Count
		default:
			m.PendingPublish = CountOrList{}
		}
	}
	for i := range s.Dependencies {
		d := &s.Dependencies[i]
		for _, p := range []*string{&d.StreamName, &d.DependencyState, &d.LaggingPartitions, &d.WorstPartition, &d.DelayPrecision} {
			nullToEmpty(p)
		}
		var err error
		if d.Lagging, err = ParseCountOrList(d.LaggingPartitions); err != nil {
			s.bad(SourceIVMDependencies, d.DB+"."+d.MVName+" "+d.BaseTableDB+"."+d.BaseTableName, doris.IVMDependencies.LaggingPartitions.Name, d.LaggingPartitions, err.Error()+": unknown")
		}
	}
	s.deriveTTLEnforcement()
}

// normalizeStreams recognises a dropped base table in either shape
// (Stream.BaseTableDroppedShape), and keeps one copy of the text columns
// that thousands of streams repeat (the decoder makes one a row: issue 24,
// docs/performance.md "Bounded snapshots"), at most 4,096 distinct.
func (s *Snapshot) normalizeStreams() {
	seen := map[string]string{}
	for i := range s.Streams {
		st := &s.Streams[i]
		for _, p := range [...]*string{&st.DB, &st.Type, &st.ConsumeType, &st.BaseTableCtl, &st.BaseTableDB, &st.BaseTableType} {
			if v, ok := seen[*p]; ok {
				*p = v
			} else if len(seen) < 4096 {
				seen[*p] = *p
			}
		}
		na := func(v string) bool { return v == "N/A" } // table_streams' text for "no base table"
		switch {
		case na(st.BaseTableType) && na(st.BaseTableName) && na(st.BaseTableDB) && na(st.BaseTableCtl):
			st.BaseTableDropped, st.BaseTableDroppedShape = true, DroppedAllNA
		case na(st.BaseTableType) && st.BaseTableName != "":
			st.BaseTableDropped, st.BaseTableDroppedShape = true, DroppedTypeNA
		default:
			st.BaseTableDroppedShape = ""
		}
	}
}

// Shapes of a dropped base table in information_schema.table_streams.
const (
	DroppedAllNA  = "all_na"
	DroppedTypeNA = "type_na"
)

// normalizeTables derives ChangelogEnabled, TTLSeconds, TTLSource and
// PropertyNaming from the properties read (one function:
// ParseChangelogConfig), and Cluster.Naming from the tables. A table with no
// changelog property keeps what the snapshot says (hand-written snapshots
// may give ttl_seconds alone).
func (s *Snapshot) normalizeTables() {
	naming := ""
	for i := range s.Tables {
		t := &s.Tables[i]
		cfg, errs := ParseChangelogConfig(t.Properties)
		src := SourceTableProperties
		if t.TTLSource == "SHOW CREATE TABLE" {
			src = SourceShowCreateTable
		}
		for _, e := range errs {
			s.bad(src, t.DB+"."+t.Name, e.Column, e.Value, e.Error)
		}
		if cfg.Naming != "" {
			t.PropertyNaming = cfg.Naming
			t.ChangelogEnabled = cfg.Enabled
			t.TTLSeconds = cfg.TTLSeconds
			if cfg.TTLMissing {
				// doris.md §2: ttl_seconds absent on a changelog that is on:
				// the Doris default, and say it was assumed.
				v := int64(86400)
				t.TTLSeconds, t.TTLSource = &v, "default"
			} else if t.TTLSource == "default" {
				t.TTLSource = ""
			}
		} else if len(t.Properties) > 0 && t.TTLSeconds == nil && t.ChangelogEnabled == nil {
			t.TTLSource = ""
		}
		switch {
		case t.PropertyNaming == "changelog":
			naming = "changelog"
		case t.PropertyNaming == "binlog" && naming == "":
			naming = "binlog"
		}
	}
	if naming != "" {
		s.Cluster.Naming = naming
	}
}

// maxMalformedValue bounds the text a Malformed entry keeps.
const maxMalformedValue = 512

func (s *Snapshot) bad(source, row, col, value, why string) {
	if len(value) > maxMalformedValue {
		cut := maxMalformedValue
		for cut > 0 && !utf8.RuneStart(value[cut]) {
			cut--
		}
		value = value[:cut] + "…"
	}
	s.malformed(Malformed{Source: source, Row: row, Column: col, Value: value, Error: why})
}

func nullToEmpty(p *string) {
	if *p != "" && IsNullText(*p) {
		*p = ""
	}
}
