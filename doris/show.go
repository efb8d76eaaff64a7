package doris

// The SHOW statements, the session variables and the HTTP endpoints.

// OlderBuilds marks a column of older builds only (replaced since).
const OlderBuilds Avail = "older builds"

func scol(name string, f Format, read bool) Column {
	return Column{Name: name, Type: VARCHAR, Format: f, Read: read}
}

// SessionRel is the first statement: the server's identity and time zone.
type SessionRel struct {
	Relation
	VersionComment, TimeZone, SystemTimeZone Column
}

// SessionVars are read first: they prove the FE answers, and give the time
// zone the TVFs and partitions.UPDATE_TIME write datetime text in.
var SessionVars = &SessionRel{
	Relation: Relation{Source: SourceSession, Kind: Session, Name: "@@version_comment, @@time_zone",
		Mirrors: "fe/fe-core/.../qe/GlobalVariable.java @01a660a3 (versionComment)",
		Statements: []Statement{
			{Template: "SELECT @@version_comment AS version_comment, @@time_zone AS time_zone", When: "first statement of every collection"},
			{Template: "SELECT @@system_time_zone AS system_time_zone", When: "when @@time_zone is SYSTEM"},
		},
		Note: "the column names are the statement's own aliases"},
	VersionComment: Column{Name: "version_comment", Type: VARCHAR, Format: Text, Read: true, Note: `"Doris version " + DORIS_BUILD_VERSION + "-" + short hash, e.g. Doris version doris-3.0.3-rc02-1a2b3c4`},
	TimeZone:       Column{Name: "time_zone", Type: VARCHAR, Format: Text, Read: true, Note: "an IANA name, an offset, or SYSTEM"},
	SystemTimeZone: scol("system_time_zone", Text, true),
}

// ShowTSOStatusRel is SHOW TSO STATUS (lower-case column names).
type ShowTSOStatusRel struct {
	Relation
	WindowEndPhysicalTime, CurrentTSO, CurrentTSOPhysicalTime, CurrentTSOLogicalCounter Column
}

// ShowTSOStatus is the clock's first fallback.
var ShowTSOStatus = &ShowTSOStatusRel{
	Relation: Relation{Source: SourceShowTSOStatus, Kind: Show, Name: "SHOW TSO STATUS",
		Mirrors:    "ShowTsoStatusCommand (FORWARD_NO_SYNC); ShowTsoStatusCommandTest",
		Statements: []Statement{{Template: "SHOW TSO STATUS", When: "when tso_status gives no clock"}},
		Note:       `errors: "TSO feature is disabled, please check enable_feature_binlog", "TSO timestamp is not calibrated"`},
	WindowEndPhysicalTime:    Column{Name: "window_end_physical_time", Type: BIGINT, Format: UnixMs},
	CurrentTSO:               Column{Name: "current_tso", Type: BIGINT, Format: TSO, Read: true},
	CurrentTSOPhysicalTime:   Column{Name: "current_tso_physical_time", Type: BIGINT, Format: UnixMs},
	CurrentTSOLogicalCounter: Column{Name: "current_tso_logical_counter", Type: BIGINT, Format: Integer},
}

// FrontendsRel is SHOW FRONTENDS.
type FrontendsRel struct {
	Relation
	Name, Host, IP, HostName, EditLogPort, HTTPPort, QueryPort, RPCPort, ArrowFlightSQLPort, Role Column
	IsMaster, ClusterID, Join, Alive, ReplayedJournalID, LastStartTime, LastHeartbeat, IsHelper   Column
	ErrMsg, Version, CurrentConnected                                                             Column
}

// Frontends lists the FEs; the Master is the one /api/tso answers on.
var Frontends = &FrontendsRel{
	Relation: Relation{Source: SourceFrontends, Kind: Show, Name: "SHOW FRONTENDS",
		Mirrors:    "fe/fe-core/.../common/proc/FrontendsProcNode.java @128aced6 (TITLE_NAMES); older @022bac71",
		Statements: []Statement{{Template: "SHOW FRONTENDS", When: "always"}},
		Note: "privilege-checked, and builds differ: older builds need the global ADMIN or OPERATOR privilege (ShowFrontendsCommand: " +
			"checkGlobalPriv ADMIN, else OPERATOR, else ERR_SPECIFIC_ACCESS_DENIED_ERROR \"ADMIN/OPERATOR\"); newer ones need SELECT on " +
			"internal.information_schema (ShowFrontendsCommandTest: checkDbPriv(internal, information_schema, SELECT))"},
	Name:               scol("Name", Text, true),
	Host:               scol("Host", Text, true),
	IP:                 Column{Name: "IP", Type: VARCHAR, Avail: OlderBuilds, Format: Text, Read: true, Note: "before Host (e.g. @022bac71)"},
	HostName:           Column{Name: "HostName", Type: VARCHAR, Avail: OlderBuilds, Format: Text, Read: true, Note: "before Host (e.g. @022bac71)"},
	EditLogPort:        scol("EditLogPort", Integer, false),
	HTTPPort:           Column{Name: "HttpPort", Type: VARCHAR, Format: Integer, Read: true, Note: "Config.http_port of that FE; HTTPS on it with enable_tls (JettySslCustomizer @01d524ad); with the older enable_https, HTTPS is on Config.https_port (default 8050, Config.java @000d15ca), which no column reports (--fe-https-port)"},
	QueryPort:          scol("QueryPort", Integer, true),
	RPCPort:            scol("RpcPort", Integer, false),
	ArrowFlightSQLPort: scol("ArrowFlightSqlPort", Integer, false),
	Role:               scol("Role", Enum, false),
	IsMaster:           scol("IsMaster", BoolText, true),
	ClusterID:          scol("ClusterId", Integer, false),
	Join:               scol("Join", BoolText, false),
	Alive:              scol("Alive", BoolText, true),
	ReplayedJournalID:  scol("ReplayedJournalId", Integer, false),
	LastStartTime:      scol("LastStartTime", Datetime, false),
	LastHeartbeat:      scol("LastHeartbeat", Datetime, false),
	IsHelper:           scol("IsHelper", BoolText, false),
	ErrMsg:             scol("ErrMsg", Text, false),
	Version:            scol("Version", Text, true),
	CurrentConnected:   Column{Name: "CurrentConnected", Type: VARCHAR, Format: YesNo, Read: true, Note: "Yes on the FE serving this session"},
}

// BackendsRel is SHOW BACKENDS.
type BackendsRel struct {
	Relation
	BackendID, Host, IP, HostName, HeartbeatPort, BePort, HTTPPort, BrpcPort, ArrowFlightSQLPort Column
	LastStartTime, LastHeartbeat, Alive, SystemDecommissioned, TabletNum, DataUsedCapacity       Column
	TrashUsedCapacity, AvailCapacity, TotalCapacity, UsedPct, MaxDiskUsedPct, RemoteUsedCapacity Column
	Tag, ErrMsg, Version, Status, HeartbeatFailureCounter, CPUCores, Memory, RunningTasks        Column
	NodeRole                                                                                     Column
}

// Backends lists the BEs, whose /metrics carry the TTL cleanup series.
var Backends = &BackendsRel{
	Relation: Relation{Source: SourceBackends, Kind: Show, Name: "SHOW BACKENDS",
		Mirrors:    "fe/fe-core/.../common/proc/BackendsProcDir.java @04dc5856 (TITLE_NAMES)",
		Statements: []Statement{{Template: "SHOW BACKENDS", When: "always"}},
		Note:       "HttpPort is the BE webserver port (there is no WebServerPort column)"},
	BackendID:               scol("BackendId", Integer, true),
	Host:                    scol("Host", Text, true),
	IP:                      Column{Name: "IP", Type: VARCHAR, Avail: OlderBuilds, Format: Text, Read: true, Note: "before Host"},
	HostName:                Column{Name: "HostName", Type: VARCHAR, Avail: OlderBuilds, Format: Text, Read: true, Note: "before Host"},
	HeartbeatPort:           scol("HeartbeatPort", Integer, false),
	BePort:                  scol("BePort", Integer, false),
	HTTPPort:                Column{Name: "HttpPort", Type: VARCHAR, Format: Integer, Read: true, Note: "backend.getHttpPort(): the BE webserver port; HTTPS on it with enable_tls (EvHttpServer::start @00df79a8) or the older enable_https (config.cpp @00043e36)"},
	BrpcPort:                scol("BrpcPort", Integer, false),
	ArrowFlightSQLPort:      scol("ArrowFlightSqlPort", Integer, false),
	LastStartTime:           scol("LastStartTime", Datetime, false),
	LastHeartbeat:           scol("LastHeartbeat", Datetime, false),
	Alive:                   scol("Alive", BoolText, true),
	SystemDecommissioned:    scol("SystemDecommissioned", BoolText, false),
	TabletNum:               scol("TabletNum", Integer, false),
	DataUsedCapacity:        scol("DataUsedCapacity", HumanSize, false),
	TrashUsedCapacity:       scol("TrashUsedCapacity", HumanSize, false),
	AvailCapacity:           scol("AvailCapacity", HumanSize, false),
	TotalCapacity:           scol("TotalCapacity", HumanSize, false),
	UsedPct:                 scol("UsedPct", Text, false),
	MaxDiskUsedPct:          scol("MaxDiskUsedPct", Text, false),
	RemoteUsedCapacity:      scol("RemoteUsedCapacity", HumanSize, false),
	Tag:                     backendTag,
	ErrMsg:                  scol("ErrMsg", Text, false),
	Version:                 scol("Version", Text, true),
	Status:                  scol("Status", JSONText, false),
	HeartbeatFailureCounter: scol("HeartbeatFailureCounter", Integer, false),
	CPUCores:                scol("CpuCores", Integer, false),
	Memory:                  scol("Memory", HumanSize, false),
	RunningTasks:            scol("RunningTasks", Integer, false),
	NodeRole:                scol("NodeRole", Text, false),
}

// ShowCreateTableRel is SHOW CREATE TABLE.
type ShowCreateTableRel struct {
	Relation
	Table, CreateTable Column
}

// ShowCreateTable is the fallback for table properties and key models.
var ShowCreateTable = &ShowCreateTableRel{
	Relation: Relation{Source: SourceShowCreateTable, Kind: Show, Name: "SHOW CREATE TABLE",
		Mirrors: "ShowCreateTableCommand; BinlogConfig.appendToShowCreateTable",
		Statements: []Statement{{Template: "SHOW CREATE TABLE {db}.{table}",
			When: "only when information_schema.table_properties cannot be read, for at most 50 tables"}},
		Note: `prints "binlog.enable" = "true", "binlog.ttl_seconds" = "86400", ... and the key model (UNIQUE KEY(...))`},
	Table:       scol("Table", Text, false),
	CreateTable: scol("Create Table", Text, true),
}

// TSOActionRel is GET /api/tso on the Master FE.
type TSOActionRel struct {
	Relation
	Code, Msg, Data, WindowEndPhysicalTime, CurrentTSO, CurrentTSOPhysicalTime, CurrentTSOLogicalCounter Column
}

func jcol(name string, f Format, read bool, n string) Column {
	return Column{Name: name, Type: JSONField, Format: f, Read: read, Note: n}
}

// TSOAction is the clock's last fallback.
var TSOAction = &TSOActionRel{
	Relation: Relation{Source: SourceHTTPTSO, Kind: HTTP, Name: "/api/tso",
		Mirrors:    "fe/fe-core/.../httpv2/rest/TSOAction.java (executeCheckPassword; badRequest when not master)",
		Statements: []Statement{{Template: "GET http://{host}:{port}/api/tso", When: "when neither tso_status nor SHOW TSO STATUS gives a clock"}},
		Note: `Master FE only: a follower answers HTTP 200 {"code":400,"msg":"Bad Request","data":"Current FE is not master"}. ` +
			`Asked as https:// with --tls (docs/security.md "Network")`},
	Code:                     jcol("code", Integer, true, "0 on success"),
	Msg:                      jcol("msg", Text, true, ""),
	Data:                     jcol("data", Text, true, "an object on success, the reason text on failure"),
	WindowEndPhysicalTime:    jcol("data.window_end_physical_time", UnixMs, false, ""),
	CurrentTSO:               jcol("data.current_tso", TSO, true, "exceeds 2^53: decoded as a number, never a float"),
	CurrentTSOPhysicalTime:   jcol("data.current_tso_physical_time", UnixMs, false, ""),
	CurrentTSOLogicalCounter: jcol("data.current_tso_logical_counter", Integer, false, ""),
}

// MetricsActionRel is GET /metrics on an FE or a BE.
type MetricsActionRel struct {
	Relation
}

// MetricsAction is the Prometheus text of an FE or a BE.
var MetricsAction = &MetricsActionRel{
	Relation: Relation{Source: SourceMetrics, Kind: HTTP, Name: "/metrics",
		Mirrors: "FE MetricsAction @02da1ed0 (public, no authentication); BE http/action/metrics_action.cpp @eb26a9f4, HttpHandlerWithAuth::on_header",
		Statements: []Statement{{Template: "GET http://{host}:{port}/metrics",
			When: "FE: --with-metrics, metrics scrape, check; BE: metrics scrape, check (HttpPort of SHOW BACKENDS)"}},
		Note: "FE Content-Type text/plain, BE text/plain; version=0.0.4. A BE with enable_all_http_auth=true answers 401 with a Basic challenge. " +
			"Asked as https:// with --tls: FE enable_tls and BE enable_tls/enable_https serve TLS on HttpPort itself (docs/security.md \"Network\")."},
}

func init() {
	register(SessionVars, Columns, TSOStatus, ShowTSOStatus, TSOAction, Frontends, Backends,
		TableStreams, TableStreamConsumption, Jobs, Tasks, IVMMVStatus, IVMDependencies, MVInfos,
		TableProperties, TableOptions, MetadataNameIDs, Partitions, ShowCreateTable, MetricsAction)
}
