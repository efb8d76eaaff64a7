package scrape

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Column lists: the names real Doris serves (docs/snapshot.md says where each
// was verified). Only the ones the build has are selected.
var (
	tsoCols = []string{"CURRENT_TSO", "CURRENT_TSO_PHYSICAL_TIME", "CURRENT_TSO_LOGICAL_COUNTER", "WINDOW_END_PHYSICAL_TIME",
		"COMMITTED_TSO", "COMMITTED_TSO_PHYSICAL_TIME"}
	streamCols = []string{"DB_NAME", "STREAM_NAME", "STREAM_ID", "STREAM_TYPE", "CONSUME_TYPE", "STREAM_COMMENT",
		"BASE_TABLE_NAME", "BASE_TABLE_DB", "BASE_TABLE_CTL", "BASE_TABLE_TYPE", "ENABLED", "IS_STALE", "STALE_REASON",
		"IVM_MV_ID", "MONITOR_STATE", "PENDING_PARTITIONS", "MAX_PENDING_AGE_SECONDS", "PENDING_AGE_PRECISION",
		"CAN_RESUME", "MIN_RETENTION_HEADROOM_SECONDS", "GAP_EVENTS", "LAST_GAP_TIME", "MONITOR_SAMPLE_TIME"}
	consumptionCols = []string{"DB_NAME", "STREAM_NAME", "STREAM_ID", "UNIT", "CONSUMPTION_STATUS", "LAG",
		"LAST_CONSUMPTION_TIME", "SOURCE_END_TSO", "CONSUMED_TSO", "OFFSET_STATE", "CAUGHT_UP", "POSITION_GAP_SECONDS",
		"PENDING_AGE_SECONDS", "PENDING_AGE_PRECISION", "RETENTION_APPLICABLE", "RETENTION_FLOOR_TSO",
		"NEXT_REQUIRED_TSO", "CAN_RESUME", "RETENTION_HEADROOM_SECONDS", "LAST_GAP_TIME"}
	mvStatusCols = []string{"DB_NAME", "MV_NAME", "MV_ID", "FRESHNESS_STATE", "DATA_DELAY_SECONDS", "DELAY_PRECISION",
		"LAGGING_REASON", "LAGGING_DEPENDENCIES", "DIRTY_PARTITIONS", "PENDING_PUBLISH_TXNS",
		"EXCLUDED_OUTDATED_DEPENDENCIES", "MAX_EXCLUDED_DELAY_SECONDS", "MIN_RETENTION_HEADROOM_SECONDS", "JOB_STATUS",
		"CURRENT_TASK_ID", "CURRENT_TASK_STATUS", "CURRENT_TASK_AGE_SECONDS", "CONSECUTIVE_FAILURES",
		"LAST_SUCCESS_TIME", "LAST_FAILURE_TIME", "LAST_FAILURE_REASON", "LAST_ERROR_MESSAGE", "LAST_REFRESH_METHOD",
		"LAST_REFRESH_DURATION_MS", "FALLBACK_COUNT", "LAST_FALLBACK_REASON", "LAST_FALLBACK_TIME", "SAMPLE_TIME"}
	dependencyCols = []string{"DB_NAME", "MV_NAME", "MV_ID", "BASE_TABLE_CTL", "BASE_TABLE_DB", "BASE_TABLE_NAME",
		"BASE_TABLE_ID", "IS_EXCLUDED_TRIGGER", "STREAM_NAME", "STREAM_ID", "DEPENDENCY_STATE", "COVERED",
		"LAGGING_PARTITIONS", "WORST_PARTITION", "DELAY_SECONDS", "DELAY_PRECISION", "COVERED_VERSION",
		"CURRENT_VERSION", "MIN_RETENTION_HEADROOM_SECONDS", "CAN_RESUME", "SAMPLE_TIME"}
)

// clock reads the current TSO: information_schema.tso_status, else
// SHOW TSO STATUS, else GET /api/tso on the Master FE (tsoTargets; SHOW
// FRONTENDS is read before the clock for this). Without any, the collection
// fails: "now" is the cluster's TSO, never the client clock.
func (col *collector) clock(ctx context.Context) error {
	var errs []string
	if t, ok := col.selectInfo(ctx, "tso_status", tsoCols, "", false); ok {
		if len(t.rows) > 0 {
			rr := col.reader(t, t.rows[0], snapshot.SourceTSOStatus, "")
			if cur := rr.optTSO("CURRENT_TSO"); cur != nil && cur.IsReal() && *cur > 0 {
				col.snap.Cluster.CurrentTSO = *cur
				col.snap.Cluster.ClockSource = snapshot.SourceTSOStatus
				col.snap.Cluster.CommittedTSO = rr.optTSO("COMMITTED_TSO")
				return nil
			}
		}
		errs = append(errs, "information_schema.tso_status: no current TSO")
	} else {
		errs = append(errs, "information_schema.tso_status: not readable")
	}
	const showTSO = "SHOW TSO STATUS"
	t, err := col.c.query(ctx, showTSO)
	if err == nil && len(t.rows) > 0 {
		col.capability(snapshot.SourceShowTSOStatus, true, t.cols)
		rr := col.reader(t, t.rows[0], snapshot.SourceShowTSOStatus, "")
		if cur := rr.optTSO("current_tso"); cur != nil && *cur > 0 && cur.IsReal() {
			col.snap.Cluster.CurrentTSO = *cur
			col.snap.Cluster.ClockSource = snapshot.SourceShowTSOStatus
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
		cur, url, herr := fetchTSO(ctx, col.cfg, target)
		if herr == nil {
			col.capability(snapshot.SourceHTTPTSO, true, nil)
			col.snap.Cluster.CurrentTSO = cur
			col.snap.Cluster.ClockSource = snapshot.SourceHTTPTSO
			return nil
		}
		herrs, urls = append(herrs, herr), append(urls, url)
		// The next target is asked only when this FE says it is not the
		// Master (--host is on a follower after all, e.g. behind a
		// load balancer).
		var fe *feAnswerError
		if i+1 < len(targets) && !(errors.As(herr, &fe) && fe.notMaster()) {
			break
		}
	}
	col.capability(snapshot.SourceHTTPTSO, false, nil)
	for i, herr := range herrs {
		col.gap(snapshot.SourceHTTPTSO, urls[i], herr)
		errs = append(errs, "GET /api/tso: "+herr.Error())
	}
	return redact(fmt.Errorf("no cluster clock could be read (%s)", strings.Join(errs, "; ")), col.cfg.Password)
}

func (col *collector) show(ctx context.Context, source, q string) (*table, bool) {
	t, err := col.c.query(ctx, q)
	if err != nil {
		col.capability(source, false, nil)
		col.gap(source, q, err)
		return nil, false
	}
	col.capability(source, true, t.cols)
	return t, true
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func atoi(s string) int {
	var n int
	_, err := fmt.Sscan(strings.TrimSpace(s), &n)
	if err != nil {
		return 0
	}
	return n
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
	user := net.JoinHostPort(col.cfg.Host, strconv.Itoa(col.cfg.HTTPPort))
	master := ""
	if col.frontendsRead {
		for _, fe := range col.snap.Frontends {
			if fe.IsMaster && fe.Host != "" && fe.HTTPPort > 0 {
				master = net.JoinHostPort(fe.Host, strconv.Itoa(fe.HTTPPort))
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
	t, ok := col.show(ctx, snapshot.SourceFrontends, "SHOW FRONTENDS")
	if !ok {
		return
	}
	col.frontendsRead = true
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceFrontends, "")
		// CurrentConnected says which FE serves this session: its /metrics
		// is the one fetched, and only the Master's has the state series.
		if strings.EqualFold(rr.raw("CurrentConnected"), "yes") {
			col.connectedMaster = rr.bool("IsMaster")
			col.connectedKnown = true
		}
		col.snap.Frontends = append(col.snap.Frontends, snapshot.Node{
			Kind: "fe", ID: rr.raw("Name"), Host: firstNonEmpty(rr.raw("Host"), rr.raw("HostName"), rr.raw("IP")),
			HTTPPort: atoi(rr.raw("HttpPort")), QueryPort: atoi(rr.raw("QueryPort")),
			IsMaster: rr.bool("IsMaster"), Alive: rr.bool("Alive"), Version: rr.raw("Version"),
		})
	}
}

func (col *collector) backends(ctx context.Context) {
	t, ok := col.show(ctx, snapshot.SourceBackends, "SHOW BACKENDS")
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceBackends, "")
		col.snap.Backends = append(col.snap.Backends, snapshot.Node{
			Kind: "be", ID: rr.raw("BackendId"), Host: firstNonEmpty(rr.raw("Host"), rr.raw("HostName"), rr.raw("IP")),
			HTTPPort: atoi(rr.raw("HttpPort")), Alive: rr.bool("Alive"), Version: rr.raw("Version"),
		})
	}
}

func (col *collector) streams(ctx context.Context) {
	t, ok := col.selectInfo(ctx, "table_streams", streamCols, "", true)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceTableStreams, "")
		rr.row = rr.raw("DB_NAME") + "." + rr.raw("STREAM_NAME")
		st := snapshot.Stream{
			DB: rr.raw("DB_NAME"), Name: rr.raw("STREAM_NAME"), ID: rr.int("STREAM_ID"),
			Type: rr.raw("STREAM_TYPE"), ConsumeType: rr.raw("CONSUME_TYPE"), Comment: rr.raw("STREAM_COMMENT"),
			BaseTableCtl: rr.raw("BASE_TABLE_CTL"), BaseTableDB: rr.raw("BASE_TABLE_DB"),
			BaseTableName: rr.raw("BASE_TABLE_NAME"), BaseTableType: rr.raw("BASE_TABLE_TYPE"),
			Enabled: rr.bool("ENABLED"), IsStale: rr.bool("IS_STALE"), StaleReason: rr.naStr("STALE_REASON"),
			IvmMVID: rr.optInt("IVM_MV_ID", false), MonitorState: rr.optStr("MONITOR_STATE"),
			PendingPartitions: rr.optInt("PENDING_PARTITIONS", false), MaxPendingAgeSeconds: rr.optFloat("MAX_PENDING_AGE_SECONDS"),
			PendingAgePrecision: rr.optStr("PENDING_AGE_PRECISION"), CanResume: rr.optBool("CAN_RESUME"),
			MinRetentionHeadroomSeconds: rr.optFloat("MIN_RETENTION_HEADROOM_SECONDS"), GapEvents: rr.optInt("GAP_EVENTS", false),
			LastGapTimeMs: rr.optTimeMs("LAST_GAP_TIME"), MonitorSampleTimeMs: rr.optTimeMs("MONITOR_SAMPLE_TIME"),
		}
		// A dropped base table shows N/A in all four base columns (doris.md
		// §3); the raw text is kept.
		if st.BaseTableName == "N/A" && st.BaseTableDB == "N/A" && st.BaseTableCtl == "N/A" && st.BaseTableType == "N/A" {
			st.BaseTableDropped = true
		}
		col.snap.Streams = append(col.snap.Streams, st)
	}
}

func (col *collector) consumption(ctx context.Context) {
	t, ok := col.selectInfo(ctx, "table_stream_consumption", consumptionCols, "", true)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceTableStreamConsumption, "")
		rr.row = rr.raw("DB_NAME") + "." + rr.raw("STREAM_NAME") + " " + rr.raw("UNIT")
		c := snapshot.Consumption{
			DB: rr.raw("DB_NAME"), StreamName: rr.raw("STREAM_NAME"), StreamID: rr.int("STREAM_ID"), Unit: rr.raw("UNIT"),
			ConsumptionStatus: rr.raw("CONSUMPTION_STATUS"), Lag: rr.raw("LAG"),
			LastConsumptionTimeMs: rr.optTimeMs("LAST_CONSUMPTION_TIME"),
			SourceEndTSO:          rr.optTSO("SOURCE_END_TSO"), ConsumedTSO: rr.optTSO("CONSUMED_TSO"),
			OffsetState: rr.optStr("OFFSET_STATE"), CaughtUp: rr.optBool("CAUGHT_UP"),
			PositionGapSeconds: rr.optFloat("POSITION_GAP_SECONDS"), PendingAgeSeconds: rr.optFloat("PENDING_AGE_SECONDS"),
			PendingAgePrecision: rr.optStr("PENDING_AGE_PRECISION"), RetentionApplicable: rr.optBool("RETENTION_APPLICABLE"),
			RetentionFloorTSO: rr.optTSO("RETENTION_FLOOR_TSO"), NextRequiredTSO: rr.optTSO("NEXT_REQUIRED_TSO"),
			CanResume: rr.optBool("CAN_RESUME"), RetentionHeadroomSeconds: rr.optFloat("RETENTION_HEADROOM_SECONDS"),
			LastGapTimeMs: rr.optTimeMs("LAST_GAP_TIME"),
		}
		// CONSUMPTION_STATUS is the offset as text; <= 0, N/A, `\N` mean no
		// real offset (doris.md §4).
		if p, err := tso.ParseOffset(c.ConsumptionStatus); err != nil {
			rr.bad("CONSUMPTION_STATUS", c.ConsumptionStatus, err.Error())
		} else if p.Kind == tso.KindTSO {
			v := p.TSO
			c.Offset = &v
		}
		if lag, ok, err := tso.ParseLag(c.Lag); err != nil {
			rr.bad("LAG", c.Lag, err.Error())
		} else if ok {
			c.LagValue = &lag
		}
		col.snap.Consumption = append(col.snap.Consumption, c)
	}
}

// tvf reads a metadata TVF with SELECT * and maps its columns by name: a
// TVF's columns are not in information_schema.columns, and the result names
// them as well (a missing newer column is simply absent).
func (col *collector) tvf(ctx context.Context, source, q string) (*table, bool) {
	t, err := col.c.query(ctx, q)
	if err != nil {
		if _, seen := col.snap.Capabilities.Sources[source]; !seen {
			col.capability(source, !isUnknownTable(err), nil)
		}
		col.gap(source, q, err)
		return nil, false
	}
	col.capability(source, true, t.cols)
	return t, true
}

func (col *collector) jobs(ctx context.Context) {
	t, ok := col.tvf(ctx, snapshot.SourceJobs, `SELECT * FROM jobs('type' = 'mv')`)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceJobs, "")
		rr.row = rr.str("MvDatabaseName") + "." + rr.str("MvName")
		col.snap.Jobs = append(col.snap.Jobs, snapshot.Job{
			ID: rr.int("Id"), Name: rr.str("Name"), MVID: rr.int("MvId"), MVName: rr.str("MvName"),
			MVDatabaseID: rr.optInt("MvDatabaseId", false), MVDatabaseName: rr.str("MvDatabaseName"),
			ExecuteType: rr.str("ExecuteType"), RecurringStrategy: rr.str("RecurringStrategy"), Status: rr.str("Status"),
			CreateTimeMs: rr.optTimeMs("CreateTime"),
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
	q := fmt.Sprintf("SELECT * FROM (SELECT t.*, ROW_NUMBER() OVER (PARTITION BY t.%s ORDER BY t.%s DESC, t.%s DESC) AS %s FROM tasks('type' = 'mv') t) ranked WHERE %s <= %d",
		QuoteIdent("MvId"), QuoteIdent("CreateTime"), QuoteIdent("TaskId"), QuoteIdent("dorisdiag_rank"), QuoteIdent("dorisdiag_rank"), n)
	t, err := col.c.query(ctx, q)
	if err != nil {
		col.gap(snapshot.SourceTasks, q, fmt.Errorf("windowed read failed, reading tasks() whole: %w", err))
		var ok bool
		if t, ok = col.tvf(ctx, snapshot.SourceTasks, `SELECT * FROM tasks('type' = 'mv')`); !ok {
			return
		}
	} else {
		cols := make([]string, 0, len(t.cols))
		for _, c := range t.cols {
			if !strings.EqualFold(c, "dorisdiag_rank") {
				cols = append(cols, c)
			}
		}
		col.capability(snapshot.SourceTasks, true, cols)
	}
	perMV := map[string]int{}
	var tasks []snapshot.Task
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceTasks, "")
		rr.row = rr.str("MvDatabaseName") + "." + rr.str("MvName") + " task " + rr.str("TaskId")
		task := snapshot.Task{
			TaskID: rr.int("TaskId"), JobID: rr.int("JobId"), JobName: rr.str("JobName"), MVID: rr.int("MvId"),
			MVName: rr.str("MvName"), MVDatabaseID: rr.optInt("MvDatabaseId", false), MVDatabaseName: rr.str("MvDatabaseName"),
			Status: rr.str("Status"), ErrorMsg: rr.str("ErrorMsg"), CreateTimeMs: rr.optTimeMs("CreateTime"),
			StartTimeMs: rr.optTimeMs("StartTime"), FinishTimeMs: rr.optTimeMs("FinishTime"),
			DurationMs: rr.optInt("DurationMs", true), TaskContext: rr.str("TaskContext"), RefreshMode: rr.str("RefreshMode"),
			NeedRefreshPartitions: rr.str("NeedRefreshPartitions"), CompletedPartitions: rr.str("CompletedPartitions"),
			Progress: rr.str("Progress"), LastQueryID: rr.str("LastQueryId"), ComputeGroup: rr.str("ComputeGroup"),
			IvmFallbackReason: rr.str("IvmFallbackReason"), IvmRebuiltPartitions: rr.optInt("IvmRebuiltPartitions", false),
			IvmRefreshMethod: rr.optStr("IvmRefreshMethod"),
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
	t, ok := col.selectInfo(ctx, "ivm_mv_status", mvStatusCols, "", false)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceIVMMVStatus, "")
		rr.row = rr.raw("DB_NAME") + "." + rr.raw("MV_NAME")
		col.snap.MVStatus = append(col.snap.MVStatus, snapshot.MVStatus{
			DB: rr.raw("DB_NAME"), MVName: rr.raw("MV_NAME"), MVID: rr.int("MV_ID"), FreshnessState: rr.raw("FRESHNESS_STATE"),
			DataDelaySeconds: rr.optFloat("DATA_DELAY_SECONDS"), DelayPrecision: rr.raw("DELAY_PRECISION"),
			LaggingReason: rr.raw("LAGGING_REASON"), LaggingDependencies: rr.raw("LAGGING_DEPENDENCIES"),
			DirtyPartitions: rr.raw("DIRTY_PARTITIONS"), PendingPublishTxns: rr.optInt("PENDING_PUBLISH_TXNS", false),
			ExcludedOutdatedDependencies: rr.raw("EXCLUDED_OUTDATED_DEPENDENCIES"),
			MaxExcludedDelaySeconds:      rr.optFloat("MAX_EXCLUDED_DELAY_SECONDS"),
			MinRetentionHeadroomSeconds:  rr.optFloat("MIN_RETENTION_HEADROOM_SECONDS"), JobStatus: rr.raw("JOB_STATUS"),
			CurrentTaskID: rr.optInt("CURRENT_TASK_ID", false), CurrentTaskStatus: rr.raw("CURRENT_TASK_STATUS"),
			CurrentTaskAgeSeconds: rr.optFloat("CURRENT_TASK_AGE_SECONDS"), ConsecutiveFailures: rr.optInt("CONSECUTIVE_FAILURES", false),
			LastSuccessTimeMs: rr.optTimeMs("LAST_SUCCESS_TIME"), LastFailureTimeMs: rr.optTimeMs("LAST_FAILURE_TIME"),
			LastFailureReason: rr.raw("LAST_FAILURE_REASON"), LastErrorMessage: rr.raw("LAST_ERROR_MESSAGE"),
			LastRefreshMethod: rr.raw("LAST_REFRESH_METHOD"), LastRefreshDurationMs: rr.optInt("LAST_REFRESH_DURATION_MS", false),
			FallbackCount: rr.optInt("FALLBACK_COUNT", false), LastFallbackReason: rr.raw("LAST_FALLBACK_REASON"),
			LastFallbackTimeMs: rr.optTimeMs("LAST_FALLBACK_TIME"), SampleTimeMs: rr.optTimeMs("SAMPLE_TIME"),
		})
	}
}

func (col *collector) dependencies(ctx context.Context) {
	t, ok := col.selectInfo(ctx, "ivm_dependencies", dependencyCols, "", false)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceIVMDependencies, "")
		rr.row = rr.raw("DB_NAME") + "." + rr.raw("MV_NAME") + " " + rr.raw("BASE_TABLE_DB") + "." + rr.raw("BASE_TABLE_NAME")
		col.snap.Dependencies = append(col.snap.Dependencies, snapshot.Dependency{
			DB: rr.raw("DB_NAME"), MVName: rr.raw("MV_NAME"), MVID: rr.int("MV_ID"), BaseTableCtl: rr.raw("BASE_TABLE_CTL"),
			BaseTableDB: rr.raw("BASE_TABLE_DB"), BaseTableName: rr.raw("BASE_TABLE_NAME"), BaseTableID: rr.optInt("BASE_TABLE_ID", false),
			IsExcludedTrigger: rr.bool("IS_EXCLUDED_TRIGGER"), StreamName: rr.raw("STREAM_NAME"), StreamID: rr.optInt("STREAM_ID", false),
			DependencyState: rr.raw("DEPENDENCY_STATE"), Covered: rr.optBool("COVERED"),
			LaggingPartitions: rr.raw("LAGGING_PARTITIONS"), WorstPartition: rr.raw("WORST_PARTITION"),
			DelaySeconds: rr.optFloat("DELAY_SECONDS"), DelayPrecision: rr.raw("DELAY_PRECISION"),
			CoveredVersion: rr.optInt("COVERED_VERSION", false), CurrentVersion: rr.optInt("CURRENT_VERSION", false),
			MinRetentionHeadroomSeconds: rr.optFloat("MIN_RETENTION_HEADROOM_SECONDS"), CanResume: rr.optBool("CAN_RESUME"),
			SampleTimeMs: rr.optTimeMs("SAMPLE_TIME"),
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
		if strings.HasPrefix(s.Name, "__doris_ivm_stream_") || !jobsOK || !col.snap.Capabilities.Sources[snapshot.SourceJobs].Present {
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
		t, ok := col.tvf(ctx, snapshot.SourceMVInfos, "SELECT * FROM mv_infos('database' = "+QuoteLiteral(db)+")")
		if !ok {
			continue
		}
		for _, r := range t.rows {
			rr := col.reader(t, r, snapshot.SourceMVInfos, "")
			rr.row = db + "." + rr.str("Name")
			col.snap.MVs = append(col.snap.MVs, snapshot.MVInfo{
				ID: rr.int("Id"), DB: db, Name: rr.str("Name"), JobName: rr.str("JobName"), State: rr.str("State"),
				SchemaChangeDetail: rr.str("SchemaChangeDetail"), RefreshState: rr.str("RefreshState"),
				RefreshInfo: rr.str("RefreshInfo"), QuerySQL: rr.str("QuerySql"), EnvInfo: rr.str("EnvInfo"),
				MvProperties: rr.str("MvProperties"), MvPartitionInfo: rr.str("MvPartitionInfo"),
				SyncWithBaseTables: rr.optBool("SyncWithBaseTables"), IvmBaseTableStreams: rr.str("IvmBaseTableStreams"),
			})
		}
	}
}
