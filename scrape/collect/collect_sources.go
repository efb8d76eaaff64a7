package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// clock reads the current TSO: information_schema.tso_status, else
// SHOW TSO STATUS, else GET /api/tso on the Master FE (tsoTargets; SHOW
// FRONTENDS is read before the clock for this). Without any, the collection
// fails: "now" is the cluster's TSO, never the client clock.
func (col *collector) clock(ctx context.Context) error {
	var errs []string
	if t, ok := col.selectInfo(ctx, &doris.TSOStatus.Relation, "", false); ok {
		if len(t.Rows) > 0 {
			rr := col.reader(t, t.Rows[0], snapshot.SourceTSOStatus, "")
			if cur := rr.optTSO(doris.TSOStatus.CurrentTSO); cur != nil && cur.IsReal() && *cur > 0 {
				col.snap.Cluster.CurrentTSO = *cur
				col.snap.Cluster.ClockSource = snapshot.SourceTSOStatus
				col.snap.Cluster.CommittedTSO = rr.optTSO(doris.TSOStatus.CommittedTSO)
				return nil
			}
		}
		errs = append(errs, "information_schema.tso_status: no current TSO")
	} else {
		errs = append(errs, "information_schema.tso_status: not readable")
	}
	showTSO := doris.ShowTSOStatus.Statements[0].Build()
	t, err := col.c.Query(ctx, showTSO)
	if err == nil && len(t.Rows) > 0 {
		col.capability(snapshot.SourceShowTSOStatus, true, t.Cols)
		rr := col.reader(t, t.Rows[0], snapshot.SourceShowTSOStatus, "")
		if cur := rr.optTSO(doris.ShowTSOStatus.CurrentTSO); cur != nil && *cur > 0 && cur.IsReal() {
			col.snap.Cluster.CurrentTSO = *cur
			col.snap.Cluster.ClockSource = snapshot.SourceShowTSOStatus
			col.snap.Supersede(snapshot.SourceTSOStatus, snapshot.SourceShowTSOStatus)
			return nil
		}
		err = errors.New("no current_tso in the result")
	}
	if err == nil {
		err = errors.New("no rows")
	}
	col.capability(snapshot.SourceShowTSOStatus, false, nil)
	col.gap(snapshot.SourceShowTSOStatus, showTSO, err)
	errs = append(errs, "SHOW TSO STATUS: "+err.Error())

	var herrs []error
	var urls []string
	targets := col.tsoTargets()
	for i, target := range targets {
		cur, url, herr := scrape.FetchTSO(ctx, col.cfg, target)
		if herr == nil {
			col.capability(snapshot.SourceHTTPTSO, true, nil)
			col.snap.Cluster.CurrentTSO = cur
			col.snap.Cluster.ClockSource = snapshot.SourceHTTPTSO
			col.snap.Supersede(snapshot.SourceTSOStatus, snapshot.SourceHTTPTSO)
			col.snap.Supersede(snapshot.SourceShowTSOStatus, snapshot.SourceHTTPTSO)
			return nil
		}
		herrs, urls = append(herrs, herr), append(urls, url)
		// The next target is asked only when this FE says it is not the
		// Master (--host is on a follower after all, e.g. behind a
		// load balancer).
		var fe *scrape.FEAnswerError
		if i+1 < len(targets) && !(errors.As(herr, &fe) && fe.NotMaster()) {
			break
		}
	}
	col.capability(snapshot.SourceHTTPTSO, false, nil)
	for i, herr := range herrs {
		col.gap(snapshot.SourceHTTPTSO, urls[i], herr)
		errs = append(errs, "GET /api/tso: "+herr.Error())
	}
	return col.cfg.Secret().Redact(fmt.Errorf("no cluster clock could be read (%s)", strings.Join(errs, "; ")))
}

func (col *collector) show(ctx context.Context, source, q string) (*scrape.Table, bool) {
	t, err := col.c.Query(ctx, q)
	if err != nil {
		col.capability(source, false, nil)
		col.gap(source, q, err)
		return nil, false
	}
	col.capability(source, true, t.Cols)
	return t, true
}

// tsoTargets are the host:ports to ask GET /api/tso, in order. TSOAction
// answers only on the Master ("Current FE is not master" elsewhere), so:
//   - SHOW FRONTENDS not read, or no Master row with a host and HttpPort:
//     --host:--http-port, the only address known;
//   - the session is on the Master (CurrentConnected): --host:--http-port,
//     the address the user chose and can reach, then the Master row's
//     address should that answer "not master" (a load balancer in front);
//   - the session is on a follower: the Master row's Host:HttpPort
//     (FrontendsProcNode; HttpPort is the FE's Config.http_port).
func (col *collector) tsoTargets() []string {
	user := col.cfg.FEHTTPAddr(net.JoinHostPort(col.cfg.Host, strconv.Itoa(col.cfg.HTTPPort)))
	master := ""
	if col.frontendsRead {
		for _, fe := range col.snap.Frontends {
			if fe.IsMaster && fe.Host != "" && fe.HTTPPort > 0 {
				master = col.cfg.FEHTTPAddr(net.JoinHostPort(fe.Host, strconv.Itoa(fe.HTTPPort)))
				break
			}
		}
	}
	switch {
	case master == "" || master == user:
		return []string{user}
	case col.connectedKnown && !col.connectedMaster:
		return []string{master}
	default:
		return []string{user, master}
	}
}

func (col *collector) frontends(ctx context.Context) {
	t, ok := col.show(ctx, snapshot.SourceFrontends, doris.Frontends.Statements[0].Build())
	if !ok {
		return
	}
	col.frontendsRead = true
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceFrontends, "")
		// CurrentConnected says which FE serves this session: its /metrics
		// is the one fetched, and only the Master's has the state series.
		if strings.EqualFold(rr.raw(doris.Frontends.CurrentConnected), "yes") {
			col.connectedMaster = rr.bool(doris.Frontends.IsMaster)
			col.connectedKnown = true
		}
		col.snap.Frontends = append(col.snap.Frontends, snapshot.Node{
			Kind: "fe", ID: rr.raw(doris.Frontends.Name), Host: scrape.FirstNonEmpty(rr.raw(doris.Frontends.Host), rr.raw(doris.Frontends.HostName), rr.raw(doris.Frontends.IP)),
			HTTPPort: scrape.Atoi(rr.raw(doris.Frontends.HTTPPort)), QueryPort: scrape.Atoi(rr.raw(doris.Frontends.QueryPort)),
			IsMaster: rr.bool(doris.Frontends.IsMaster), Alive: rr.bool(doris.Frontends.Alive), Version: rr.raw(doris.Frontends.Version),
		})
	}
}

func (col *collector) backends(ctx context.Context) {
	t, ok := col.show(ctx, snapshot.SourceBackends, doris.Backends.Statements[0].Build())
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceBackends, "")
		col.snap.Backends = append(col.snap.Backends, snapshot.Node{
			Kind: "be", ID: rr.raw(doris.Backends.BackendID), Host: scrape.FirstNonEmpty(rr.raw(doris.Backends.Host), rr.raw(doris.Backends.HostName), rr.raw(doris.Backends.IP)),
			HTTPPort: scrape.Atoi(rr.raw(doris.Backends.HTTPPort)), Alive: rr.bool(doris.Backends.Alive), Version: rr.raw(doris.Backends.Version),
		})
	}
}

func (col *collector) streams(ctx context.Context) {
	t, ok := col.selectInfo(ctx, &doris.TableStreams.Relation, "", true)
	if !ok {
		return
	}
	col.snap.Streams = slices.Grow(col.snap.Streams, len(t.Rows)) // one allocation instead of regrowing per power of two
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceTableStreams, "")
		rr.row = rr.raw(doris.TableStreams.DBName) + "." + rr.raw(doris.TableStreams.StreamName)
		st := snapshot.Stream{
			DB: rr.raw(doris.TableStreams.DBName), Name: rr.raw(doris.TableStreams.StreamName), ID: rr.int(doris.TableStreams.StreamID),
			Type: rr.raw(doris.TableStreams.StreamType), ConsumeType: rr.raw(doris.TableStreams.ConsumeType), Comment: rr.raw(doris.TableStreams.StreamComment),
			BaseTableCtl: rr.raw(doris.TableStreams.BaseTableCtl), BaseTableDB: rr.raw(doris.TableStreams.BaseTableDB),
			BaseTableName: rr.raw(doris.TableStreams.BaseTableName), BaseTableType: rr.raw(doris.TableStreams.BaseTableType),
			Enabled: rr.bool(doris.TableStreams.Enabled), IsStale: rr.bool(doris.TableStreams.IsStale), StaleReason: rr.naStr(doris.TableStreams.StaleReason),
			IvmMVID: rr.optInt(doris.TableStreams.IvmMVID, false), MonitorState: rr.optStr(doris.TableStreams.MonitorState),
			PendingPartitions: rr.optInt(doris.TableStreams.PendingPartitions, false), MaxPendingAgeSeconds: rr.optFloat(doris.TableStreams.MaxPendingAgeSeconds),
			PendingAgePrecision: rr.optStr(doris.TableStreams.PendingAgePrecision), CanResume: rr.optBool(doris.TableStreams.CanResume),
			MinRetentionHeadroomSeconds: rr.optFloat(doris.TableStreams.MinRetentionHeadroomSeconds), GapEvents: rr.optInt(doris.TableStreams.GapEvents, false),
			LastGapTimeMs: rr.optTimeMs(doris.TableStreams.LastGapTime), MonitorSampleTimeMs: rr.optTimeMs(doris.TableStreams.MonitorSampleTime),
		}
		// A dropped base table shows N/A in BASE_TABLE_TYPE: in all four base
		// columns on earlier builds, in the type only on later ones
		// (snapshot.Stream.BaseTableDroppedShape, which Normalize derives);
		// the raw text is kept.
		if st.BaseTableType == "N/A" {
			st.BaseTableDropped = true
		}
		col.snap.Streams = append(col.snap.Streams, st)
	}
}

func (col *collector) consumption(ctx context.Context) {
	t, ok := col.selectInfo(ctx, &doris.TableStreamConsumption.Relation, "", true)
	if !ok {
		return
	}
	col.snap.Consumption = slices.Grow(col.snap.Consumption, len(t.Rows)) // one allocation instead of regrowing per power of two
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceTableStreamConsumption, "")
		rr.row = rr.raw(doris.TableStreamConsumption.DBName) + "." + rr.raw(doris.TableStreamConsumption.StreamName) + " " + rr.raw(doris.TableStreamConsumption.Unit)
		c := snapshot.Consumption{
			DB: rr.raw(doris.TableStreamConsumption.DBName), StreamName: rr.raw(doris.TableStreamConsumption.StreamName), StreamID: rr.int(doris.TableStreamConsumption.StreamID), Unit: rr.raw(doris.TableStreamConsumption.Unit),
			ConsumptionStatus: rr.raw(doris.TableStreamConsumption.ConsumptionStatus), Lag: rr.raw(doris.TableStreamConsumption.Lag),
			LastConsumptionTimeMs: rr.optTimeMs(doris.TableStreamConsumption.LastConsumptionTime),
			SourceEndTSO:          rr.optTSO(doris.TableStreamConsumption.SourceEndTSO), ConsumedTSO: rr.optTSO(doris.TableStreamConsumption.ConsumedTSO),
			OffsetState: rr.optStr(doris.TableStreamConsumption.OffsetState), CaughtUp: rr.optBool(doris.TableStreamConsumption.CaughtUp),
			PositionGapSeconds: rr.optFloat(doris.TableStreamConsumption.PositionGapSeconds), PendingAgeSeconds: rr.optFloat(doris.TableStreamConsumption.PendingAgeSeconds),
			PendingAgePrecision: rr.optStr(doris.TableStreamConsumption.PendingAgePrecision), RetentionApplicable: rr.optBool(doris.TableStreamConsumption.RetentionApplicable),
			RetentionFloorTSO: rr.optTSO(doris.TableStreamConsumption.RetentionFloorTSO), NextRequiredTSO: rr.optTSO(doris.TableStreamConsumption.NextRequiredTSO),
			CanResume: rr.optBool(doris.TableStreamConsumption.CanResume), RetentionHeadroomSeconds: rr.optFloat(doris.TableStreamConsumption.RetentionHeadroomSeconds),
			LastGapTimeMs: rr.optTimeMs(doris.TableStreamConsumption.LastGapTime),
		}
		// CONSUMPTION_STATUS is the offset as text; <= 0, N/A, `\N` mean no
		// real offset (doris.md §4).
		if p, err := tso.ParseOffset(c.ConsumptionStatus); err != nil {
			rr.bad(doris.TableStreamConsumption.ConsumptionStatus, c.ConsumptionStatus, err.Error())
		} else if p.Kind == tso.KindTSO {
			v := p.TSO
			c.Offset = &v
		}
		if lag, ok, err := tso.ParseLag(c.Lag); err != nil {
			rr.bad(doris.TableStreamConsumption.Lag, c.Lag, err.Error())
		} else if ok {
			c.LagValue = &lag
		}
		col.snap.Consumption = append(col.snap.Consumption, c)
	}
}

// tvf reads a metadata TVF with SELECT * and maps its columns by name: a
// TVF's columns are not in information_schema.columns, and the result names
// them as well (a missing newer column is simply absent).
func (col *collector) tvf(ctx context.Context, source, q string) (*scrape.Table, bool) {
	t, err := col.c.Query(ctx, q)
	if err != nil {
		if _, seen := col.snap.Capabilities.Sources[source]; !seen {
			col.capability(source, !isUnknownTable(err), nil)
		}
		col.gap(source, q, err)
		return nil, false
	}
	col.capability(source, true, t.Cols)
	return t, true
}

func (col *collector) jobs(ctx context.Context) {
	t, ok := col.tvf(ctx, snapshot.SourceJobs, doris.Jobs.Statements[0].Build())
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceJobs, "")
		rr.row = rr.str(doris.Jobs.MvDatabaseName) + "." + rr.str(doris.Jobs.MvName)
		col.snap.Jobs = append(col.snap.Jobs, snapshot.Job{
			ID: rr.int(doris.Jobs.ID), Name: rr.str(doris.Jobs.Name), MVID: rr.int(doris.Jobs.MvID), MVName: rr.str(doris.Jobs.MvName),
			MVDatabaseID: rr.optInt(doris.Jobs.MvDatabaseID, false), MVDatabaseName: rr.str(doris.Jobs.MvDatabaseName),
			ExecuteType: rr.str(doris.Jobs.ExecuteType), RecurringStrategy: rr.str(doris.Jobs.RecurringStrategy), Status: rr.str(doris.Jobs.Status),
			CreateTimeMs: rr.optTimeMs(doris.Jobs.CreateTime),
		})
	}
}

// tasks reads the latest TasksPerMV tasks of every MV in ONE statement: a
// window over tasks() ranks each MV's tasks newest first (CreateTime text
// sorts chronologically; TaskId breaks ties). A build that cannot run the
// window is read whole — Doris bounds the task history itself — and bounded
// here.
func (col *collector) tasks(ctx context.Context) {
	n := col.cfg.TasksPerMV
	q := doris.Tasks.Statements[0].Build(strconv.Itoa(n))
	t, err := col.c.Query(ctx, q)
	if err != nil {
		col.gap(snapshot.SourceTasks, q, fmt.Errorf("windowed read failed, reading tasks() whole: %w", err))
		var ok bool
		if t, ok = col.tvf(ctx, snapshot.SourceTasks, doris.Tasks.Statements[1].Build()); !ok {
			return
		}
		col.snap.Supersede(snapshot.SourceTasks, "tasks() read whole")
	} else {
		cols := make([]string, 0, len(t.Cols))
		for _, c := range t.Cols {
			if !strings.EqualFold(c, "dorisdiag_rank") {
				cols = append(cols, c)
			}
		}
		col.capability(snapshot.SourceTasks, true, cols)
	}
	perMV := map[string]int{}
	var tasks []snapshot.Task
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceTasks, "")
		rr.row = rr.str(doris.Tasks.MvDatabaseName) + "." + rr.str(doris.Tasks.MvName) + " task " + rr.str(doris.Tasks.TaskID)
		task := snapshot.Task{
			TaskID: rr.int(doris.Tasks.TaskID), JobID: rr.int(doris.Tasks.JobID), JobName: rr.str(doris.Tasks.JobName), MVID: rr.int(doris.Tasks.MvID),
			MVName: rr.str(doris.Tasks.MvName), MVDatabaseID: rr.optInt(doris.Tasks.MvDatabaseID, false), MVDatabaseName: rr.str(doris.Tasks.MvDatabaseName),
			Status: rr.str(doris.Tasks.Status), ErrorMsg: rr.str(doris.Tasks.ErrorMsg), CreateTimeMs: rr.optTimeMs(doris.Tasks.CreateTime),
			StartTimeMs: rr.optTimeMs(doris.Tasks.StartTime), FinishTimeMs: rr.optTimeMs(doris.Tasks.FinishTime),
			DurationMs: rr.optInt(doris.Tasks.DurationMs, true), TaskContext: rr.str(doris.Tasks.TaskContext), RefreshMode: rr.str(doris.Tasks.RefreshMode),
			NeedRefreshPartitions: rr.str(doris.Tasks.NeedRefreshPartitions), CompletedPartitions: rr.str(doris.Tasks.CompletedPartitions),
			Progress: rr.str(doris.Tasks.Progress), LastQueryID: rr.str(doris.Tasks.LastQueryID), ComputeGroup: rr.str(doris.Tasks.ComputeGroup),
			IvmFallbackReason: rr.str(doris.Tasks.IvmFallbackReason), IvmRebuiltPartitions: rr.optInt(doris.Tasks.IvmRebuiltPartitions, false),
			IvmRefreshMethod: rr.optStr(doris.Tasks.IvmRefreshMethod),
		}
		tasks = append(tasks, task)
	}
	// Newest first per MV, then bound (the window already did on builds
	// that ran it; this also bounds the fallback read).
	sort.SliceStable(tasks, func(i, j int) bool {
		a, b := tasks[i], tasks[j]
		if a.MVID != b.MVID {
			return a.MVID < b.MVID
		}
		ca, cb := derefMs(a.CreateTimeMs), derefMs(b.CreateTimeMs)
		if ca != cb {
			return ca > cb
		}
		return a.TaskID > b.TaskID
	})
	for _, task := range tasks {
		key := fmt.Sprint(task.MVID)
		if perMV[key] >= n {
			continue
		}
		perMV[key]++
		col.snap.Tasks = append(col.snap.Tasks, task)
	}
}

func derefMs(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func (col *collector) mvStatus(ctx context.Context) {
	t, ok := col.selectInfo(ctx, &doris.IVMMVStatus.Relation, "", false)
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceIVMMVStatus, "")
		rr.row = rr.raw(doris.IVMMVStatus.DBName) + "." + rr.raw(doris.IVMMVStatus.MVName)
		col.snap.MVStatus = append(col.snap.MVStatus, snapshot.MVStatus{
			DB: rr.raw(doris.IVMMVStatus.DBName), MVName: rr.raw(doris.IVMMVStatus.MVName), MVID: rr.int(doris.IVMMVStatus.MVID), FreshnessState: rr.raw(doris.IVMMVStatus.FreshnessState),
			DataDelaySeconds: rr.optFloat(doris.IVMMVStatus.DataDelaySeconds), DelayPrecision: rr.raw(doris.IVMMVStatus.DelayPrecision),
			LaggingReason: rr.raw(doris.IVMMVStatus.LaggingReason), LaggingDependencies: rr.raw(doris.IVMMVStatus.LaggingDependencies),
			DirtyPartitions: rr.raw(doris.IVMMVStatus.DirtyPartitions), PendingPublishTxnsText: rr.str(doris.IVMMVStatus.PendingPublishTxns),
			ExcludedOutdatedDependencies: rr.raw(doris.IVMMVStatus.ExcludedOutdatedDependencies),
			MaxExcludedDelaySeconds:      rr.optFloat(doris.IVMMVStatus.MaxExcludedDelaySeconds),
			MinRetentionHeadroomSeconds:  rr.optFloat(doris.IVMMVStatus.MinRetentionHeadroomSeconds), JobStatus: rr.raw(doris.IVMMVStatus.JobStatus),
			CurrentTaskID: rr.optInt(doris.IVMMVStatus.CurrentTaskID, false), CurrentTaskStatus: rr.raw(doris.IVMMVStatus.CurrentTaskStatus),
			CurrentTaskAgeSeconds: rr.optFloat(doris.IVMMVStatus.CurrentTaskAgeSeconds), ConsecutiveFailures: rr.optInt(doris.IVMMVStatus.ConsecutiveFailures, false),
			LastSuccessTimeMs: rr.optTimeMs(doris.IVMMVStatus.LastSuccessTime), LastFailureTimeMs: rr.optTimeMs(doris.IVMMVStatus.LastFailureTime),
			LastFailureReason: rr.raw(doris.IVMMVStatus.LastFailureReason), LastErrorMessage: rr.raw(doris.IVMMVStatus.LastErrorMessage),
			LastRefreshMethod: rr.raw(doris.IVMMVStatus.LastRefreshMethod), LastRefreshDurationMs: rr.optInt(doris.IVMMVStatus.LastRefreshDurationMs, false),
			FallbackCount: rr.optInt(doris.IVMMVStatus.FallbackCount, false), LastFallbackReason: rr.raw(doris.IVMMVStatus.LastFallbackReason),
			LastFallbackTimeMs: rr.optTimeMs(doris.IVMMVStatus.LastFallbackTime), SampleTimeMs: rr.optTimeMs(doris.IVMMVStatus.SampleTime),
		})
	}
}

func (col *collector) dependencies(ctx context.Context) {
	t, ok := col.selectInfo(ctx, &doris.IVMDependencies.Relation, "", false)
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceIVMDependencies, "")
		rr.row = rr.raw(doris.IVMDependencies.DBName) + "." + rr.raw(doris.IVMDependencies.MVName) + " " + rr.raw(doris.IVMDependencies.BaseTableDB) + "." + rr.raw(doris.IVMDependencies.BaseTableName)
		col.snap.Dependencies = append(col.snap.Dependencies, snapshot.Dependency{
			DB: rr.raw(doris.IVMDependencies.DBName), MVName: rr.raw(doris.IVMDependencies.MVName), MVID: rr.int(doris.IVMDependencies.MVID), BaseTableCtl: rr.raw(doris.IVMDependencies.BaseTableCtl),
			BaseTableDB: rr.raw(doris.IVMDependencies.BaseTableDB), BaseTableName: rr.raw(doris.IVMDependencies.BaseTableName), BaseTableID: rr.optInt(doris.IVMDependencies.BaseTableID, false),
			IsExcludedTrigger: rr.bool(doris.IVMDependencies.IsExcludedTrigger), StreamName: rr.raw(doris.IVMDependencies.StreamName), StreamID: rr.optInt(doris.IVMDependencies.StreamID, false),
			DependencyState: rr.raw(doris.IVMDependencies.DependencyState), Covered: rr.optBool(doris.IVMDependencies.Covered),
			LaggingPartitions: rr.raw(doris.IVMDependencies.LaggingPartitions), WorstPartition: rr.raw(doris.IVMDependencies.WorstPartition),
			DelaySeconds: rr.optFloat(doris.IVMDependencies.DelaySeconds), DelayPrecision: rr.raw(doris.IVMDependencies.DelayPrecision),
			CoveredVersion: rr.optInt(doris.IVMDependencies.CoveredVersion, false), CurrentVersion: rr.optInt(doris.IVMDependencies.CurrentVersion, false),
			MinRetentionHeadroomSeconds: rr.optFloat(doris.IVMDependencies.MinRetentionHeadroomSeconds), CanResume: rr.optBool(doris.IVMDependencies.CanResume),
			SampleTimeMs: rr.optTimeMs(doris.IVMDependencies.SampleTime),
		})
	}
}

// mvDatabases are the databases with MVs: those jobs("type"="mv") and
// ivm_mv_status name, and those holding internal IVM streams. When jobs()
// could not be read, every database with a stream is tried.
func (col *collector) mvDatabases() []string {
	set := map[string]bool{}
	for _, j := range col.snap.Jobs {
		set[j.MVDatabaseName] = true
	}
	for _, m := range col.snap.MVStatus {
		set[m.DB] = true
	}
	_, jobsOK := col.snap.Capabilities.Sources[snapshot.SourceJobs]
	for _, s := range col.snap.Streams {
		if s.IsInternal() || !jobsOK || !col.snap.Capabilities.Sources[snapshot.SourceJobs].Present {
			set[s.DB] = true
		}
	}
	delete(set, "")
	out := make([]string, 0, len(set))
	for db := range set {
		out = append(out, db)
	}
	sort.Strings(out)
	return out
}

// mvInfos calls mv_infos() once per database with MVs: the one per-database
// query of the collector (design.md "Performance budgets").
func (col *collector) mvInfos(ctx context.Context) {
	for _, db := range col.mvDatabases() {
		t, ok := col.tvf(ctx, snapshot.SourceMVInfos, doris.MVInfos.Statements[0].Build(doris.QuoteLiteral(db)))
		if !ok {
			continue
		}
		for _, r := range t.Rows {
			rr := col.reader(t, r, snapshot.SourceMVInfos, "")
			rr.row = db + "." + rr.str(doris.MVInfos.Name)
			col.snap.MVs = append(col.snap.MVs, snapshot.MVInfo{
				ID: rr.int(doris.MVInfos.ID), DB: db, Name: rr.str(doris.MVInfos.Name), JobName: rr.str(doris.MVInfos.JobName), State: rr.str(doris.MVInfos.State),
				SchemaChangeDetail: rr.str(doris.MVInfos.SchemaChangeDetail), RefreshState: rr.str(doris.MVInfos.RefreshState),
				RefreshInfo: rr.str(doris.MVInfos.RefreshInfo), QuerySQL: rr.str(doris.MVInfos.QuerySQL), EnvInfo: rr.str(doris.MVInfos.EnvInfo),
				MvProperties: rr.str(doris.MVInfos.MvProperties), MvPartitionInfo: rr.str(doris.MVInfos.MvPartitionInfo),
				SyncWithBaseTables: rr.optBool(doris.MVInfos.SyncWithBaseTables), IvmBaseTableStreams: rr.str(doris.MVInfos.IvmBaseTableStreams),
			})
		}
	}
}
