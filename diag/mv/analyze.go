package mv

import (
	"sort"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/mv/refresh"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Analyze diagnoses every IVM MV of the last snapshot of series. streams
// is the stream analysis of the same series (streams.Analyze); nil computes it.
func Analyze(series []*snapshot.Snapshot, sa *streams.Result, opt Options) *Result {
	opt = opt.WithDefaults()
	res := &Result{MVs: []MV{}, Findings: []diag.Finding{}, Thresholds: Thresholds{
		MaxDelaySeconds: opt.MaxDelay.Seconds(), MaxFailures: opt.MaxFailures, MaxRunningSeconds: opt.MaxRunning.Seconds(),
		MaxQueuedSeconds: opt.MaxQueued.Seconds(), FallbackWindowSeconds: opt.FallbackWindow.Seconds(), MinFallbacks: opt.MinFallbacks,
	}}
	var last *snapshot.Snapshot
	for _, s := range series {
		if s != nil {
			last = s
		}
	}
	if last == nil {
		return res
	}
	if sa == nil {
		sa = streams.Analyze(series, streams.Options{})
	}
	a := newMVAnalyzer(last, sa, opt)
	res.Now = a.now
	res.Capabilities = a.caps
	res.MVs = make([]MV, 0, len(last.MVs))
	for i := range last.MVs {
		mv := &last.MVs[i]
		if !a.isIVM(mv) {
			res.NotIVM++
			continue
		}
		r, fs := a.analyzeMV(mv)
		res.MVs = append(res.MVs, r)
		res.Findings = append(res.Findings, fs...)
	}
	// mv_infos() unreadable: the MVs other sources name are listed, their
	// state unknown, with the reason (partial.go); never "no MVs".
	if a.mvInfosUnreadable != "" {
		known := make(map[int64]bool, len(last.MVs))
		for i := range last.MVs {
			known[last.MVs[i].ID] = true
		}
		for _, mv := range mvsNamedElsewhere(last, sa, known) {
			r, fs := a.analyzeMV(&mv)
			res.MVs = append(res.MVs, r)
			res.Findings = append(res.Findings, fs...)
		}
	}
	res.UnmatchedInternalStreams = a.unmatchedInternalStreams()
	Sort(res.MVs)
	diag.SortFindings(res.Findings)
	return res
}

// Sort orders MVs worst first: severity, state, delay, then name. It
// sorts indices and permutes once: an MV is large, and swapping it in
// place dominated the sort at 2,000 MVs.
func Sort(ms []MV) {
	rank := map[FreshnessState]int{FreshUnknown: 1, FreshRebuildRequired: 0, FreshLagging: 2, FreshInitializing: 3, FreshFresh: 4}
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := &ms[idx[i]], &ms[idx[j]]
		if a.severity != b.severity {
			return a.severity > b.severity
		}
		ra, okA := rank[a.FreshnessState]
		rb, okB := rank[b.FreshnessState]
		if !okA {
			ra = 1
		}
		if !okB {
			rb = 1
		}
		if ra != rb {
			return ra < rb
		}
		if da, db := a.DataDelay.Get(-1), b.DataDelay.Get(-1); da != db {
			return da > db
		}
		if a.DB != b.DB {
			return a.DB < b.DB
		}
		return a.Name < b.Name
	})
	sorted := make([]MV, len(ms))
	for i, j := range idx {
		sorted[i] = ms[j]
	}
	copy(ms, sorted)
}

// mvAnalyzer holds the indexes of one snapshot the per-MV analysis needs,
// built once so that 2,000 MVs cost one pass each (design.md budgets).
type mvAnalyzer struct {
	snap    *snapshot.Snapshot
	streams *streams.Result
	opt     Options
	now     time.Time
	nowMs   int64
	caps    Capabilities

	jobsByMV    map[int64]*snapshot.Job
	tasksByMV   map[int64][]snapshot.Task
	statusByMV  map[int64]*snapshot.MVStatus
	depsByMV    map[int64][]*snapshot.Dependency
	ivmByMV     map[int64][]*streams.Stream // internal streams by owning MV id
	ivmByName   map[string][]*streams.Stream
	tables      map[string]*snapshot.Table
	partsByTbl  map[string][]*snapshot.Partition
	claimedIVM  map[int64]bool // internal streams matched to an MV
	mvIDs       map[int64]bool
	statusByKey map[string]*snapshot.MVStatus
	// streamsUnreadable says why table_streams could not be read ("" when
	// it was): every client-side MV state is then unknown.
	streamsUnreadable string
	// mvInfosUnreadable says why mv_infos() could not be read.
	mvInfosUnreadable string
}

func tableKey(db, name string) string { return strings.ToLower(db) + "\x00" + name }

func newMVAnalyzer(last *snapshot.Snapshot, sa *streams.Result, opt Options) *mvAnalyzer {
	a := &mvAnalyzer{snap: last, streams: sa, opt: opt, now: last.Cluster.Now, nowMs: last.Cluster.Now.UnixMilli(),
		jobsByMV: make(map[int64]*snapshot.Job, len(last.Jobs)), tasksByMV: make(map[int64][]snapshot.Task, len(last.MVs)),
		statusByMV: make(map[int64]*snapshot.MVStatus, len(last.MVStatus)), depsByMV: make(map[int64][]*snapshot.Dependency, len(last.MVStatus)),
		ivmByMV: make(map[int64][]*streams.Stream, len(last.MVs)), ivmByName: make(map[string][]*streams.Stream, len(last.MVs)),
		tables: make(map[string]*snapshot.Table, len(last.Tables)), partsByTbl: make(map[string][]*snapshot.Partition, len(last.Tables)),
		claimedIVM: make(map[int64]bool, len(sa.Streams)), mvIDs: make(map[int64]bool, len(last.MVs)),
		statusByKey: make(map[string]*snapshot.MVStatus, len(last.MVStatus))}
	a.streamsUnreadable = sources.Unreadable(last, snapshot.SourceTableStreams)
	a.mvInfosUnreadable = sources.Unreadable(last, snapshot.SourceMVInfos)
	for i := range last.MVs {
		a.mvIDs[last.MVs[i].ID] = true
	}
	for i := range last.Jobs {
		j := &last.Jobs[i]
		a.jobsByMV[j.MVID] = j
	}
	for _, t := range last.Tasks {
		a.tasksByMV[t.MVID] = append(a.tasksByMV[t.MVID], t)
	}
	for i := range last.MVStatus {
		s := &last.MVStatus[i]
		a.statusByMV[s.MVID] = s
		a.statusByKey[tableKey(s.DB, s.MVName)] = s
	}
	for i := range last.Dependencies {
		d := &last.Dependencies[i]
		a.depsByMV[d.MVID] = append(a.depsByMV[d.MVID], d)
	}
	for i := range sa.Streams {
		sr := &sa.Streams[i]
		if sr.Kind != streams.KindIVM {
			continue
		}
		if sr.MVID != nil {
			a.ivmByMV[*sr.MVID] = append(a.ivmByMV[*sr.MVID], sr)
		}
		if sr.MVName != "" {
			k := tableKey(sr.DB, sr.MVName)
			a.ivmByName[k] = append(a.ivmByName[k], sr)
		}
	}
	for i := range last.Tables {
		t := &last.Tables[i]
		a.tables[tableKey(t.DB, t.Name)] = t
	}
	for i := range last.Partitions {
		p := &last.Partitions[i]
		k := tableKey(p.DB, p.Table)
		a.partsByTbl[k] = append(a.partsByTbl[k], p)
	}
	a.caps = Capabilities{
		IvmMVStatus:     len(last.MVStatus) > 0 || sources.Present(last, "ivm_mv_status"),
		IvmDependencies: len(last.Dependencies) > 0 || sources.Present(last, "ivm_dependencies"),
	}
	for _, t := range last.Tasks {
		if t.IvmRefreshMethod != nil {
			a.caps.IvmRefreshMethod = true
			break
		}
	}
	if !a.caps.IvmRefreshMethod {
		a.caps.IvmRefreshMethod = sources.HasColumn(last, doris.Tasks.Rel(), doris.Tasks.IvmRefreshMethod)
	}
	for _, c := range last.Consumption {
		if c.PendingAgePrecision != nil || c.OffsetState != nil {
			a.caps.ConsumptionT2 = true
			break
		}
	}
	if !a.caps.ConsumptionT2 {
		a.caps.ConsumptionT2 = sources.HasColumn(last, doris.TableStreamConsumption.Rel(), doris.TableStreamConsumption.PendingAgeSeconds)
	}
	return a
}

// isIVM: an MV refreshed INCREMENTAL, or one with internal streams or rows in
// the seed's IVM tables.
func (a *mvAnalyzer) isIVM(mv *snapshot.MVInfo) bool {
	if mv.Refresh.IsIncremental() {
		return true
	}
	if mv.BaseTableStreams.Present {
		return true
	}
	if a.streamsUnreadable != "" && !strings.EqualFold(mv.Refresh.Method, "COMPLETE") {
		// Its internal streams could not be read: it may be an IVM MV, and
		// is listed (state unknown, partial.go), never left out.
		return true
	}
	return len(a.ivmByMV[mv.ID]) > 0 || a.statusByMV[mv.ID] != nil || len(a.depsByMV[mv.ID]) > 0
}

// internalStreams finds the MV's internal streams: by the MV id (IVM_MV_ID or
// the base36 id suffix of the name), else by the name prefix in its database.
func (a *mvAnalyzer) internalStreams(mv *snapshot.MVInfo) []*streams.Stream {
	out := a.ivmByMV[mv.ID]
	if len(out) == 0 {
		for _, sr := range a.ivmByName[tableKey(mv.DB, mv.Name)] {
			if sr.MVID == nil || !a.mvIDs[*sr.MVID] {
				out = append(out, sr)
			}
		}
	}
	for _, sr := range out {
		a.claimedIVM[sr.ID] = true
	}
	return out
}

func (a *mvAnalyzer) unmatchedInternalStreams() []string {
	var out []string
	for i := range a.streams.Streams {
		sr := &a.streams.Streams[i]
		if sr.Kind == streams.KindIVM && !a.claimedIVM[sr.ID] {
			out = append(out, sr.DB+"."+sr.Name)
		}
	}
	sort.Strings(out)
	return out
}

func (a *mvAnalyzer) analyzeMV(mv *snapshot.MVInfo) (MV, []diag.Finding) {
	ri, props := mv.Refresh, mv.Properties
	r := MV{DB: mv.DB, Name: mv.Name, ID: mv.ID, JobName: mv.JobName, State: mv.State, SchemaChangeDetail: mv.SchemaChangeDetail,
		RefreshState: mv.RefreshState, Refresh: ri, Excluded: props.ExcludedAsWritten, Properties: props}
	job := a.jobsByMV[mv.ID]
	if job != nil {
		r.JobStatus = job.Status
		if r.JobName == "" {
			r.JobName = job.Name
		}
	}
	r.History = refresh.AnalyzeHistory(a.tasksByMV[mv.ID], ri, a.now, refresh.HistoryOptions{Limit: a.opt.HistoryLimit, FallbackWindow: a.opt.FallbackWindow})
	deps, notes := a.dependencies(mv, props, &r.History)
	r.Dependencies = deps
	if r.Dependencies == nil {
		r.Dependencies = []Dependency{}
	}
	r.Undetectable = append(r.Undetectable, notes...)
	r.WorstPartitions = worstPartitions(deps, 10)
	if r.WorstPartitions == nil {
		r.WorstPartitions = []WorstPartition{}
	}

	a.clientFreshness(&r, mv)
	if st := a.statusByMV[mv.ID]; st != nil {
		a.serverFreshness(&r, st)
	} else if st := a.statusByKey[tableKey(mv.DB, mv.Name)]; st != nil {
		a.serverFreshness(&r, st)
	} else {
		r.Undetectable = append(r.Undetectable,
			"rebuild_required (dirty MV partitions) and PUBLISHING (a refresh committed, not visible yet) need information_schema.ivm_mv_status: this build does not have it")
	}
	fs := a.mvFindings(&r)
	for _, f := range fs {
		if f.Severity > r.severity {
			r.severity = f.Severity
		}
	}
	if r.severity > 0 {
		r.Severity = r.severity.String()
	}
	sortByCause(fs)
	r.Causes = make([]string, 0, len(fs))
	for _, f := range fs {
		r.Causes = append(r.Causes, f.Code.String()+": "+f.Summary)
	}
	r.Headline = a.headline(&r, fs)
	r.Next = a.nextSQL(&r, fs)
	return r, fs
}

func f64(v float64) *float64 { return &v }
func bptr(v bool) *bool      { return &v }

func ip(v int64) *int64 { return &v }
