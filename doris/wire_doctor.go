package doris

// The statements and HTTP endpoints of `dorisdiag doctor` (issue 22): the
// configuration of every FE and BE, the hops a loader and a scrape take,
// and Stream Load label states. docs/notes-doctor-evidence.md has the Doris
// source behind every fact; the generated tables of docs/snapshot.md list
// them with the rest of the contract.

// Source names of the doctor's reads (snapshot.DoctorGap.Source,
// snapshot.ConfigReading.Source).
const (
	SourceSelectOne        = "SELECT 1"
	SourceShowFEConfig     = "SHOW FRONTEND CONFIG"
	SourceShowBEConfig     = "SHOW BACKEND CONFIG"
	SourceHTTPFEConfig     = "GET /rest/v1/config/fe/"
	SourceHTTPBEShowConfig = "GET /api/show_config"
	SourceHTTPHealth       = "GET /api/health"
	SourceHTTPLoadState    = "GET /api/{db}/get_load_state"
)

// SelectOneRel is the probe of the FE query port.
type SelectOneRel struct {
	Relation
}

// SelectOne proves a session can run a statement after the handshake.
var SelectOne = &SelectOneRel{Relation: Relation{Source: SourceSelectOne, Kind: Session, Name: "SELECT 1",
	Mirrors:    "any MySQL-protocol server",
	Statements: []Statement{{Template: "SELECT 1", When: "doctor: the FE query port hop (connect, handshake, one statement)"}},
	Note:       "one row, one column"}}

const showConfigSrc = "fe/fe-core/src/main/java/org/apache/doris/nereids/trees/plans/commands/ShowConfigCommand.java @01f5c6a3; grammar `ADMIN? SHOW type=(FRONTEND | BACKEND) CONFIG (LIKE pattern)? (FROM backendId)?` (DorisParser.g4)"

// ShowFrontendConfigRel is SHOW FRONTEND CONFIG.
type ShowFrontendConfigRel struct {
	Relation
	Key, Value, Type, IsMutable, MasterOnly, Comment Column
}

// ShowFrontendConfig is the configuration of the FE the session is on —
// only that one: ShowConfigCommand is NoForward, so on a follower it shows
// the follower's values, and a master-only key is read from the Master
// (over HTTP, GET /rest/v1/config/fe/) when the session is elsewhere.
var ShowFrontendConfig = &ShowFrontendConfigRel{
	Relation: Relation{Source: SourceShowFEConfig, Kind: Show, Name: "SHOW FRONTEND CONFIG",
		Mirrors: showConfigSrc + "; ConfigBase.getConfigInfo @000c6bdb",
		Statements: []Statement{{Template: "SHOW FRONTEND CONFIG",
			When: "doctor: the configuration of the FE the session is on (every key; filtered here)"}},
		Note: "needs global ADMIN (else error 1227, a named gap); NoForward: the FE the session is on only; " +
			"a key declared EXPERIMENTAL is printed experimental_<name>; a non-empty sensitive value is printed ********; sorted by Key"},
	Key:        Column{Name: "Key", Type: VARCHAR, Format: Text, Read: true, Note: "experimental_ prefix for VariableAnnotation.EXPERIMENTAL keys"},
	Value:      Column{Name: "Value", Type: VARCHAR, Sentinels: []string{SensitiveMask}, Format: Text, Read: true, Note: "String.valueOf; arrays as [a, b]; ******** for a sensitive key"},
	Type:       Column{Name: "Type", Type: VARCHAR, Format: Text, Read: true, Note: "Java simple type name: boolean, int, long, double, String, String[]"},
	IsMutable:  scol("IsMutable", BoolText, true),
	MasterOnly: scol("MasterOnly", BoolText, true),
	Comment:    scol("Comment", Text, false),
}

// ShowBackendConfigRel is SHOW BACKEND CONFIG.
type ShowBackendConfigRel struct {
	Relation
	BackendID, Host, Key, Value, Type, IsMutable Column
}

// ShowBackendConfig is every alive BE's configuration, which the FE fetches
// from each BE's GET /api/show_config itself.
var ShowBackendConfig = &ShowBackendConfigRel{
	Relation: Relation{Source: SourceShowBEConfig, Kind: Show, Name: "SHOW BACKEND CONFIG",
		Mirrors: showConfigSrc,
		Statements: []Statement{{Template: "SHOW BACKEND CONFIG LIKE {literal}",
			When: "doctor: one statement per BE key of the contract, every alive BE at once; after the first failure the BEs are asked over HTTP"}},
		Note: "needs global ADMIN (else error 1227); alive BEs only (getAllBackendIds(true)); the FE asks each BE " +
			"http://host:HttpPort/api/show_config with no timeout of its own, and one BE that fails fails the whole statement " +
			`("Can't get backend config, backendId: N, host: H. error: …")`},
	BackendID: scol("BackendId", Integer, true),
	Host:      scol("Host", Text, true),
	Key:       scol("Key", Text, true),
	Value:     scol("Value", Text, true),
	Type:      Column{Name: "Type", Type: VARCHAR, Format: Text, Read: true, Note: "the BE's C++ type name (bool, int32_t, int64_t, std::string, …)"},
	IsMutable: scol("IsMutable", BoolText, true),
}

// FEConfigActionRel is GET /rest/v1/config/fe/ on an FE.
type FEConfigActionRel struct {
	Relation
	Code, Msg, ColumnNames, RowName, RowValue Column
}

// FEConfigAction is the HTTP fallback of SHOW FRONTEND CONFIG, and how the
// Master's own values are read when the session is on a follower.
var FEConfigAction = &FEConfigActionRel{
	Relation: Relation{Source: SourceHTTPFEConfig, Kind: HTTP, Name: "/rest/v1/config/fe/",
		Mirrors: "fe/fe-core/src/main/java/org/apache/doris/httpv2/controller/ConfigController.java @06207c09 (Config.dump); regression test_http_rest_v1_auth (ADMIN_OR_NODE)",
		Statements: []Statement{{Template: "GET http://{host}:{port}/rest/v1/config/fe/",
			When: "doctor: when SHOW FRONTEND CONFIG was refused, and for the Master's master-only keys when the session is on a follower"}},
		Note: "httpv2 envelope, HTTP 200; Config.dump prints the bare field name (no experimental_ prefix) and masks sensitive values; " +
			"the /rest/v1 endpoints need ADMIN or NODE: without it HTTP 200 {\"code\":401,…}; Basic credentials in answer to a challenge only"},
	Code:        jcol("code", Integer, true, "0 on success"),
	Msg:         jcol("msg", Text, false, ""),
	ColumnNames: jcol("data.column_names", Text, false, `["Name","Value"]`),
	RowName:     jcol("data.rows[].Name", Text, true, "the bare key"),
	RowValue:    jcol("data.rows[].Value", Text, true, "String.valueOf; ******** for a sensitive key"),
}

// BEShowConfigRel is GET /api/show_config on a BE.
type BEShowConfigRel struct {
	Relation
	ItemName, ItemType, ItemValue, ItemMutable Column
}

// BEShowConfig is the HTTP fallback of SHOW BACKEND CONFIG, asked of each BE.
var BEShowConfig = &BEShowConfigRel{
	Relation: Relation{Source: SourceHTTPBEShowConfig, Kind: HTTP, Name: "/api/show_config",
		Mirrors: "be/src/service/http/action/config_action.cpp (handle_show_config; older be/src/http/action/config_action.cpp); config::get_config_info",
		Statements: []Statement{{Template: "GET http://{host}:{port}/api/show_config",
			When: "doctor: when SHOW BACKEND CONFIG failed, once per BE (HttpPort of SHOW BACKENDS)"}},
		Note: "a JSON array of 4-string arrays [name, type, value, mutable]; newer builds filter on ?conf_item=NAME (older ignore it); " +
			"bool values true/false; newer builds mask secrets (config::mask_config_value); a BE with enable_all_http_auth=true answers 401 with a Basic challenge"},
	ItemName:    jcol("[0]", Text, true, "the key"),
	ItemType:    jcol("[1]", Text, true, "the C++ type name"),
	ItemValue:   jcol("[2]", Text, true, ""),
	ItemMutable: jcol("[3]", BoolText, true, ""),
}

// HealthActionRel is GET /api/health on an FE or a BE.
type HealthActionRel struct {
	Relation
	Code, Msg, TotalBackendNum, OnlineBackendNum, Status Column
}

// HealthAction is the doctor's probe of every FE's and BE's HTTP port: it
// answers without credentials (unless enable_all_http_auth) and carries a
// Date header the clock-skew reading uses.
var HealthAction = &HealthActionRel{
	Relation: Relation{Source: SourceHTTPHealth, Kind: HTTP, Name: "/api/health",
		Mirrors: "FE fe/fe-core/src/main/java/org/apache/doris/httpv2/rest/HealthAction.java @02dd27f4; BE be/src/http/action/health_action.cpp",
		Statements: []Statement{{Template: "GET http://{host}:{port}/api/health",
			When: "doctor: every FE (Host:HttpPort) and every BE at the address a Stream Load redirect would name for this client"}},
		Note: "FE: httpv2 envelope {code:0, data:{total_backend_num, online_backend_num}}, or serviceUnavailable \"Server is not ready\"; " +
			"asks for credentials only with enable_all_http_auth. BE: always HTTP 200 {\"status\": \"OK\", \"msg\": \"OK\"} (older: msg \"To Be Added\"), " +
			"status \"Server is not available\" while starting or shutting down"},
	Code:             jcol("code", Integer, true, "FE: 0 when ready"),
	Msg:              jcol("msg", Text, true, ""),
	TotalBackendNum:  jcol("data.total_backend_num", Integer, false, "FE"),
	OnlineBackendNum: jcol("data.online_backend_num", Integer, false, "FE"),
	Status:           jcol("status", Text, true, `BE: "OK", or "Server is not available"`),
}

// LoadStateActionRel is GET /api/{db}/get_load_state?label=L on an FE.
type LoadStateActionRel struct {
	Relation
	Code, Msg, Data, Status, State Column
}

// LoadStateAction gives a Stream Load label's transaction state, so a CDC
// sink can tell a replayed window from a new one.
var LoadStateAction = &LoadStateActionRel{
	Relation: Relation{Source: SourceHTTPLoadState, Kind: HTTP, Name: "/api/{db}/get_load_state",
		Mirrors: "fe/fe-core/src/main/java/org/apache/doris/httpv2/rest/GetStreamLoadState.java @2ac9c287 (ResponseEntityBuilder.ok(state)); the older org.apache.doris.http.rest.GetStreamLoadState (RestBaseResult + state)",
		Statements: []Statement{{Template: "GET http://{host}:{port}/api/{segment}/get_load_state",
			When: "doctor labels: once per label (?label=L), on the Master FE (a follower redirects there: redirectToMaster)"}},
		Note: "password checked (executeCheckPassword); two answer shapes: the httpv2 envelope {\"code\":0,\"msg\":\"success\",\"data\":\"VISIBLE\"} " +
			"and the older result {\"status\":\"OK\",\"msg\":\"Success\",\"state\":\"VISIBLE\"}; the state is a TransactionStatus " +
			"(UNKNOWN, PREPARE, COMMITTED, VISIBLE, ABORTED, PRECOMMITTED): UNKNOWN is a label never loaded or already removed"},
	Code:   jcol("code", Integer, true, "envelope shape: 0 on success (an older envelope: 200)"),
	Msg:    jcol("msg", Text, true, ""),
	Data:   jcol("data", Enum, true, "envelope shape: the state"),
	Status: jcol("status", Text, true, "result shape"),
	State:  jcol("state", Enum, true, "result shape: the state"),
}

// backendTag is SHOW BACKENDS' Tag column, which doctor reads for the
// Stream Load endpoints.
var backendTag = Column{Name: "Tag", Type: VARCHAR, Format: JSONText, Read: true, Note: "a JSON object of the BE's tags: location, and on builds with Stream Load endpoints " +
	"public_endpoint and private_endpoint (host:port; ALTER SYSTEM ADD/MODIFY BACKEND 'tag.public_endpoint', regression test_stream_load_endpoint), " +
	"in cloud mode also cloud_unique_id and compute_group_id; read by doctor for the address a Stream Load redirect names"}

func init() {
	register(SelectOne, ShowFrontendConfig, ShowBackendConfig, FEConfigAction, BEShowConfig, HealthAction, LoadStateAction)
}
