package doris

import "strings"

// The configuration keys `dorisdiag doctor` reads, each with the default and
// the file it is declared in (docs/notes-doctor-evidence.md has the evidence
// behind every line). The keys are data here and judged in diag: this file
// only says what a real FE or BE prints for them.

// NodeKind is the kind of node a configuration key lives on.
type NodeKind string

// Node kinds.
const (
	FE NodeKind = "fe"
	BE NodeKind = "be"
)

// ConfigKey is one configuration key of an FE (Config.java) or a BE
// (config.cpp).
type ConfigKey struct {
	Node NodeKind
	// Name is the key as declared (the Config.java field, the config.cpp
	// DEFINE name), without any experimental_ prefix.
	Name string
	// Default is the declared default, as the config APIs print it.
	Default string
	// Type is the type as SHOW FRONTEND CONFIG / SHOW BACKEND CONFIG print
	// it: the Java simple type name on an FE (boolean, int, long, String), the
	// C++ type on a BE (bool, int32_t).
	Type       string
	Mutable    bool
	MasterOnly bool
	// Experimental: declared with varType = VariableAnnotation.EXPERIMENTAL,
	// so SHOW FRONTEND CONFIG prints it as experimental_<Name>
	// (ConfigBase.getDisplayConfigInfo), while GET /rest/v1/config/fe/
	// (Config.dump) prints the bare Name. Both spellings are read for every
	// FE key: a key's annotation changes between builds.
	Experimental bool
	// Avail: AllBuilds (in the Config.java / config.cpp named in Declared),
	// SomeBuilds (newer or older builds only), Design (apache/doris#69907
	// only: "not on this build" wherever it is absent).
	Avail Avail
	// Declared names the file (and commit) the declaration was read in.
	Declared string
	// Why says what a doctor rule needs the key for.
	Why string
}

const (
	feConfigJava  = "fe/fe-common/src/main/java/org/apache/doris/common/Config.java @000d15ca"
	beConfigCpp   = "be/src/common/config.cpp"
	designConfigs = `apache/doris#69907, "FE configs"`
)

// ConfigKeys lists every key doctor reads, FE keys first.
func ConfigKeys() []ConfigKey { return append([]ConfigKey(nil), configKeys...) }

// ConfigKeyNamed returns the key called name on node (name with or without
// the experimental_ prefix).
func ConfigKeyNamed(node NodeKind, name string) (ConfigKey, bool) {
	bare := strings.TrimPrefix(name, ExperimentalPrefix)
	for _, k := range configKeys {
		if k.Node == node && k.Name == bare {
			return k, true
		}
	}
	return ConfigKey{}, false
}

// ExperimentalPrefix is VariableAnnotation.EXPERIMENTAL's display prefix.
const ExperimentalPrefix = "experimental_"

// Matches reports whether a name a node printed is this key: the bare name,
// or on an FE the experimental_ spelling (ConfigBase registers both for every
// field; which one SHOW FRONTEND CONFIG prints depends on the annotation).
func (k ConfigKey) Matches(printed string) bool {
	if printed == k.Name {
		return true
	}
	return k.Node == FE && printed == ExperimentalPrefix+k.Name
}

// SensitiveMask is what ConfigBase prints for a non-empty sensitive FE value
// (ConfigBase.SENSITIVE_CONF_MASK @000c6bdb).
const SensitiveMask = "********"

// IsMasked reports whether a printed config value is a mask rather than the
// value: the FE's SensitiveMask, or any value of only '*' (the BE masks
// secrets through config::mask_config_value, whose text was not read).
func IsMasked(v string) bool {
	return len(v) >= 3 && strings.Trim(v, "*") == ""
}

func feKey(name, def, typ string, mutable, masterOnly bool, why string) ConfigKey {
	return ConfigKey{Node: FE, Name: name, Default: def, Type: typ, Mutable: mutable, MasterOnly: masterOnly,
		Avail: AllBuilds, Declared: feConfigJava, Why: why}
}

func beKey(name, def, typ string, mutable bool, declared, why string) ConfigKey {
	return ConfigKey{Node: BE, Name: name, Default: def, Type: typ, Mutable: mutable, Avail: AllBuilds, Declared: declared, Why: why}
}

func experimental(k ConfigKey) ConfigKey { k.Experimental = true; return k }

func someBuilds(k ConfigKey, declared string) ConfigKey {
	k.Avail = SomeBuilds
	k.Declared = declared
	return k
}

func designKey(name, def, typ string, why string) ConfigKey {
	return ConfigKey{Node: FE, Name: name, Default: def, Type: typ, Mutable: true, MasterOnly: true, Avail: Design,
		Declared: designConfigs, Why: why}
}

var configKeys = []ConfigKey{
	// Feature gates.
	experimental(feKey("enable_feature_binlog", "false", "boolean", false, false,
		"the row binlog and TSO allocation; off, no changelog table, table stream or IVM MV works, and the Master's BinlogGcer pushes no TTL reference TSO (BinlogGcer.syncRowBinlogTtlReferenceTso)")),
	someBuilds(feKey("enable_table_stream", "false", "boolean", false, false,
		`the Table Stream DDL and IVM's stream reset: off, CREATE STREAM fails ("Table Stream is experimental. Please set enable_table_stream=true to enable it.") and an IVM fallback to COMPLETE fails ("IVM full refresh requires enable_table_stream=true to reset stream offsets", MTMVTask)`),
		"Config.java after apache/doris#61382 (5.0; not in @000d15ca); default off per the 5.0 docs"),
	someBuilds(feKey("table_stream_partition_offset_cleanup_interval_second", "3600", "int", false, true,
		"how often the Master drops the offsets of dropped partitions (TableStreamManager)"),
		"Config.java after apache/doris#61382 (TableStreamManager reads it; default per the 5.0 docs)"),

	// Labels (a CDC sink's idempotent replay).
	feKey("streaming_label_keep_max_second", "43200", "int", true, true,
		"a finished Stream Load / INSERT / routine load task label is removed after this (then reusable: a replay loads twice)"),
	feKey("label_keep_max_second", "259200", "int", true, true,
		"the label window of the other load jobs"),
	feKey("label_num_threshold", "2000", "int", true, true,
		"per database, finished transactions beyond this count are removed oldest first whatever their age (DatabaseTransactionMgr, when > 0); -1: no count limit"),

	// MTMV refresh capacity and task history.
	feKey("mtmv_task_queue_size", "1024", "int", false, true,
		"the MTMV task waiting queue (negative: 1024; rounded to a power of two)"),
	feKey("job_mtmv_task_consumer_thread_num", "10", "int", false, true,
		"threads running MTMV tasks: at most this many refreshes run at once (<= 0: 10)"),
	feKey("max_persistence_task_count", "100", "int", false, true,
		"task history kept per job (MTMVJobInfo, InsertJob); < 1: none is kept"),

	// Sessions on a follower.
	feKey("meta_delay_toleration_second", "300", "int", false, false,
		"a non-master FE stops serving when its metadata is this far behind: a session on a follower reads metadata up to this old"),

	// HTTP, TLS and the Stream Load redirect.
	feKey("http_port", "8030", "int", false, false, "the FE HTTP port (SHOW FRONTENDS HttpPort)"),
	feKey("https_port", "8050", "int", false, false, "the HTTPS port of the older enable_https (no SHOW FRONTENDS column reports it)"),
	feKey("query_port", "9030", "int", false, false, "the MySQL protocol port"),
	experimental(feKey("enable_https", "false", "boolean", false, false,
		`"if enabled, http port will not be available": HTTPS on https_port, http_port redirects to it`)),
	someBuilds(feKey("enable_tls", "false", "boolean", false, false,
		"TLS on http_port itself (JettySslCustomizer)"),
		"Config.java of the builds with JettySslCustomizer (@01d524ad); not in @000d15ca; default UNVERIFIED"),
	experimental(feKey("enable_all_http_auth", "false", "boolean", true, false,
		"every FE HTTP endpoint asks for credentials (HealthAction too)")),
	feKey("streamload_redirect_policy", "", "String", true, false,
		"the FE's Stream Load redirect policy when the request has no redirect-policy header: public-private, public, private, direct, random-be or empty (LoadAction.selectEndpointByRedirectPolicy)"),
	feKey("prom_output_table_metrics_limit", "10000", "int", true, false,
		"per-table series of cloud mode kept on /metrics"),

	// The monitoring design's keys: absent from every build read so far.
	designKey("enable_changelog_ivm_monitor", "true", "boolean", "the sampler behind the state series and the sampled columns"),
	designKey("changelog_ivm_monitor_interval_seconds", "15", "int", "the sampling interval: the precision of pending age and data delay"),
	designKey("changelog_ivm_monitor_max_partitions_per_round", "50000", "int", "beyond it, objects are sampled in turns"),
	designKey("prom_output_ivm_mv_metrics_limit", "1000", "int", "MVs with per-object series; 0 for none"),
	designKey("prom_output_table_stream_metrics_limit", "1000", "int", "user streams with per-object series; 0 for none"),
	designKey("enable_ivm_stream_keepalive", "true", "boolean", "off: no new keep-alive TSO is recorded for idle IVM partitions"),
	designKey("ivm_stream_keepalive_interval_second", "600", "int", "the keep-alive round; keep it well under half the shortest changelog TTL of the IVM base tables"),

	// BE keys.
	beKey("enable_feature_binlog", "false", "bool", false, beConfigCpp, "the BE side of the binlog feature"),
	beKey("disable_auto_compaction", "false", "bool", true, beConfigCpp,
		"the TTL cleanup is a cumulative compaction dropping expired rowsets (apache/doris#69907, TTL cleanup on the BE): with compaction off, nothing is cleaned"),
	beKey("webserver_port", "8040", "int32_t", false, beConfigCpp, "the BE HTTP port (SHOW BACKENDS HttpPort)"),
	beKey("enable_https", "false", "bool", false, beConfigCpp, "HTTPS on webserver_port"),
	beKey("enable_all_http_auth", "false", "bool", false, beConfigCpp, "every BE HTTP endpoint asks for Basic credentials"),
}
