package doris

// The information_schema tables. Every column of a SchemaTable is nullable
// (SchemaTable.SchemaColumn calls Column(name, type, true)).

// Source names: the keys of snapshot.Capabilities.Sources and of a ReadGap.
const (
	SourceSession                = "session variables"
	SourceTSOStatus              = "information_schema.tso_status"
	SourceShowTSOStatus          = "SHOW TSO STATUS"
	SourceHTTPTSO                = "GET /api/tso"
	SourceTableStreams           = "information_schema.table_streams"
	SourceTableStreamConsumption = "information_schema.table_stream_consumption"
	SourceTableProperties        = "information_schema.table_properties"
	SourceTableOptions           = "information_schema.table_options"
	SourceMetadataNameIDs        = "information_schema.metadata_name_ids"
	SourcePartitions             = "information_schema.partitions"
	SourceIVMMVStatus            = "information_schema.ivm_mv_status"
	SourceIVMDependencies        = "information_schema.ivm_dependencies"
	SourceColumns                = "information_schema.columns"
	SourceMVInfos                = "mv_infos()"
	SourceJobs                   = "jobs()"
	SourceTasks                  = "tasks()"
	SourceFrontends              = "SHOW FRONTENDS"
	SourceBackends               = "SHOW BACKENDS"
	SourceShowData               = "SHOW DATA"
	SourceShowCreateTable        = "SHOW CREATE TABLE"
	SourceMetrics                = "GET /metrics"
)

const schemaTable = "fe/fe-core/src/main/java/org/apache/doris/catalog/SchemaTable.java @000c6bdb"

var (
	na    = []string{"N/A"}
	null  = []string{"NULL"}
	minus = []string{"-1"}
)

func col(name string, t Type, f Format, read bool) Column {
	return Column{Name: name, Type: t, Nullable: true, Format: f, Read: read}
}

// A column is col(...) (or scol, tcol, jcol: one call of constant
// arguments), or a Column literal when it needs more (Avail, Sentinels, a
// Note): the compiler lays either out in the binary, where a call of a call
// (the note(col(...)) this package once wrote) is run by doris.init at every
// start of dorisdiag, writing each column into .data (docs/performance.md
// "Start-up and binary size").

// ColumnsRel is information_schema.columns, the capability probe.
type ColumnsRel struct {
	Relation
	TableCatalog, TableSchema, TableName, ColumnName, OrdinalPosition, DataType Column
}

// Columns is the capability probe: one statement finds which tables and
// columns this build has.
var Columns = &ColumnsRel{
	Relation: Relation{Source: SourceColumns, Kind: InfoSchema, Name: "columns", Mirrors: schemaTable,
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.columns WHERE `TABLE_SCHEMA` = 'information_schema' AND `TABLE_NAME` IN {in} ORDER BY `TABLE_NAME`, `ORDINAL_POSITION`",
			When: "first, to learn which tables and columns exist (on failure every table is read with SELECT *)"}},
		Note: "UNVERIFIED: no source or test shows information_schema.columns listing information_schema's own tables; the collector falls back to SELECT * when the probe fails."},
	TableCatalog:    col("TABLE_CATALOG", VARCHAR, Text, false),
	TableSchema:     col("TABLE_SCHEMA", VARCHAR, Text, false),
	TableName:       col("TABLE_NAME", VARCHAR, Text, true),
	ColumnName:      col("COLUMN_NAME", VARCHAR, Text, true),
	OrdinalPosition: col("ORDINAL_POSITION", BIGINT, Integer, false),
	DataType:        col("DATA_TYPE", VARCHAR, Text, false),
}

// TSOStatusRel is information_schema.tso_status.
type TSOStatusRel struct {
	Relation
	WindowEndPhysicalTime, CurrentTSO, CurrentTSOPhysicalTime, CurrentTSOLogicalCounter Column
	CommittedTSO, CommittedTSOPhysicalTime                                              Column
}

// TSOStatus is the cluster clock, served by the Master FE.
var TSOStatus = &TSOStatusRel{
	Relation: Relation{Source: SourceTSOStatus, Kind: InfoSchema, Name: "tso_status", Mirrors: schemaTable,
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`tso_status`", When: "the cluster clock, first choice"}}},
	WindowEndPhysicalTime:    col("WINDOW_END_PHYSICAL_TIME", BIGINT, UnixMs, true),
	CurrentTSO:               col("CURRENT_TSO", BIGINT, TSO, true),
	CurrentTSOPhysicalTime:   col("CURRENT_TSO_PHYSICAL_TIME", BIGINT, UnixMs, true),
	CurrentTSOLogicalCounter: col("CURRENT_TSO_LOGICAL_COUNTER", BIGINT, Integer, true),
	CommittedTSO:             Column{Name: "COMMITTED_TSO", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: []string{"NULL"}, Format: TSO, Read: true, Note: "cloud mode; in a Doris design note and a regression test only, not in SchemaTable @000c6bdb (UNVERIFIED); NULL in shared-nothing mode"},
	CommittedTSOPhysicalTime: Column{Name: "COMMITTED_TSO_PHYSICAL_TIME", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: []string{"NULL"}, Format: UnixMs, Read: true, Note: "as COMMITTED_TSO"},
}

// TableStreamsRel is information_schema.table_streams.
type TableStreamsRel struct {
	Relation
	DBName, StreamName, StreamID, StreamType, ConsumeType, StreamComment                   Column
	BaseTableName, BaseTableDB, BaseTableCtl, BaseTableType, Enabled, IsStale, StaleReason Column
	// The monitoring design's columns.
	IvmMVID, MonitorState, PendingPartitions, MaxPendingAgeSeconds, PendingAgePrecision, CanResume Column
	MinRetentionHeadroomSeconds, GapEvents, LastGapTime, MonitorSampleTime                         Column
}

// TableStreams lists every stream, user and internal (IVM).
var TableStreams = &TableStreamsRel{
	Relation: Relation{Source: SourceTableStreams, Kind: InfoSchema, Name: "table_streams",
		Mirrors:    schemaTable + "; rows: fe/fe-core/.../catalog/stream/TableStreamManager.java",
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`table_streams`", When: "always"}},
		Note:       "IS_STALE does not report TTL expiry. Internal IVM streams are named __doris_ivm_stream_<mv>_..."},
	DBName:        col("DB_NAME", VARCHAR, Text, true),
	StreamName:    col("STREAM_NAME", VARCHAR, Text, true),
	StreamID:      col("STREAM_ID", BIGINT, Integer, true),
	StreamType:    col("STREAM_TYPE", VARCHAR, Enum, true),
	ConsumeType:   Column{Name: "CONSUME_TYPE", Type: VARCHAR, Nullable: true, Format: Enum, Read: true, Note: "APPEND_ONLY | MIN_DELTA | DETAIL (older builds: DEFAULT)"},
	StreamComment: col("STREAM_COMMENT", STRING, Text, true),
	BaseTableName: Column{Name: "BASE_TABLE_NAME", Type: VARCHAR, Nullable: true, Sentinels: na, Format: Text, Read: true, Note: "a dropped base table: earlier builds write N/A in all four BASE_TABLE_* (TableStreamManager.fillTableStreamValuesMetadataResult); " +
		"later builds keep the name, database and catalog and write N/A in BASE_TABLE_TYPE only, with ENABLED false, IS_STALE true and " +
		"STALE_REASON 'Base table does not exist' (regression test mtmv_p0/ivm/test_ivm_drop_base_table_stream_state @1bf8f2af; TableStreamTest); " +
		"RECOVER TABLE brings the stream back (the force-dropped table cannot be recovered)"},
	BaseTableDB:   Column{Name: "BASE_TABLE_DB", Type: VARCHAR, Nullable: true, Sentinels: na, Format: Text, Read: true},
	BaseTableCtl:  Column{Name: "BASE_TABLE_CTL", Type: VARCHAR, Nullable: true, Sentinels: na, Format: Text, Read: true},
	BaseTableType: Column{Name: "BASE_TABLE_TYPE", Type: VARCHAR, Nullable: true, Sentinels: na, Format: Text, Read: true, Note: "OLAP, or N/A once the base table is dropped (every build)"},
	Enabled:       col("ENABLED", BOOLEAN, Bool01, true),
	IsStale:       Column{Name: "IS_STALE", Type: BOOLEAN, Nullable: true, Format: Bool01, Read: true, Note: "true for a dropped base table on later builds; never for TTL expiry"},
	StaleReason:   Column{Name: "STALE_REASON", Type: STRING, Nullable: true, Sentinels: na, Format: Text, Read: true, Note: "'Base table does not exist' for a dropped base table (later builds)"},

	IvmMVID:                     Column{Name: "IVM_MV_ID", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: Integer, Read: true},
	MonitorState:                Column{Name: "MONITOR_STATE", Type: VARCHAR, Nullable: true, Avail: Design, Sentinels: null, Format: Enum, Read: true},
	PendingPartitions:           Column{Name: "PENDING_PARTITIONS", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: Integer, Read: true},
	MaxPendingAgeSeconds:        Column{Name: "MAX_PENDING_AGE_SECONDS", Type: DOUBLE, Nullable: true, Avail: Design, Sentinels: null, Format: Seconds, Read: true},
	PendingAgePrecision:         Column{Name: "PENDING_AGE_PRECISION", Type: VARCHAR, Nullable: true, Avail: Design, Sentinels: null, Format: Enum, Read: true},
	CanResume:                   Column{Name: "CAN_RESUME", Type: BOOLEAN, Nullable: true, Avail: Design, Sentinels: null, Format: Bool01, Read: true},
	MinRetentionHeadroomSeconds: Column{Name: "MIN_RETENTION_HEADROOM_SECONDS", Type: DOUBLE, Nullable: true, Avail: Design, Sentinels: null, Format: Seconds, Read: true},
	GapEvents:                   Column{Name: "GAP_EVENTS", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: Integer, Read: true},
	LastGapTime:                 Column{Name: "LAST_GAP_TIME", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: UnixMs, Read: true},
	MonitorSampleTime:           Column{Name: "MONITOR_SAMPLE_TIME", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: UnixMs, Read: true},
}

// TableStreamConsumptionRel is information_schema.table_stream_consumption.
type TableStreamConsumptionRel struct {
	Relation
	DBName, StreamName, StreamID, Unit, ConsumptionStatus, Lag, LastConsumptionTime Column
	// The monitoring design's columns.
	SourceEndTSO, ConsumedTSO, OffsetState, CaughtUp, PositionGapSeconds, PendingAgeSeconds Column
	PendingAgePrecision, RetentionApplicable, RetentionFloorTSO, NextRequiredTSO, CanResume Column
	RetentionHeadroomSeconds, LastGapTime                                                   Column
}

// TableStreamConsumption has one row per stream and base-table partition.
var TableStreamConsumption = &TableStreamConsumptionRel{
	Relation: Relation{Source: SourceTableStreamConsumption, Kind: InfoSchema, Name: "table_stream_consumption",
		Mirrors:    schemaTable + "; rows: OlapTableStream.fillTableStreamConsumptionInfo",
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`table_stream_consumption`", When: "always"}},
		Note:       "LAG is a reserved word in MySQL 8 parsers: always backquoted."},
	DBName:              col("DB_NAME", VARCHAR, Text, true),
	StreamName:          col("STREAM_NAME", VARCHAR, Text, true),
	StreamID:            col("STREAM_ID", BIGINT, Integer, true),
	Unit:                Column{Name: "UNIT", Type: VARCHAR, Nullable: true, Format: Text, Read: true, Note: "the partition name; a non-partitioned table has one partition named after the table"},
	ConsumptionStatus:   Column{Name: "CONSUMPTION_STATUS", Type: VARCHAR, Nullable: true, Sentinels: []string{"N/A", `\N`, "-1", "0"}, Format: TSOText, Read: true, Note: "the offset; a value <= 0 is no real offset"},
	Lag:                 Column{Name: "LAG", Type: VARCHAR, Nullable: true, Sentinels: []string{"N/A"}, Format: LagText, Read: true, Note: "N/A when the partition has data and no offset, 0 when empty"},
	LastConsumptionTime: Column{Name: "LAST_CONSUMPTION_TIME", Type: BIGINT, Nullable: true, Sentinels: minus, Format: UnixMs, Read: true},

	SourceEndTSO:             Column{Name: "SOURCE_END_TSO", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: TSO, Read: true},
	ConsumedTSO:              Column{Name: "CONSUMED_TSO", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: TSO, Read: true},
	OffsetState:              Column{Name: "OFFSET_STATE", Type: VARCHAR, Nullable: true, Avail: Design, Format: Enum, Read: true, Note: "CONSUMED | INITIAL_SNAPSHOT_PENDING | NO_OFFSET"},
	CaughtUp:                 Column{Name: "CAUGHT_UP", Type: BOOLEAN, Nullable: true, Avail: Design, Sentinels: null, Format: Bool01, Read: true},
	PositionGapSeconds:       Column{Name: "POSITION_GAP_SECONDS", Type: DOUBLE, Nullable: true, Avail: Design, Sentinels: null, Format: Seconds, Read: true},
	PendingAgeSeconds:        Column{Name: "PENDING_AGE_SECONDS", Type: DOUBLE, Nullable: true, Avail: Design, Sentinels: null, Format: Seconds, Read: true},
	PendingAgePrecision:      Column{Name: "PENDING_AGE_PRECISION", Type: VARCHAR, Nullable: true, Avail: Design, Sentinels: null, Format: Enum, Read: true},
	RetentionApplicable:      Column{Name: "RETENTION_APPLICABLE", Type: BOOLEAN, Nullable: true, Avail: Design, Sentinels: null, Format: Bool01, Read: true},
	RetentionFloorTSO:        Column{Name: "RETENTION_FLOOR_TSO", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: TSO, Read: true},
	NextRequiredTSO:          Column{Name: "NEXT_REQUIRED_TSO", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: TSO, Read: true},
	CanResume:                Column{Name: "CAN_RESUME", Type: BOOLEAN, Nullable: true, Avail: Design, Sentinels: null, Format: Bool01, Read: true},
	RetentionHeadroomSeconds: Column{Name: "RETENTION_HEADROOM_SECONDS", Type: DOUBLE, Nullable: true, Avail: Design, Sentinels: null, Format: Seconds, Read: true},
	LastGapTime:              Column{Name: "LAST_GAP_TIME", Type: BIGINT, Nullable: true, Avail: Design, Sentinels: null, Format: UnixMs, Read: true},
}

// TablePropertiesRel is information_schema.table_properties.
type TablePropertiesRel struct {
	Relation
	TableCatalog, TableSchema, TableName, PropertyName, PropertyValue Column
}

// TableProperties lists every entry of an OLAP table's property map,
// binlog.* included (TableProperty.setBinlogConfig).
var TableProperties = &TablePropertiesRel{
	Relation: Relation{Source: SourceTableProperties, Kind: InfoSchema, Name: "table_properties",
		Mirrors: schemaTable + "; rows: MetadataGenerator.tablePropertiesForInternalCatalog; keys: TableProperty.setBinlogConfig",
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`table_properties` WHERE `TABLE_SCHEMA` IN {in} AND (`PROPERTY_NAME` LIKE 'changelog.%' OR `PROPERTY_NAME` LIKE 'binlog.%')",
			When: "for the databases of the base tables of streams and MVs"}}},
	TableCatalog:  col("TABLE_CATALOG", VARCHAR, Text, true),
	TableSchema:   col("TABLE_SCHEMA", VARCHAR, Text, true),
	TableName:     col("TABLE_NAME", VARCHAR, Text, true),
	PropertyName:  Column{Name: "PROPERTY_NAME", Type: STRING, Nullable: true, Format: Text, Read: true, Note: "binlog.enable, binlog.ttl_seconds, binlog.format, ... (5.0 release notes: changelog.*)"},
	PropertyValue: col("PROPERTY_VALUE", STRING, Text, true),
}

// TableOptionsRel is information_schema.table_options.
type TableOptionsRel struct {
	Relation
	TableCatalog, TableSchema, TableName, TableModel, TableModelKey, DistributeKey, DistributeType Column
	BucketsNum, PartitionNum, PartitionMethod, PartitionExpression, PartitionKey, Range            Column
}

// TableOptions gives each table's key model.
var TableOptions = &TableOptionsRel{
	Relation: Relation{Source: SourceTableOptions, Kind: InfoSchema, Name: "table_options", Mirrors: schemaTable,
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`table_options` WHERE `TABLE_SCHEMA` IN {in}", When: "as table_properties"}}},
	TableCatalog:        col("TABLE_CATALOG", VARCHAR, Text, true),
	TableSchema:         col("TABLE_SCHEMA", VARCHAR, Text, true),
	TableName:           col("TABLE_NAME", VARCHAR, Text, true),
	TableModel:          Column{Name: "TABLE_MODEL", Type: STRING, Nullable: true, Format: Enum, Read: true, Note: "KeysType.toMetadata(): DUP | UNI | AGG (long forms accepted)"},
	TableModelKey:       col("TABLE_MODEL_KEY", STRING, Text, false),
	DistributeKey:       col("DISTRIBUTE_KEY", STRING, Text, false),
	DistributeType:      col("DISTRIBUTE_TYPE", STRING, Text, false),
	BucketsNum:          col("BUCKETS_NUM", INT, Integer, false),
	PartitionNum:        col("PARTITION_NUM", INT, Integer, false),
	PartitionMethod:     col("PARTITION_METHOD", VARCHAR, Text, false),
	PartitionExpression: col("PARTITION_EXPRESSION", VARCHAR, Text, false),
	PartitionKey:        col("PARTITION_KEY", STRING, Text, false),
	Range:               col("RANGE", STRING, Text, false),
}

// MetadataNameIDsRel is information_schema.metadata_name_ids.
type MetadataNameIDsRel struct {
	Relation
	CatalogID, CatalogName, DatabaseID, DatabaseName, TableID, TableName Column
}

// MetadataNameIDs gives table IDs.
var MetadataNameIDs = &MetadataNameIDsRel{
	Relation: Relation{Source: SourceMetadataNameIDs, Kind: InfoSchema, Name: "metadata_name_ids", Mirrors: schemaTable,
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`metadata_name_ids` WHERE `DATABASE_NAME` IN {in}", When: "as table_properties"}},
		Note:       "enumerates every catalog, external ones included"},
	CatalogID:    col("CATALOG_ID", BIGINT, Integer, false),
	CatalogName:  col("CATALOG_NAME", VARCHAR, Text, true),
	DatabaseID:   col("DATABASE_ID", BIGINT, Integer, false),
	DatabaseName: col("DATABASE_NAME", VARCHAR, Text, true),
	TableID:      col("TABLE_ID", BIGINT, Integer, true),
	TableName:    col("TABLE_NAME", VARCHAR, Text, true),
}

// PartitionsRel is information_schema.partitions.
type PartitionsRel struct {
	Relation
	PartitionID, TableCatalog, TableSchema, TableName, PartitionName, SubpartitionName            Column
	PartitionOrdinalPosition, SubpartitionOrdinalPosition, PartitionMethod, SubpartitionMethod    Column
	PartitionExpression, SubpartitionExpression, PartitionDescription, TableRows, AvgRowLength    Column
	DataLength, MaxDataLength, IndexLength, DataFree, CreateTime, UpdateTime, CheckTime, Checksum Column
	PartitionComment, Nodegroup, TablespaceName, LocalDataSize, RemoteDataSize, State             Column
	ReplicaAllocation, ReplicaNum, StoragePolicy, StorageMedium, CooldownTimeMs                   Column
	LastConsistencyCheckTime, BucketNum, CommittedVersion, VisibleVersion, PartitionKey, Range    Column
	Distribution                                                                                  Column
}

// Partitions has one row per partition of an OLAP table
// (MetadataGenerator.partitionsForInternalCatalog).
var Partitions = &PartitionsRel{
	Relation: Relation{Source: SourcePartitions, Kind: InfoSchema, Name: "partitions",
		Mirrors:    schemaTable + "; BE be/src/exec/schema_scanner/schema_partitions_scanner.cpp @18d0d7c8",
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`partitions` WHERE `TABLE_SCHEMA` IN {in}", When: "as table_properties"}}},
	PartitionID: Column{Name: "PARTITION_ID", Type: BIGINT, Nullable: true, Avail: SomeBuilds, Format: Integer, Read: true, Note: "builds differ: the first column where SchemaTable @000c6bdb and MetadataGenerator.partitionsForInternalCatalog (read by id 3918717738) list it; " +
		"absent from older builds, whose rows end at TABLESPACE_NAME (25 columns, read by id 509559691). A TRUNCATE gives the truncated partitions new ids"},
	TableCatalog:                col("TABLE_CATALOG", VARCHAR, Text, false),
	TableSchema:                 col("TABLE_SCHEMA", VARCHAR, Text, true),
	TableName:                   col("TABLE_NAME", VARCHAR, Text, true),
	PartitionName:               col("PARTITION_NAME", VARCHAR, Text, true),
	SubpartitionName:            col("SUBPARTITION_NAME", VARCHAR, Text, false),
	PartitionOrdinalPosition:    col("PARTITION_ORDINAL_POSITION", INT, Integer, false),
	SubpartitionOrdinalPosition: col("SUBPARTITION_ORDINAL_POSITION", INT, Integer, false),
	PartitionMethod:             col("PARTITION_METHOD", VARCHAR, Text, false),
	SubpartitionMethod:          col("SUBPARTITION_METHOD", VARCHAR, Text, false),
	PartitionExpression:         col("PARTITION_EXPRESSION", VARCHAR, Text, false),
	SubpartitionExpression:      col("SUBPARTITION_EXPRESSION", VARCHAR, Text, false),
	PartitionDescription:        col("PARTITION_DESCRIPTION", STRING, Text, false),
	TableRows:                   Column{Name: "TABLE_ROWS", Type: BIGINT, Nullable: true, Sentinels: []string{"-1"}, Format: Integer, Read: true, Note: "partition.getRowCount() (the sum of the indexes' row counts); a negative value, -1, is no count"},
	AvgRowLength:                col("AVG_ROW_LENGTH", BIGINT, Integer, false),
	DataLength:                  Column{Name: "DATA_LENGTH", Type: BIGINT, Nullable: true, Format: Bytes, Read: true, Note: "partition.getDataLength()"},
	MaxDataLength:               col("MAX_DATA_LENGTH", BIGINT, Bytes, false),
	IndexLength:                 col("INDEX_LENGTH", BIGINT, Bytes, false),
	DataFree:                    col("DATA_FREE", BIGINT, Bytes, false),
	CreateTime: Column{Name: "CREATE_TIME", Type: BIGINT, Nullable: true, Format: Integer, Read: true, Constant: "0", Sentinels: []string{"0"},
		Note: "always 0: the FE writes the text NULL into this BIGINT and the BE stores 0 (schema_scanner.cpp insert_block_column); read as unknown"},
	UpdateTime:               Column{Name: "UPDATE_TIME", Type: DATETIME, Nullable: true, Format: Datetime, Read: true, Note: "the visible-version time: longToTimeStringWithTimeZone(partition.getVisibleVersionTime(), session time zone)"},
	CheckTime:                col("CHECK_TIME", DATETIME, Datetime, false),
	Checksum:                 col("CHECKSUM", BIGINT, Integer, false),
	PartitionComment:         col("PARTITION_COMMENT", STRING, Text, false),
	Nodegroup:                col("NODEGROUP", VARCHAR, Text, false),
	TablespaceName:           col("TABLESPACE_NAME", VARCHAR, Text, false),
	LocalDataSize:            col("LOCAL_DATA_SIZE", STRING, HumanSize, false),
	RemoteDataSize:           col("REMOTE_DATA_SIZE", STRING, HumanSize, false),
	State:                    col("STATE", STRING, Enum, false),
	ReplicaAllocation:        col("REPLICA_ALLOCATION", STRING, Text, false),
	ReplicaNum:               col("REPLICA_NUM", INT, Integer, false),
	StoragePolicy:            col("STORAGE_POLICY", STRING, Text, false),
	StorageMedium:            col("STORAGE_MEDIUM", STRING, Text, false),
	CooldownTimeMs:           col("COOLDOWN_TIME_MS", STRING, Text, false),
	LastConsistencyCheckTime: col("LAST_CONSISTENCY_CHECK_TIME", STRING, Text, false),
	BucketNum:                col("BUCKET_NUM", INT, Integer, false),
	CommittedVersion:         col("COMMITTED_VERSION", BIGINT, Integer, false),
	VisibleVersion: Column{Name: "VISIBLE_VERSION", Type: BIGINT, Nullable: true, Avail: SomeBuilds, Format: Integer, Read: true, Note: "1 for a partition nothing was loaded into (Partition.PARTITION_INIT_VERSION); absent from older builds, as PARTITION_ID. " +
		"No build has a VISIBLE_VERSION_TIME column: the visible-version time is UPDATE_TIME"},
	PartitionKey: col("PARTITION_KEY", STRING, Text, false),
	Range:        col("RANGE", STRING, Text, false),
	Distribution: col("DISTRIBUTION", STRING, Text, false),
}

const designOnly = "apache/doris#69907 (System tables); in no indexed Doris source"

// IVMMVStatusRel is information_schema.ivm_mv_status (monitoring design).
type IVMMVStatusRel struct {
	Relation
	DBName, MVName, MVID, FreshnessState, DataDelaySeconds, DelayPrecision, LaggingReason           Column
	LaggingDependencies, DirtyPartitions, PendingPublishTxns, ExcludedOutdatedDependencies          Column
	MaxExcludedDelaySeconds, MinRetentionHeadroomSeconds, JobStatus, CurrentTaskID                  Column
	CurrentTaskStatus, CurrentTaskAgeSeconds, ConsecutiveFailures, LastSuccessTime, LastFailureTime Column
	LastFailureReason, LastErrorMessage, LastRefreshMethod, LastRefreshDurationMs, FallbackCount    Column
	LastFallbackReason, LastFallbackTime, SampleTime                                                Column
}

func open(name string) Column {
	return Column{Name: name, Type: OPEN, Nullable: true, Sentinels: null, Format: CountOrList, Read: true, Note: "the design names it without fixing its type: a count (0 = none) or a list of names; both are read"}
}

// IVMMVStatus is one row per IVM MV from the server's monitor.
var IVMMVStatus = &IVMMVStatusRel{
	Relation: Relation{Source: SourceIVMMVStatus, Kind: InfoSchema, Name: "ivm_mv_status", Avail: Design, Mirrors: designOnly,
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`ivm_mv_status`", When: "when the probe finds it"}},
		Note:       "column types are not fixed by the design: UNVERIFIED; nulls are NULL"},
	DBName:                       col("DB_NAME", VARCHAR, Text, true),
	MVName:                       col("MV_NAME", VARCHAR, Text, true),
	MVID:                         col("MV_ID", BIGINT, Integer, true),
	FreshnessState:               col("FRESHNESS_STATE", VARCHAR, Enum, true),
	DataDelaySeconds:             col("DATA_DELAY_SECONDS", DOUBLE, Seconds, true),
	DelayPrecision:               col("DELAY_PRECISION", VARCHAR, Enum, true),
	LaggingReason:                col("LAGGING_REASON", VARCHAR, Enum, true),
	LaggingDependencies:          open("LAGGING_DEPENDENCIES"),
	DirtyPartitions:              open("DIRTY_PARTITIONS"),
	PendingPublishTxns:           open("PENDING_PUBLISH_TXNS"),
	ExcludedOutdatedDependencies: open("EXCLUDED_OUTDATED_DEPENDENCIES"),
	MaxExcludedDelaySeconds:      col("MAX_EXCLUDED_DELAY_SECONDS", DOUBLE, Seconds, true),
	MinRetentionHeadroomSeconds:  col("MIN_RETENTION_HEADROOM_SECONDS", DOUBLE, Seconds, true),
	JobStatus:                    col("JOB_STATUS", VARCHAR, Enum, true),
	CurrentTaskID:                col("CURRENT_TASK_ID", BIGINT, Integer, true),
	CurrentTaskStatus:            col("CURRENT_TASK_STATUS", VARCHAR, Enum, true),
	CurrentTaskAgeSeconds:        col("CURRENT_TASK_AGE_SECONDS", DOUBLE, Seconds, true),
	ConsecutiveFailures:          col("CONSECUTIVE_FAILURES", BIGINT, Integer, true),
	LastSuccessTime:              col("LAST_SUCCESS_TIME", BIGINT, UnixMs, true),
	LastFailureTime:              col("LAST_FAILURE_TIME", BIGINT, UnixMs, true),
	LastFailureReason:            col("LAST_FAILURE_REASON", VARCHAR, Enum, true),
	LastErrorMessage:             Column{Name: "LAST_ERROR_MESSAGE", Type: STRING, Nullable: true, Format: Text, Read: true, Note: "cut to 512 characters"},
	LastRefreshMethod:            col("LAST_REFRESH_METHOD", VARCHAR, Enum, true),
	LastRefreshDurationMs:        col("LAST_REFRESH_DURATION_MS", BIGINT, Integer, true),
	FallbackCount:                col("FALLBACK_COUNT", BIGINT, Integer, true),
	LastFallbackReason:           col("LAST_FALLBACK_REASON", VARCHAR, Enum, true),
	LastFallbackTime:             col("LAST_FALLBACK_TIME", BIGINT, UnixMs, true),
	SampleTime:                   col("SAMPLE_TIME", BIGINT, UnixMs, true),
}

// IVMDependenciesRel is information_schema.ivm_dependencies (monitoring design).
type IVMDependenciesRel struct {
	Relation
	DBName, MVName, MVID, BaseTableCtl, BaseTableDB, BaseTableName, BaseTableID, IsExcludedTrigger Column
	StreamName, StreamID, DependencyState, Covered, LaggingPartitions, WorstPartition              Column
	DelaySeconds, DelayPrecision, CoveredVersion, CurrentVersion, MinRetentionHeadroomSeconds      Column
	CanResume, SampleTime                                                                          Column
}

// IVMDependencies is one row per IVM MV and direct base table.
var IVMDependencies = &IVMDependenciesRel{
	Relation: Relation{Source: SourceIVMDependencies, Kind: InfoSchema, Name: "ivm_dependencies", Avail: Design, Mirrors: designOnly,
		Statements: []Statement{{Template: "SELECT {columns} FROM information_schema.`ivm_dependencies`", When: "when the probe finds it"}},
		Note:       "column types are not fixed by the design: UNVERIFIED; nulls are NULL"},
	DBName:                      col("DB_NAME", VARCHAR, Text, true),
	MVName:                      col("MV_NAME", VARCHAR, Text, true),
	MVID:                        col("MV_ID", BIGINT, Integer, true),
	BaseTableCtl:                col("BASE_TABLE_CTL", VARCHAR, Text, true),
	BaseTableDB:                 col("BASE_TABLE_DB", VARCHAR, Text, true),
	BaseTableName:               col("BASE_TABLE_NAME", VARCHAR, Text, true),
	BaseTableID:                 col("BASE_TABLE_ID", BIGINT, Integer, true),
	IsExcludedTrigger:           col("IS_EXCLUDED_TRIGGER", BOOLEAN, Bool01, true),
	StreamName:                  Column{Name: "STREAM_NAME", Type: VARCHAR, Nullable: true, Format: Text, Read: true, Note: "NULL for an excluded dependency"},
	StreamID:                    col("STREAM_ID", BIGINT, Integer, true),
	DependencyState:             Column{Name: "DEPENDENCY_STATE", Type: VARCHAR, Nullable: true, Format: Enum, Read: true, Note: "USABLE | MISSING | DISABLED | STALE | CANNOT_RESUME | EXCLUDED"},
	Covered:                     col("COVERED", BOOLEAN, Bool01, true),
	LaggingPartitions:           col("LAGGING_PARTITIONS", VARCHAR, Text, true),
	WorstPartition:              col("WORST_PARTITION", VARCHAR, Text, true),
	DelaySeconds:                col("DELAY_SECONDS", DOUBLE, Seconds, true),
	DelayPrecision:              col("DELAY_PRECISION", VARCHAR, Enum, true),
	CoveredVersion:              col("COVERED_VERSION", BIGINT, Integer, true),
	CurrentVersion:              col("CURRENT_VERSION", BIGINT, Integer, true),
	MinRetentionHeadroomSeconds: col("MIN_RETENTION_HEADROOM_SECONDS", DOUBLE, Seconds, true),
	CanResume:                   col("CAN_RESUME", BOOLEAN, Bool01, true),
	SampleTime:                  col("SAMPLE_TIME", BIGINT, UnixMs, true),
}
