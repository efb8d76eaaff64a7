package doctor

import (
	"fmt"
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// The config rules of the refresh and consumption cadence: the keep-alive
// against the smallest TTL, an IVM MV's schedule, a user stream's consumer,
// the monitor's quotas, the MTMV capacity and task history.

// notOnBuild is the line of a design key the build does not have.
func (r *run) notOnBuild(g, key, consequence string) {
	r.info(g, key, "not on this build (a key of the design, apache/doris#69907): "+consequence, "")
}

// CodeKeepAliveTooSlow: the keep-alive is off or too slow for the smallest TTL.
var CodeKeepAliveTooSlow = diag.Declare(diag.Declaration{
	Code: "CONFIG_KEEPALIVE_TOO_SLOW", Severity: diag.SeverityWarning,
	Action: "shorten the IVM stream keep-alive interval",
	Impact: diag.ImpactBroken, Place: 15,
	Title: "The IVM stream keep-alive is off, or its interval is at least half the smallest TTL of the IVM base tables",
	Spec:  "apache/doris#69907, \"Keep-alive TSO for idle IVM partitions (T9)\": keep ivm_stream_keepalive_interval_second well under half the shortest changelog.ttl_seconds",
	Meaning: "enable_ivm_stream_keepalive is false, or ivm_stream_keepalive_interval_second is at least half the smallest changelog TTL of a base table of an IVM MV. " +
		"The keep-alive records a fresh TSO for idle IVM partitions, so that their offsets stay inside the TTL while nothing changes.",
	Matters: "An IVM partition idle for longer than the TTL falls out of retention: the first refresh after an idle week rebuilds the MV instead of applying a delta.",
	Confirm: "SHOW FRONTEND CONFIG LIKE '%ivm_stream_keepalive%';  dorisdiag streams --kind ivm",
	Fix:     "ADMIN SET FRONTEND CONFIG (\"ivm_stream_keepalive_interval_second\" = \"600\") (and enable_ivm_stream_keepalive = true), well under half the smallest TTL.",
	Related: []string{"CONFIG_IVM_SCHEDULE_TOO_SLOW", "STREAM_IDLE_OUT_OF_RETENTION"},
})

// keepAlive is the keep-alive interval the Master has: sec > 0 when it is on
// and readable; why says otherwise.
func (r *run) keepAlive() (sec int64, on, known bool) {
	en, _ := r.masterSetting("enable_ivm_stream_keepalive")
	iv, _ := r.masterSetting("ivm_stream_keepalive_interval_second")
	e, eok := en.bool()
	n, nok := iv.int()
	if !eok || !nok {
		return 0, false, false
	}
	return n, e, true
}

func ruleKeepAlive(r *run, f facts) {
	const key = "ivm_stream_keepalive_interval_second"
	m, note := r.master()
	if m == nil {
		return
	}
	g := group(m)
	en, iv := lookup(m, "enable_ivm_stream_keepalive"), lookup(m, key)
	e, eok := en.bool()
	n, nok := iv.int()
	switch {
	case !f.known:
		r.unknown(g, key, notRead, "")
	case len(f.ivmMVs) == 0:
		r.pass(g, key, "no IVM MV: no keep-alive needed")
	case en.absent && iv.absent:
		r.notOnBuild(g, key, "idle IVM partitions get no keep-alive TSO, so one idle for longer than its TTL makes the next refresh rebuild the MV")
	case !eok || !nok:
		r.unknown(g, key, "enable_ivm_stream_keepalive / "+key+" not read from "+m.Source+note, "")
	case f.ivmMinTTL == 0:
		r.unknown(g, key, fmt.Sprintf("%d s, but no TTL of an IVM base table is known", n), "dorisdiag snapshot --summary")
	case !e:
		r.raise(g, key, finding(CodeKeepAliveTooSlow, nodeObject(m),
			"enable_ivm_stream_keepalive = false: idle IVM partitions get no keep-alive TSO"+note,
			fmt.Sprintf("A partition idle for longer than the smallest TTL (%s, %s) falls out of retention and its MV rebuilds.", duration(f.ivmMinTTL), f.ivmMinTTLTable),
			doris.SetFrontendConfig("enable_ivm_stream_keepalive", "true"),
			map[string]string{"enable_ivm_stream_keepalive": "false", "min_ttl_seconds": strconv.FormatInt(f.ivmMinTTL, 10), "table": f.ivmMinTTLTable}))
	case 2*n >= f.ivmMinTTL:
		r.raise(g, key, finding(CodeKeepAliveTooSlow, nodeObject(m),
			fmt.Sprintf("%s = %s is at least half the smallest IVM base-table TTL %s (%s)%s", key, duration(n), duration(f.ivmMinTTL), f.ivmMinTTLTable, note),
			"The design asks for well under half: a keep-alive TSO recorded just before an idle stretch must stay inside the TTL until the next one.",
			doris.SetFrontendConfig(key, strconv.FormatInt(min(600, f.ivmMinTTL/4), 10)),
			map[string]string{key: strconv.FormatInt(n, 10), "min_ttl_seconds": strconv.FormatInt(f.ivmMinTTL, 10), "table": f.ivmMinTTLTable}))
	default:
		r.pass(g, key, fmt.Sprintf("%s, under half the smallest IVM base-table TTL %s", duration(n), duration(f.ivmMinTTL)))
	}
}

// CodeIVMScheduleTooSlow: an IVM MV is scheduled less often than its window allows.
var CodeIVMScheduleTooSlow = diag.Declare(diag.Declaration{
	Code: "CONFIG_IVM_SCHEDULE_TOO_SLOW", Severity: diag.SeverityWarning,
	Action: "shorten the MV's schedule, or raise the TTL",
	Impact: diag.ImpactBroken, Place: 16,
	Title: "An IVM MV refreshes on a schedule slower than its changelog window allows",
	Spec:  "apache/doris#69907, \"Keep-alive TSO for idle IVM partitions (T9)\"; MV REFRESH ... ON SCHEDULE EVERY n UNIT (mv_infos RefreshInfo)",
	Meaning: "The MV's ON SCHEDULE interval is longer than half the smallest TTL of its base tables less the keep-alive interval (11 h 50 min with the design's defaults, a 24 h TTL and a 600 s keep-alive), " +
		"or, where the build has no keep-alive, longer than the TTL itself.",
	Matters: "Between two refreshes the changes the next one needs can expire: that refresh recomputes the MV instead of applying a delta.",
	Confirm: "SELECT Name, RefreshInfo FROM mv_infos('database'='DB');",
	Fix:     "ALTER MATERIALIZED VIEW DB.MV REFRESH ON SCHEDULE EVERY <shorter interval>; or raise the base tables' changelog.ttl_seconds.",
	Related: []string{"CONFIG_KEEPALIVE_TOO_SLOW"},
})

func ruleIVMSchedule(r *run, f facts) {
	ka, kaOn, kaKnown := r.keepAlive()
	for _, m := range f.ivmMVs {
		g, name := "MV "+m.DB+"."+m.Name, "refresh schedule"
		obj := diag.Object{Kind: "mv", DB: m.DB, Name: m.Name, ID: &m.ID}
		every := m.Refresh.IntervalSeconds()
		if m.Refresh.Trigger != "SCHEDULE" || every <= 0 {
			r.pass(g, name, "not on a schedule ("+firstNonEmpty(m.Refresh.Trigger, "trigger unknown")+")")
			continue
		}
		ttl, ok := f.mvTTL[m.ID]
		if !ok {
			ttl = f.ivmMinTTL
		}
		if ttl <= 0 {
			r.unknown(g, name, fmt.Sprintf("every %s, but no TTL of its base tables is known", duration(every)), "")
			continue
		}
		window, how := ttl, "its smallest base-table TTL "+duration(ttl)+" (no keep-alive on this build)"
		if kaKnown && kaOn {
			window, how = ttl/2-ka, fmt.Sprintf("half its smallest base-table TTL %s less the keep-alive interval %s", duration(ttl), duration(ka))
		} else if kaKnown {
			how = "its smallest base-table TTL " + duration(ttl) + " (keep-alive off)"
		}
		if every <= window {
			r.pass(g, name, fmt.Sprintf("every %s, within %s", duration(every), how))
			continue
		}
		r.raise(g, name, finding(CodeIVMScheduleTooSlow, obj,
			fmt.Sprintf("%s.%s refreshes every %s, longer than %s = %s", m.DB, m.Name, duration(every), how, duration(window)),
			"The changes a refresh needs can expire before it runs; that refresh then recomputes the MV.",
			doris.AlterMVSchedule(m.DB, m.Name, max(window, 60)),
			map[string]string{"interval_seconds": strconv.FormatInt(every, 10), "window_seconds": strconv.FormatInt(window, 10), "ttl_seconds": strconv.FormatInt(ttl, 10)}))
	}
}

// CodeStreamConsumerSlow: a user stream's consumer reads less often than its TTL.
var CodeStreamConsumerSlow = diag.Declare(diag.Declaration{
	Code: "CONFIG_STREAM_CONSUMER_SLOW", Severity: diag.SeverityWarning,
	Action: "consume the stream more often than the TTL",
	Impact: diag.ImpactLoss, Place: 10,
	Title: "A user stream's consumer last read it longer ago than its base table's TTL",
	Spec:  "apache/doris#69907 §1 S4 (retention); table_stream_consumption LAST_CONSUMPTION_TIME",
	Meaning: "The most recent LAST_CONSUMPTION_TIME of the stream is older than the changelog TTL of its base table: whatever job consumes it runs less often than the TTL. " +
		"User streams get no keep-alive: only their consumer moves their offsets.",
	Matters: "Changes older than the TTL are cleaned before the consumer reads them: the next read cannot resume from its offset.",
	Confirm: "SELECT STREAM_NAME, UNIT, LAST_CONSUMPTION_TIME FROM information_schema.table_stream_consumption WHERE STREAM_NAME = 'S';",
	Fix:     "Run the consumer job at least once per TTL (better: several times), or raise the base table's changelog.ttl_seconds.",
	Related: []string{"STREAM_IDLE_OUT_OF_RETENTION", "STREAM_HEADROOM_LOW"},
})

func ruleUserStreamConsumer(r *run, f facts) {
	ttl := map[string]int64{}
	for _, t := range r.s.Tables {
		if t.TTLSeconds != nil {
			ttl[t.DB+"."+t.Name] = *t.TTLSeconds
		}
	}
	now := r.s.Cluster.Now.UnixMilli()
	for _, st := range f.userStreams {
		g, name := "stream "+st.DB+"."+st.Name, "consumer cadence"
		var last int64
		for _, c := range r.s.Consumption {
			if c.StreamID == st.ID && c.LastConsumptionTimeMs != nil && *c.LastConsumptionTimeMs > last {
				last = *c.LastConsumptionTimeMs
			}
		}
		t, ok := ttl[st.BaseTableDB+"."+st.BaseTableName]
		switch {
		case !ok:
			r.unknown(g, name, "the TTL of its base table is not known", "")
		case t <= 0:
			r.pass(g, name, "its base table has no TTL")
		case last == 0:
			r.info(g, name, "never consumed (LAST_CONSUMPTION_TIME -1)", "")
		case r.s.Cluster.Now.IsZero():
			r.unknown(g, name, "no cluster time to judge against", "")
		case (now-last)/1000 > t:
			age := (now - last) / 1000
			r.raise(g, name, finding(CodeStreamConsumerSlow, diag.Object{Kind: "stream", DB: st.DB, Name: st.Name, ID: &st.ID},
				fmt.Sprintf("%s.%s was last consumed %s ago, longer than its TTL %s", st.DB, st.Name, fmtDur(age), duration(t)),
				"User streams get no keep-alive: a consumer that reads less often than the TTL finds its changes cleaned.",
				doris.SuggestStreamOffsets(st.ID, false),
				map[string]string{"since_last_consumption_seconds": strconv.FormatInt(age, 10), "ttl_seconds": strconv.FormatInt(t, 10)}))
		default:
			r.pass(g, name, fmt.Sprintf("last consumed %s ago, within its TTL %s", fmtDur((now-last)/1000), duration(t)))
		}
	}
}

// CodeMonitorQuota: the monitor is off, or its quotas are below the object count.
var CodeMonitorQuota = diag.Declare(diag.Declaration{
	Code: "CONFIG_MONITOR_QUOTA", Severity: diag.SeverityWarning,
	Action: "raise the monitor's object limit",
	Impact: diag.ImpactVisibility, Place: 10,
	Title:   "The changelog/IVM monitor is off, or its per-object series quota is below the number of objects",
	Spec:    "apache/doris#69907, \"FE configs\" and \"A bounded number of series\"",
	Meaning: "enable_changelog_ivm_monitor is false, or prom_output_ivm_mv_metrics_limit is below the number of IVM MVs, or prom_output_table_stream_metrics_limit below the number of user streams.",
	Matters: "Objects beyond the quota have no per-object series: their alerts cannot fire. With the monitor off the sampled columns and state series are empty.",
	Confirm: "SHOW FRONTEND CONFIG LIKE 'prom_output_%';  dorisdiag metrics scrape --host FE",
	Fix:     "ADMIN SET FRONTEND CONFIG (\"prom_output_ivm_mv_metrics_limit\" = \"N\") with N at least the object count (and the monitor on).",
	Related: []string{"METRICS_MONITOR_STALE"},
})

func ruleMonitorQuotas(r *run, f facts) {
	m, note := r.master()
	if m == nil {
		return
	}
	g := group(m)
	en := lookup(m, "enable_changelog_ivm_monitor")
	if en.absent {
		r.notOnBuild(g, "enable_changelog_ivm_monitor", "no sampler, no state series: dorisdiag reads the tables instead")
		return
	}
	if on, ok := en.bool(); !ok {
		r.unknown(g, "enable_changelog_ivm_monitor", "not read from "+m.Source+note, "")
	} else if !on {
		r.raise(g, "enable_changelog_ivm_monitor", finding(CodeMonitorQuota, nodeObject(m),
			"enable_changelog_ivm_monitor = false: no sampled columns, no state series"+note, "",
			doris.SetFrontendConfig("enable_changelog_ivm_monitor", "true"), map[string]string{"enable_changelog_ivm_monitor": "false"}))
	} else {
		r.pass(g, "enable_changelog_ivm_monitor", "true")
	}
	for _, q := range []struct {
		key, what string
		n         int
	}{
		{"prom_output_ivm_mv_metrics_limit", "IVM MV", len(f.ivmMVs)},
		{"prom_output_table_stream_metrics_limit", "user stream", len(f.userStreams)},
	} {
		s := lookup(m, q.key)
		lim, ok := s.int()
		switch {
		case s.absent:
			r.notOnBuild(g, q.key, "no per-object quota")
		case !f.known && ok:
			r.unknown(g, q.key, fmt.Sprintf("%d, but %s", lim, notRead), "")
		case !ok:
			r.unknown(g, q.key, "not read from "+m.Source+note, "")
		case int64(q.n) > lim:
			r.raise(g, q.key, finding(CodeMonitorQuota, nodeObject(m),
				fmt.Sprintf("%s = %d, below the %s: %d have no per-object series%s", q.key, lim, plural(q.n, q.what), int64(q.n)-lim, note), "",
				doris.SetFrontendConfig(q.key, strconv.Itoa(q.n)),
				map[string]string{q.key: strconv.FormatInt(lim, 10), "objects": strconv.Itoa(q.n)}))
		default:
			r.pass(g, q.key, fmt.Sprintf("%d, covers the %s", lim, plural(q.n, q.what)))
		}
	}
}

// CodeMTMVCapacity: the MTMV task threads or queue are below the refreshes due.
var CodeMTMVCapacity = diag.Declare(diag.Declaration{
	Code: "CONFIG_MTMV_CAPACITY", Severity: diag.SeverityWarning,
	Action: "raise the MV task threads and queue size",
	Impact: diag.ImpactFreshness, Place: 12,
	Title: "MTMV task threads or queue are below the refreshes due",
	Spec:  "Doris Config.java job_mtmv_task_consumer_thread_num (default 10), mtmv_task_queue_size (default 1024)",
	Meaning: "Fewer job_mtmv_task_consumer_thread_num threads than MV refreshes pending or running, or an mtmv_task_queue_size smaller than the MVs that refresh automatically. " +
		"At most that many refreshes run at once; the rest wait in the queue.",
	Matters: "Refreshes queue behind each other: MV delays grow, and an IVM MV waiting long enough can see its changelog expire.",
	Confirm: "SELECT Status, COUNT(*) FROM tasks('type'='mv') GROUP BY Status;  SHOW FRONTEND CONFIG LIKE '%mtmv%';",
	Fix:     "Raise job_mtmv_task_consumer_thread_num (and mtmv_task_queue_size) in the Master's fe.conf and restart it (not mutable).",
	Related: []string{"MV_TASK_QUEUED_LONG"},
})

func ruleMTMVCapacity(r *run, f facts) {
	m, note := r.master()
	if m == nil {
		return
	}
	if !f.known {
		r.unknown(group(m), "job_mtmv_task_consumer_thread_num", notRead, "")
		return
	}
	g := group(m)
	// Due: the MVs whose latest task is pending or running.
	latest := map[int64]int64{}
	status := map[int64]string{}
	for _, t := range r.s.Tasks {
		if c := derefOr(t.CreateTimeMs); c >= latest[t.MVID] {
			latest[t.MVID], status[t.MVID] = c, t.Status
		}
	}
	due := 0
	for _, st := range status {
		if st == "PENDING" || st == "RUNNING" {
			due++
		}
	}
	auto := 0
	for _, mv := range r.s.MVs {
		if tr := mv.Refresh.Trigger; tr == "SCHEDULE" || tr == "COMMIT" {
			auto++
		}
	}
	threads, tok := lookup(m, "job_mtmv_task_consumer_thread_num").int()
	if tok && threads <= 0 {
		threads = 10 // MTMV's own floor
	}
	queue, qok := lookup(m, "mtmv_task_queue_size").int()
	if qok {
		if queue < 0 {
			queue = 1024
		}
		queue = ceilPow2(queue)
	}
	switch {
	case !tok:
		r.unknown(g, "job_mtmv_task_consumer_thread_num", "not read from "+m.Source+note, "")
	case int64(due) > threads:
		r.raise(g, "job_mtmv_task_consumer_thread_num", finding(CodeMTMVCapacity, nodeObject(m),
			fmt.Sprintf("%d MV refreshes pending or running, %d task threads: %d wait%s", due, threads, int64(due)-threads, note), "",
			"raise job_mtmv_task_consumer_thread_num in the Master's fe.conf and restart it",
			map[string]string{"due": strconv.Itoa(due), "threads": strconv.FormatInt(threads, 10)}))
	default:
		r.pass(g, "job_mtmv_task_consumer_thread_num", fmt.Sprintf("%d threads for %d refreshes pending or running", threads, due))
	}
	switch {
	case !qok:
		r.unknown(g, "mtmv_task_queue_size", "not read from "+m.Source+note, "")
	case int64(auto) > queue:
		r.raise(g, "mtmv_task_queue_size", finding(CodeMTMVCapacity, nodeObject(m),
			fmt.Sprintf("%s refresh automatically, the MTMV task queue holds %d%s", plural(auto, "MV"), queue, note), "",
			"raise mtmv_task_queue_size in the Master's fe.conf and restart it",
			map[string]string{"automatic_mvs": strconv.Itoa(auto), "queue": strconv.FormatInt(queue, 10)}))
	default:
		r.pass(g, "mtmv_task_queue_size", fmt.Sprintf("%d, for %s refreshing automatically", queue, plural(auto, "MV")))
	}
}

func ceilPow2(n int64) int64 {
	p := int64(1)
	for p < n && p < 1<<40 {
		p <<= 1
	}
	return p
}

func derefOr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// CodeTaskHistoryShort: the task history is shorter than the window dorisdiag infers from.
var CodeTaskHistoryShort = diag.Declare(diag.Declaration{
	Code: "CONFIG_TASK_HISTORY_SHORT", Severity: diag.SeverityWarning,
	Action: "raise max_persistence_task_count",
	Impact: diag.ImpactVisibility, Place: 11,
	Title:   "max_persistence_task_count keeps fewer tasks per MV than dorisdiag's inference window",
	Spec:    "Doris Config.java max_persistence_task_count (default 100; MTMVJobInfo.addHistoryTask); apache/doris#69907 §1 S2–S3",
	Meaning: "The Master keeps at most max_persistence_task_count tasks per job (none below 1), fewer than the tasks() window dorisdiag reads per MV (--tasks-per-mv, default 20).",
	Matters: "Refresh history, failure streaks and fallback counts are inferred from fewer tasks than asked: counts are lower bounds, older failures invisible.",
	Confirm: "SHOW FRONTEND CONFIG LIKE 'max_persistence_task_count';",
	Fix:     "Raise max_persistence_task_count in the Master's fe.conf and restart it (not mutable), or read fewer tasks (--tasks-per-mv).",
})

func ruleTaskHistory(r *run, _ facts) {
	m, note := r.master()
	if m == nil {
		return
	}
	g, key := group(m), "max_persistence_task_count"
	window := int64(r.s.Source.TasksPerMV)
	if window <= 0 {
		window = 20
	}
	n, ok := lookup(m, key).int()
	switch {
	case !ok:
		r.unknown(g, key, "not read from "+m.Source+note, "")
	case n < window:
		kept := max(n, 0)
		r.raise(g, key, finding(CodeTaskHistoryShort, nodeObject(m),
			fmt.Sprintf("%s = %d: %d tasks kept per MV, fewer than the %d dorisdiag reads%s", key, n, kept, window, note), "",
			"raise max_persistence_task_count in the Master's fe.conf and restart it",
			map[string]string{key: strconv.FormatInt(n, 10), "tasks_per_mv": strconv.FormatInt(window, 10)}))
	default:
		r.pass(g, key, fmt.Sprintf("%d tasks kept per MV, at least the %d dorisdiag reads", n, window))
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
