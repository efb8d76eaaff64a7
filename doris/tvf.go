package doris

// The metadata table-valued functions. Every column is a string unless
// noted, and an unset value is the literal text `\N`.

var tvfNull = []string{`\N`}

func tcol(name string, t Type, f Format, read bool) Column {
	return Column{Name: name, Type: t, Nullable: true, Format: f, Read: read, Sentinels: tvfNull}
}

// MVInfosRel is mv_infos('database' = db).
type MVInfosRel struct {
	Relation
	ID, Name, JobName, State, SchemaChangeDetail, RefreshState, RefreshInfo, QuerySQL, EnvInfo Column
	MvProperties, MvPartitionInfo, SyncWithBaseTables, IvmBaseTableStreams                     Column
}

// MVInfos describes the MVs of one database; called once per database
// that has MVs (the collector's one per-database statement).
var MVInfos = &MVInfosRel{
	Relation: Relation{Source: SourceMVInfos, Kind: TVF, Name: "mv_infos",
		Mirrors:    "fe/fe-core/.../tablefunction/MvInfosTableValuedFunction.java @0fb9723f (SCHEMA); values: MetadataGenerator.mtmvMetadataResult",
		Statements: []Statement{{Template: "SELECT * FROM mv_infos('database' = {literal})", When: "once per database with MVs"}},
		Note:       "the argument key is checked case-insensitively; its columns are not in information_schema.columns, so the result names them"},
	ID:      Column{Name: "Id", Type: BIGINT, Nullable: true, Format: Integer, Read: true},
	Name:    tcol("Name", STRING, Text, true),
	JobName: tcol("JobName", STRING, Text, true),
	State: Column{Name: "State", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Enum, Read: true, Note: "INIT | NORMAL | SCHEMA_CHANGE: a base table or view was dropped or altered, or the MV query stopped analyzing (MTMVRelationManager); " +
		"the MV is not used for rewriting, and the next successful refresh sets NORMAL again"},
	SchemaChangeDetail: Column{Name: "SchemaChangeDetail", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Text, Read: true, Note: "empty for NORMAL; why SCHEMA_CHANGE: 'The base table has been deleted:' or 'The base table has been updated:' followed by " +
		"BaseTableInfo{tableName='t', dbName='db', ctlName='internal'}, 'The base view has been updated:', and on IVM builds " +
		"'The MV query is no longer analyzable: ...', 'The MV query reads a column the change is about: ...'"},
	RefreshState:        Column{Name: "RefreshState", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Enum, Read: true, Note: "INIT | FAIL | SUCCESS"},
	RefreshInfo:         tcol("RefreshInfo", STRING, RefreshText, true),
	QuerySQL:            tcol("QuerySql", STRING, Text, true),
	EnvInfo:             Column{Name: "EnvInfo", Type: STRING, Nullable: true, Avail: SomeBuilds, Sentinels: tvfNull, Format: Text, Read: true, Note: "after QuerySql in some builds"},
	MvProperties:        Column{Name: "MvProperties", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: JavaMap, Read: true, Note: "mv.getMvProperties().toString(): {excluded_trigger_tables=db.t1,db.t2, partition_sync_limit=100} or {}; entries split by \", \", a value may hold commas; JSON read as a fallback"},
	MvPartitionInfo:     tcol("MvPartitionInfo", STRING, Text, true),
	SyncWithBaseTables:  Column{Name: "SyncWithBaseTables", Type: BOOLEAN, Nullable: true, Format: Bool01, Read: true},
	IvmBaseTableStreams: Column{Name: "IvmBaseTableStreams", Type: STRING, Nullable: true, Avail: SomeBuilds, Sentinels: tvfNull, Format: Text, Read: true, Note: "documented in the IVM docs only, in no code version (UNVERIFIED); format undocumented, kept raw"},
}

// JobsRel is jobs('type' = 'mv').
type JobsRel struct {
	Relation
	ID, Name, MvID, MvName, MvDatabaseID, MvDatabaseName, ExecuteType, RecurringStrategy, Status, CreateTime Column
}

// Jobs lists the MV refresh jobs.
var Jobs = &JobsRel{
	Relation: Relation{Source: SourceJobs, Kind: TVF, Name: "jobs",
		Mirrors:    "fe/fe-core/.../job/extensions/mtmv/MTMVJob.java @60a8bb75 (SCHEMA)",
		Statements: []Statement{{Template: "SELECT * FROM jobs('type' = 'mv')", When: "always"}}},
	ID:                tcol("Id", STRING, Integer, true),
	Name:              Column{Name: "Name", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Text, Read: true, Note: "inner_mtmv_<mvId>"},
	MvID:              tcol("MvId", STRING, Integer, true),
	MvName:            tcol("MvName", STRING, Text, true),
	MvDatabaseID:      tcol("MvDatabaseId", STRING, Integer, true),
	MvDatabaseName:    tcol("MvDatabaseName", STRING, Text, true),
	ExecuteType:       tcol("ExecuteType", STRING, Enum, true),
	RecurringStrategy: tcol("RecurringStrategy", STRING, Text, true),
	Status:            Column{Name: "Status", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Enum, Read: true, Note: "RUNNING | PAUSED | ..."},
	CreateTime:        Column{Name: "CreateTime", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Datetime, Read: true, Note: "TimeUtils.longToTimeString"},
}

// TasksRel is tasks('type' = 'mv').
type TasksRel struct {
	Relation
	TaskID, JobID, JobName, MvID, MvName, MvDatabaseID, MvDatabaseName, Status, ErrorMsg           Column
	CreateTime, StartTime, FinishTime, DurationMs, TaskContext, RefreshMode, NeedRefreshPartitions Column
	CompletedPartitions, Progress, LastQueryID, ComputeGroup, IvmFallbackReason                    Column
	IvmRebuiltPartitions, IvmRefreshMethod                                                         Column
}

// Tasks is the (bounded) MV refresh task history.
var Tasks = &TasksRel{
	Relation: Relation{Source: SourceTasks, Kind: TVF, Name: "tasks",
		Mirrors: "fe/fe-core/.../job/extensions/mtmv/MTMVTask.java (SCHEMA, the version with IvmRebuiltPartitions)",
		Statements: []Statement{
			{Template: "SELECT * FROM (SELECT t.*, ROW_NUMBER() OVER (PARTITION BY t.`MvId` ORDER BY t.`CreateTime` DESC, t.`TaskId` DESC) AS `dorisdiag_rank` FROM tasks('type' = 'mv') t) ranked WHERE `dorisdiag_rank` <= {n}",
				When: "the latest N tasks of every MV in one statement (UNVERIFIED that every build runs a window over a TVF)"},
			{Template: "SELECT * FROM tasks('type' = 'mv')", When: "when the windowed read fails; bounded client-side"},
		},
		Note: "TaskId is a string, so the tie-break is lexicographic"},
	TaskID:         tcol("TaskId", STRING, Integer, true),
	JobID:          tcol("JobId", STRING, Integer, true),
	JobName:        tcol("JobName", STRING, Text, true),
	MvID:           tcol("MvId", STRING, Integer, true),
	MvName:         tcol("MvName", STRING, Text, true),
	MvDatabaseID:   tcol("MvDatabaseId", STRING, Integer, true),
	MvDatabaseName: tcol("MvDatabaseName", STRING, Text, true),
	Status:         Column{Name: "Status", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Enum, Read: true, Note: "PENDING | RUNNING | SUCCESS | FAILED | CANCELED"},
	ErrorMsg: Column{Name: "ErrorMsg", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Text, Read: true, Note: "free text; a bounded incremental read that must be retried carries 'ERR_INCR_WINDOW_NOT_READY: reason=END_AFTER_CURRENT_TSO|TSO_RECOVERING, ...' " +
		"(error 5100) or 'ERR_INCR_VISIBLE_WAIT_TIMEOUT: reason=VISIBLE_WAIT_TIMEOUT, ...' (error 5101) (IncrWindowNotReadyException)"},
	CreateTime:            tcol("CreateTime", STRING, Datetime, true),
	StartTime:             tcol("StartTime", STRING, Datetime, true),
	FinishTime:            tcol("FinishTime", STRING, Datetime, true),
	DurationMs:            Column{Name: "DurationMs", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Integer, Read: true, Note: `\N until finished`},
	TaskContext:           Column{Name: "TaskContext", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: JSONText, Read: true, Note: `{"triggerMode":"MANUAL|COMMIT|SYSTEM",...}`},
	RefreshMode:           Column{Name: "RefreshMode", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Enum, Read: true, Note: `COMPLETE | PARTIAL | NOT_REFRESH, or \N after an incremental-only refresh`},
	NeedRefreshPartitions: Column{Name: "NeedRefreshPartitions", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: JSONText, Read: true, Note: "a JSON array"},
	CompletedPartitions:   Column{Name: "CompletedPartitions", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: JSONText, Read: true, Note: "a JSON array"},
	Progress:              tcol("Progress", STRING, Text, true),
	LastQueryID:           tcol("LastQueryId", STRING, Text, true),
	ComputeGroup:          tcol("ComputeGroup", STRING, Text, true),
	IvmFallbackReason:     Column{Name: "IvmFallbackReason", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Enum, Read: true, Note: `\N or empty = none; otherwise an IvmFailureReason or INCOMPLETE_REFRESH_SNAPSHOT`},
	IvmRebuiltPartitions:  Column{Name: "IvmRebuiltPartitions", Type: STRING, Nullable: true, Sentinels: tvfNull, Format: Integer, Read: true, Note: "a count as text"},
	IvmRefreshMethod:      Column{Name: "IvmRefreshMethod", Type: STRING, Nullable: true, Avail: Design, Sentinels: tvfNull, Format: Enum, Read: true, Note: "NONE | INCREMENTAL | PARTITION_REBUILD | COMPLETE | MIXED; in no Doris source yet"},
}
