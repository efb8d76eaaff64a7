package doctor

import (
	"fmt"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The config rules (issue 22 item 2), in the order they run: each is one
// function over the run, its code declared beside it. A rule that cannot
// read its key says so on an "unknown" line, never a pass; a key the node
// did not print is "not on this build".
var configRules = []func(r *run, f facts){
	ruleBinlogGate,
	ruleTableStreamGate,
	ruleTTLCleanupPaused,
	ruleKeepAlive,
	ruleIVMSchedule,
	ruleUserStreamConsumer,
	ruleMonitorQuotas,
	ruleMTMVCapacity,
	ruleTaskHistory,
	ruleLabelWindow,
	ruleSessionOnFollower,
	ruleHTTPSOnly,
}

func (r *run) configChecks() {
	f := r.facts()
	for _, rule := range configRules {
		rule(r, f)
	}
}

// CodeBinlogOff: the binlog feature gate is off on a node while tables need it.
var CodeBinlogOff = diag.Declare(diag.Declaration{
	Code: "CONFIG_BINLOG_OFF", Severity: diag.SeverityCritical,
	Action: "set enable_feature_binlog and restart",
	Impact: diag.ImpactBroken, Place: 13,
	Title: "enable_feature_binlog is off on a node while changelog tables, streams or IVM MVs exist",
	Spec:  "apache/doris#69907 (changelog); Doris Config.java enable_feature_binlog (shown experimental_enable_feature_binlog), be/src/common/config.cpp enable_feature_binlog, BinlogGcer",
	Meaning: "The FE (or a BE) has enable_feature_binlog=false, yet the cluster has tables with the changelog enabled, table streams or IVM MVs. " +
		"On the FE the flag gates the row binlog and TSO allocation, and the Master's BinlogGcer pushes no TTL reference TSO to the BEs while it is off.",
	Matters: "Nothing writes the changelog the streams and IVM MVs read, and no TTL cleanup runs: consumers see no changes, space grows.",
	Confirm: "SHOW FRONTEND CONFIG LIKE '%enable_feature_binlog';  SHOW BACKEND CONFIG LIKE 'enable_feature_binlog';",
	Fix:     "Set enable_feature_binlog = true in fe.conf (and be.conf) of every node and restart it: the key is not mutable.",
	Related: []string{"CONFIG_TABLE_STREAM_OFF", "CONFIG_TTL_CLEANUP_PAUSED"},
})

func ruleBinlogGate(r *run, f facts) {
	need := f.needsChangelog()
	for _, node := range []doris.NodeKind{doris.FE, doris.BE} {
		for _, c := range r.readings(node) {
			r.featureGate(c, f, featureGate{key: "enable_feature_binlog", gates: "the changelog is",
				need: need, noNeed: "no changelog table, stream or IVM MV needs it"}, func(g, name string, s setting) {
				r.raise(g, name, finding(CodeBinlogOff, nodeObject(c),
					fmt.Sprintf("%s = false on %s while %s need it", name, g, need),
					"Off, no changelog is written for the streams and IVM MVs to read, and (on the FE) the Master pushes no TTL reference TSO: no TTL cleanup.",
					fmt.Sprintf("set enable_feature_binlog = true in %s.conf and restart %s (not mutable)", node, g),
					map[string]string{"key": name, "value": s.value(), "source": c.Source, "needed_by": need}))
			})
		}
	}
}

// featureGate is a boolean feature flag that the changelog's consumers need
// on: the verdicts every such rule shares (absent on this build, not read,
// on, off with the cluster unread, off and needed by nothing); raise is
// called only when it is off and need names what needs it.
type featureGate struct {
	key    string // the config key
	gates  string // what it gates: "<gates> not gated by it" when the build has no such key
	need   string // what needs it on; "" when nothing
	noNeed string // why off is fine when nothing needs it
}

func (r *run) featureGate(c *snapshot.ConfigReading, f facts, fg featureGate, raise func(g, name string, s setting)) {
	g, s := group(c), lookup(c, fg.key)
	name := s.name(fg.key)
	on, ok := s.bool()
	switch {
	case s.absent:
		r.info(g, name, "not on this build: "+fg.gates+" not gated by it", "")
	case !ok:
		r.unknown(g, name, fmt.Sprintf("not read from %s", c.Source), "")
	case on:
		r.pass(g, name, "true")
	case !f.known:
		r.unknown(g, name, "false, but "+notRead, "")
	case fg.need == "":
		r.pass(g, name, "false, and "+fg.noNeed)
	default:
		raise(g, name, s)
	}
}

// CodeTableStreamOff: enable_table_stream is off while streams or IVM MVs exist.
var CodeTableStreamOff = diag.Declare(diag.Declaration{
	Code: "CONFIG_TABLE_STREAM_OFF", Severity: diag.SeverityCritical,
	Action: "set enable_table_stream and restart",
	Impact: diag.ImpactBroken, Place: 14,
	Title: "enable_table_stream is off while table streams or IVM MVs exist",
	Spec:  "apache/doris#61382 (enable_table_stream); Doris MTMVTask: \"IVM full refresh requires enable_table_stream=true to reset stream offsets\"",
	Meaning: "The FE has enable_table_stream=false (the 5.0 default), yet the cluster has table streams or IVM MVs. " +
		"Off, CREATE STREAM fails (\"Table Stream is experimental. Please set enable_table_stream=true to enable it.\") and the Master's offset cleanup of dropped partitions does not run.",
	Matters: "An IVM MV whose refresh falls back to COMPLETE fails with \"IVM full refresh requires enable_table_stream=true to reset stream offsets\": " +
		"the recovery of an MV that lost its changelog (its rebuild) fails too.",
	Confirm: "SHOW FRONTEND CONFIG LIKE '%enable_table_stream';",
	Fix:     "Set enable_table_stream = true in fe.conf of every FE and restart them (not mutable).",
	Related: []string{"CONFIG_BINLOG_OFF", "MV_REBUILD_REQUIRED"},
})

func ruleTableStreamGate(r *run, f facts) {
	need := ""
	if len(f.userStreams)+len(f.ivmStreams)+len(f.ivmMVs) > 0 {
		need = plural(len(f.userStreams)+len(f.ivmStreams), "stream") + ", " + plural(len(f.ivmMVs), "IVM MV")
	}
	for _, c := range r.readings(doris.FE) {
		r.featureGate(c, f, featureGate{key: "enable_table_stream", gates: "table streams are",
			need: need, noNeed: "no table stream or IVM MV exists"}, func(g, name string, s setting) {
			r.raise(g, name, finding(CodeTableStreamOff, nodeObject(c),
				fmt.Sprintf("%s = false on %s while %s exist: an IVM fallback to COMPLETE fails", name, g, need),
				"MTMVTask refuses the full refresh of an IVM MV (\"IVM full refresh requires enable_table_stream=true to reset stream offsets\"), so the rebuild that recovers an MV fails.",
				"set enable_table_stream = true in fe.conf and restart "+g+" (not mutable)",
				map[string]string{"key": name, "value": s.value(), "source": c.Source, "needed_by": need}))
		})
	}
}

// CodeTTLCleanupPaused: auto compaction is off on a BE holding changelog tablets.
var CodeTTLCleanupPaused = diag.Declare(diag.Declaration{
	Code: "CONFIG_TTL_CLEANUP_PAUSED", Severity: diag.SeverityWarning,
	Action: "turn auto compaction on again on the BE",
	Impact: diag.ImpactFreshness, Place: 11,
	Title: "disable_auto_compaction is true on a BE: the changelog's TTL cleanup does not run",
	Spec:  "apache/doris#69907 (TTL cleanup on the BE); Doris be/src/common/config.cpp disable_auto_compaction",
	Meaning: "The BE has disable_auto_compaction=true. The changelog's TTL cleanup is a cumulative compaction that leaves expired rowsets out: " +
		"with compaction off, nothing expired is removed.",
	Matters: "The changelog grows without bound on that BE, and so does its disk use.",
	Confirm: "SHOW BACKEND CONFIG LIKE 'disable_auto_compaction';",
	Fix:     "curl -X POST 'http://BE:8040/api/update_config?disable_auto_compaction=false&persist=true' (mutable; doctor only reads, it never sends this), or set it in be.conf.",
	Related: []string{"CONFIG_BINLOG_OFF"},
})

func ruleTTLCleanupPaused(r *run, f facts) {
	for _, c := range r.readings(doris.BE) {
		g, s := group(c), lookup(c, "disable_auto_compaction")
		off, ok := s.bool()
		switch {
		case s.absent:
			r.info(g, "disable_auto_compaction", "not on this build", "")
		case !ok:
			r.unknown(g, "disable_auto_compaction", fmt.Sprintf("not read from %s", c.Source), "")
		case !off:
			r.pass(g, "disable_auto_compaction", "false: compaction, and the TTL cleanup with it, runs")
		case !f.known:
			r.unknown(g, "disable_auto_compaction", "true, but "+notRead, "")
		case len(f.changelogTables) == 0:
			r.info(g, "disable_auto_compaction", "true, but no changelog table is known", "")
		default:
			r.raise(g, "disable_auto_compaction", finding(CodeTTLCleanupPaused, nodeObject(c),
				fmt.Sprintf("disable_auto_compaction = true on %s: the TTL cleanup of %s does not run", g, plural(len(f.changelogTables), "changelog table")),
				"The TTL cleanup is a cumulative compaction leaving expired rowsets out; with compaction off the changelog only grows.",
				"set disable_auto_compaction=false on "+g+" (mutable: POST /api/update_config, or be.conf)",
				map[string]string{"key": "disable_auto_compaction", "value": s.value(), "source": c.Source}))
		}
	}
}

// CodeSessionOnFollower: the session is on a follower FE.
var CodeSessionOnFollower = diag.Declare(diag.Declaration{
	Code: "CONFIG_SESSION_ON_FOLLOWER", Severity: diag.SeverityInfo,
	Action: "point --host at the Master FE",
	Impact: diag.ImpactVisibility, Place: 12,
	Title: "The session is on a follower FE: its metadata may be up to meta_delay_toleration_second behind",
	Spec:  "Doris Config.java meta_delay_toleration_second (default 300); ShowConfigCommand implements NoForward",
	Meaning: "SHOW FRONTENDS says the FE this session is connected to is not the Master. A follower serves metadata replayed from the Master, " +
		"and stops serving only when it is more than meta_delay_toleration_second behind; SHOW FRONTEND CONFIG shows the follower's own configuration.",
	Matters: "What dorisdiag reads (stream offsets, MV states, master-only keys) may be that far behind the Master.",
	Confirm: "SHOW FRONTENDS;  -- CurrentConnected = Yes, IsMaster = false",
	Fix:     "Point --host at the Master FE (IsMaster = true) for the freshest reading.",
})

func ruleSessionOnFollower(r *run, _ facts) {
	ses := r.d.Session
	switch {
	case !ses.Known:
		r.unknown(groupCluster, "session FE", "SHOW FRONTENDS named no FE as the one connected", "")
	case ses.IsMaster:
		r.pass(groupCluster, "session FE", "on the Master ("+ses.Name+")")
	default:
		delay := keyDefault(doris.FE, "meta_delay_toleration_second") + " (default; not read)"
		for _, c := range r.readings(doris.FE) {
			if c.ID == ses.Name || c.Host == ses.Host {
				if v, ok := lookup(c, "meta_delay_toleration_second").int(); ok {
					delay = fmt.Sprint(v)
				}
			}
		}
		r.raise(groupCluster, "session FE", finding(CodeSessionOnFollower, clusterObject,
			fmt.Sprintf("the session is on follower %s: metadata may be up to %s s behind the Master (meta_delay_toleration_second)", ses.Name, delay),
			"A follower replays the Master's metadata and keeps serving while it is less than meta_delay_toleration_second behind.",
			"point --host at the Master FE", map[string]string{"session": ses.Name, "meta_delay_toleration_second": delay}))
	}
}

// CodeHTTPSOnly: an FE serves HTTPS only.
var CodeHTTPSOnly = diag.Declare(diag.Declaration{
	Code: "CONFIG_HTTPS_ONLY", Severity: diag.SeverityWarning,
	Action: "use https for this FE",
	Impact: diag.ImpactVisibility, Place: 13,
	Title: "An FE serves HTTP over TLS only: plain http:// to its HTTP port fails",
	Spec:  "Doris Config.java enable_https (\"if enabled, http port will not be available\", shown experimental_enable_https), enable_tls (JettySslCustomizer builds)",
	Meaning: "The FE has enable_https=true (HTTPS on https_port, http_port redirects there) or enable_tls=true (TLS on http_port itself), " +
		"or its HTTP port answered plain HTTP with a redirect or a TLS alert.",
	Matters: "Loaders, scrapers and dorisdiag's own /api/tso and /metrics reads that use http:// fail or follow a redirect to another port.",
	Confirm: "SHOW FRONTEND CONFIG LIKE '%enable_http%';  curl -v http://FE:8030/api/health",
	Fix:     "Use https:// for this FE: dorisdiag --http-scheme https (and --fe-https-port with enable_https), loaders likewise.",
	Related: []string{"NET_TLS_MISMATCH"},
})

func ruleHTTPSOnly(r *run, _ facts) {
	for _, c := range r.readings(doris.FE) {
		g := group(c)
		var on []string
		unknown := true
		for _, key := range []string{"enable_https", "enable_tls"} {
			s := lookup(c, key)
			if v, ok := s.bool(); ok {
				unknown = false
				if v {
					on = append(on, s.name(key)+" = true")
				}
			} else if s.absent {
				unknown = false
			}
		}
		switch {
		case len(on) > 0:
			r.raise(g, "HTTPS only", finding(CodeHTTPSOnly, nodeObject(c),
				fmt.Sprintf("%s: %s, plain http:// to its HTTP port fails", g, joinAnd(on)),
				"With enable_https the HTTP port redirects to https_port; with enable_tls the HTTP port itself speaks TLS.",
				"use --http-scheme https (and --fe-https-port PORT with enable_https)",
				map[string]string{"keys": joinAnd(on), "source": c.Source}))
		case unknown:
			r.unknown(g, "HTTPS only", "enable_https / enable_tls not read from "+c.Source, "")
		default:
			r.pass(g, "HTTPS only", "no: the HTTP port serves plain HTTP")
		}
	}
}

func joinAnd(ss []string) string {
	switch len(ss) {
	case 0:
		return ""
	case 1:
		return ss[0]
	}
	out := ss[0]
	for _, s := range ss[1 : len(ss)-1] {
		out += ", " + s
	}
	return out + " and " + ss[len(ss)-1]
}
