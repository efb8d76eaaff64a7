// Package diagtest is the test support of diag's packages: small in-memory
// snapshots (the rows a collector would read, with the raw Doris text, at a
// fixed cluster time) and the finding codes a package declares. Test support
// only: no production package imports it.
package diagtest

import (
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Now is the cluster time of every snapshot built here.
var Now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// Day is a TTL of one day, in seconds.
var Day = int64(86400)

// IncrCommit is the RefreshInfo of an incremental MV refreshed on commit.
const IncrCommit = "BUILD IMMEDIATE REFRESH INCREMENTAL FALLBACK ON COMMIT"

// NowMs is Now in Unix milliseconds.
func NowMs() int64 { return Now.UnixMilli() }

// TSOAgo is the TSO d before Now (logical 0).
func TSOAgo(d time.Duration) tso.TSO { return tso.TSO((NowMs() - d.Milliseconds()) << 18) }

// MsAgo is the Unix millisecond time d before Now.
func MsAgo(d time.Duration) *int64 { v := Now.Add(-d).UnixMilli(); return &v }

// LagOf is the LAG text of a partition d behind.
func LagOf(d time.Duration) string { return strconv.FormatInt(d.Milliseconds()<<18, 10) }

// TP points at t.
func TP(t tso.TSO) *tso.TSO { return &t }

// B builds one snapshot.
type B struct{ S *snapshot.Snapshot }

// New starts an empty snapshot at Now.
func New() *B {
	return &B{S: &snapshot.Snapshot{SchemaVersion: 1, Cluster: snapshot.Cluster{CurrentTSO: tso.TSO(NowMs() << 18), Now: Now},
		Capabilities: snapshot.Capabilities{Sources: map[string]snapshot.SourceCapability{}}}}
}

// Table adds a base table of database db.
func (b *B) Table(db, name, keys string, ttl *int64) *B {
	b.S.Tables = append(b.S.Tables, snapshot.Table{DB: db, Name: name, KeyModel: keys, TTLSeconds: ttl, PropertyNaming: "changelog"})
	return b
}

// Stream adds a stream of database demo on table.
func (b *B) Stream(id int64, name, mode, table string) *snapshot.Stream {
	b.S.Streams = append(b.S.Streams, snapshot.Stream{DB: "demo", Name: name, ID: id, ConsumeType: mode, BaseTableDB: "demo", BaseTableName: table, Enabled: true})
	return &b.S.Streams[len(b.S.Streams)-1]
}

// Cons adds a partition row: offset (nil = N/A) and lag text.
func (b *B) Cons(id int64, name, unit string, offset *tso.TSO, lag string) *snapshot.Consumption {
	c := snapshot.Consumption{DB: "demo", StreamName: name, StreamID: id, Unit: unit, Lag: lag, ConsumptionStatus: "N/A"}
	if offset != nil {
		c.ConsumptionStatus = offset.String()
		if *offset > 0 {
			c.Offset = offset
		}
		ms := offset.Physical()
		c.LastConsumptionTimeMs = &ms
	}
	if v, ok, err := tso.ParseLag(lag); err == nil && ok {
		c.LagValue = &v
	}
	b.S.Consumption = append(b.S.Consumption, c)
	return &b.S.Consumption[len(b.S.Consumption)-1]
}

// MV adds an IVM MV over base table `table` (id tableID) whose internal
// stream is `behind` behind on partition p1 (0 = caught up).
func (b *B) MV(id int64, name, refresh string, table string, tableID int64, behind time.Duration) *snapshot.MVInfo {
	b.S.MVs = append(b.S.MVs, snapshot.MVInfo{ID: id, DB: "demo", Name: name, JobName: "inner_mtmv_" + strconv.FormatInt(id, 10),
		State: "NORMAL", RefreshState: "SUCCESS", RefreshInfo: refresh})
	b.S.Jobs = append(b.S.Jobs, snapshot.Job{ID: id + 1000, Name: "inner_mtmv_" + strconv.FormatInt(id, 10), MVID: id, MVName: name, MVDatabaseName: "demo", Status: "RUNNING"})
	if table != "" {
		sid := id*10 + tableID
		sn := doris.IvmStreamName(name, id, tableID)
		b.Stream(sid, sn, "DETAIL", table)
		if behind > 0 {
			b.Cons(sid, sn, "p1", TP(TSOAgo(behind)), LagOf(behind-time.Second))
		} else {
			b.Cons(sid, sn, "p1", TP(TSOAgo(time.Minute)), "0")
		}
	}
	return &b.S.MVs[len(b.S.MVs)-1]
}

// Task adds a refresh task of MV mvID, created (and started) ago.
func (b *B) Task(mvID int64, name string, id int64, status string, ago time.Duration) *snapshot.Task {
	d := int64(2000)
	t := snapshot.Task{TaskID: id, MVID: mvID, MVName: name, MVDatabaseName: "demo", Status: status, CreateTimeMs: MsAgo(ago), StartTimeMs: MsAgo(ago)}
	if status != "RUNNING" && status != "PENDING" {
		t.FinishTimeMs, t.DurationMs = MsAgo(ago-2*time.Second), &d
	}
	b.S.Tasks = append(b.S.Tasks, t)
	return &b.S.Tasks[len(b.S.Tasks)-1]
}

// Builders write raw Doris text the way a collector reads it; a real
// snapshot is always normalised before diag sees it (snapshot.Validate).

// RefreshOf is mv_infos().RefreshInfo parsed, as snapshot.Normalize does.
func RefreshOf(s string) snapshot.RefreshInfo {
	r, _ := snapshot.ParseRefreshInfo(s)
	return r
}

// Norm normalises a test snapshot (idempotent) and returns it.
func Norm(s *snapshot.Snapshot) *snapshot.Snapshot {
	if s != nil {
		s.Normalize()
	}
	return s
}

// NormAll normalises a series.
func NormAll(series []*snapshot.Snapshot) []*snapshot.Snapshot {
	for _, s := range series {
		Norm(s)
	}
	return series
}

// NormTask normalises one task as snapshot.Normalize does.
func NormTask(t snapshot.Task) snapshot.Task {
	s := snapshot.Snapshot{Tasks: []snapshot.Task{t}}
	s.Normalize()
	return s.Tasks[0]
}

// NormTasks normalises tasks.
func NormTasks(ts []snapshot.Task) []snapshot.Task {
	out := make([]snapshot.Task, len(ts))
	for i, t := range ts {
		out[i] = NormTask(t)
	}
	return out
}
