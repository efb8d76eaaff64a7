package consumers

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// newFinding makes one finding about the consumer being analysed.
type newFinding func(code diag.Code, summary, detail, next string, evidence map[string]string) diag.Finding

// ttlMeaning ends the explain text of the codes that rest on expiry, as the
// stream codes do.
const ttlMeaning = " " + ttl.BuildsDiffer

// CodeOffsetExpiredRejected: a min_delta restart from the published offset is rejected.
var CodeOffsetExpiredRejected = diag.Declare(diag.Declaration{
	Code: "CONSUMER_OFFSET_EXPIRED_REJECTED", Severity: diag.SeverityCritical,
	Action: "keep it running, or raise the TTL or re-sync",
	Impact: diag.ImpactLoss, Place: 11,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Title:     "An external consumer's published offset expired: a min_delta restart from it is rejected",
	Spec:      "apache/doris#69907 §3 Definitions (can_resume, retention headroom); docs/consumers.md",
	Meaning:   "An external consumer (the Flink Doris connector with source.binlog.offset-table) published an offset_timestamp that is below the source table's retention floor: offset − (now − ttl) < 0, with now the cluster's TSO and ttl the table's changelog.ttl_seconds / binlog.ttl_seconds. The consumer reads with increment type min_delta, so a restart with source.scan.mode=from-timestamp from that offset fails with \"offset has expired according to binlog.ttl_seconds\"." + ttlMeaning,
	Matters:   "The job cannot be restarted from its published position: a restart fails until someone re-syncs it; the changes between the offset and the retention floor are gone from the changelog.",
	Confirm:   "dorisdiag consumers   # headroom, restart verdict now and --in\nSELECT consumer_id, MAX(offset_timestamp), MAX(update_time) FROM db.offset_table WHERE consumer_id = '<id>' GROUP BY consumer_id;",
	Fix:       "If the job still runs from its Flink checkpoint, nothing is lost yet: keep it running and fix its publication. Otherwise raise the source table's TTL if the changelog is not compacted yet, or re-sync the consumer from the table (source.scan.mode=initial).",
	Related:   []string{"CONSUMER_OFFSET_EXPIRED_CLIPPED", "CONSUMER_HEADROOM_LOW", "STREAM_CANNOT_RESUME_REJECTED"},
})

// rejectedFinding: a min_delta restart from the expired offset fails.
func rejectedFinding(finding newFinding, ec snapshot.ExternalConsumer, c Consumer, ttlS int64, setting string, evr map[string]string) diag.Finding {
	f := finding(CodeOffsetExpiredRejected, fmt.Sprintf("consumer %s: a min_delta restart from its offset %s (%s) is rejected: expired %s ago", ec.Name, ec.OffsetTimestamp, c.OffsetUTC, secs(-*c.HeadroomSeconds)),
		fmt.Sprintf("The published offset is below the retention floor of %s (%s %d): a restart with %s fails with the expired-offset error.", ec.SourceTable, c.TTLProperty, ttlS, setting),
		"Do not rely on the offset table: if the job still runs from its Flink checkpoint keep it running; otherwise raise "+c.TTLProperty+" on "+tableName(ec.SourceTable)+" if the changelog is not compacted yet ("+setProperty(ec.SourceTable, c.TTLProperty)+"), or re-sync with source.scan.mode=initial.", evr)
	f.Magnitude = f64(*c.HeadroomSeconds)
	return f
}

// CodeOffsetExpiredClipped: a detail/append_only restart silently skips the expired changes.
var CodeOffsetExpiredClipped = diag.Declare(diag.Declaration{
	Code: "CONSUMER_OFFSET_EXPIRED_CLIPPED", Severity: diag.SeverityCritical,
	Action: "do not restart: raise the TTL, or re-sync",
	Impact: diag.ImpactLoss, Place: 12,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	Title:     "An external consumer's published offset expired: a detail or append_only restart silently skips changes",
	Spec:      "apache/doris#69907 §1 S4 (\"succeeds and skips the expired changes without a trace\"), §3 Definitions; docs/consumers.md",
	Meaning:   "An external consumer published an offset_timestamp below the source table's retention floor, and it reads with increment type detail or append_only: a restart from that offset succeeds, clipped to the first retained change, and the changes between the offset and the retention floor are skipped without an error. The finding says which window is lost (lost_from_utc .. lost_to_utc)." + ttlMeaning,
	Matters:   "A restart loses changes and nothing tells the job: the downstream copy silently diverges from the source table.",
	Confirm:   "dorisdiag consumers -o wide   # restart verdict, lost window\nSELECT consumer_id, MAX(offset_timestamp), MAX(update_time) FROM db.offset_table WHERE consumer_id = '<id>' GROUP BY consumer_id;",
	Fix:       "Do not restart from the offset. Raise the source table's TTL if the changelog is not compacted yet; otherwise re-sync the lost window from the table, or the whole consumer (source.scan.mode=initial).",
	Related:   []string{"CONSUMER_OFFSET_EXPIRED_REJECTED", "CONSUMER_HEADROOM_LOW", "STREAM_CANNOT_RESUME_CLIPPED"},
})

// clippedFinding: a detail/append_only restart skips lost ms of changes.
func clippedFinding(finding newFinding, ec snapshot.ExternalConsumer, c Consumer, ttlS, lost int64, setting string, evr map[string]string) diag.Finding {
	f := finding(CodeOffsetExpiredClipped, fmt.Sprintf("consumer %s: a %s restart from its offset %s (%s) silently skips %s of changes", ec.Name, ec.IncrementType, ec.OffsetTimestamp, c.OffsetUTC, secs(float64(lost)/1000)),
		fmt.Sprintf("The published offset is below the retention floor of %s (%s %d): a restart with %s succeeds, clipped to the first retained change; the changes committed from %s to %s are skipped without an error.", ec.SourceTable, c.TTLProperty, ttlS, setting, c.Restart.LostFromUTC, c.Restart.LostToUTC),
		"Do not restart from the offset: raise "+c.TTLProperty+" on "+tableName(ec.SourceTable)+" if the changelog is not compacted yet ("+setProperty(ec.SourceTable, c.TTLProperty)+"); otherwise re-sync the lost window from the table.", evr)
	f.Magnitude = f64(*c.HeadroomSeconds)
	return f
}

// CodeHeadroomLow: the TTL reaches the published offset soon.
var CodeHeadroomLow = diag.Declare(diag.Declaration{
	Code: "CONSUMER_HEADROOM_LOW", Severity: diag.SeverityWarning,
	Action: "check the job publishes, or raise the TTL",
	Impact: diag.ImpactLoss, Place: 13,
	Magnitude: diag.Measure{Name: "headroom_seconds", SmallerIsWorse: true},
	CausedBy:  []diag.Cause{{Code: "CONSUMER_PUBLISHER_STALE"}},
	Title:     "The TTL will reach an external consumer's published offset soon",
	Spec:      "apache/doris#69907 §3 Definitions (headroom_seconds); docs/consumers.md",
	Meaning:   "A restart from the published offset still works, but its retention headroom — offset − (now − ttl) — is under --min-headroom (default 30m). When it reaches 0 a min_delta restart is rejected and a detail/append_only restart silently skips changes." + ttlMeaning,
	Matters:   "If the job fails now, its restart from the offset table has little time left; a job that stopped publishing runs out of it unnoticed.",
	Confirm:   "dorisdiag consumers --in 1h",
	Fix:       "Check that the job runs and publishes (its checkpoints complete); raise the source table's TTL to cover the longest outage you must survive.",
	Related:   []string{"CONSUMER_OFFSET_EXPIRED_REJECTED", "CONSUMER_OFFSET_EXPIRED_CLIPPED", "CONSUMER_PUBLISHER_STALE"},
})

// headroomLowFinding: a restart still works, for less than min.
func headroomLowFinding(finding newFinding, ec snapshot.ExternalConsumer, c Consumer, min time.Duration, setting string, evr map[string]string) diag.Finding {
	f := finding(CodeHeadroomLow, fmt.Sprintf("consumer %s: headroom %s (< %s) before the TTL reaches its offset %s (%s)", ec.Name, secs(*c.HeadroomSeconds), secs(min.Seconds()), ec.OffsetTimestamp, c.OffsetUTC),
		fmt.Sprintf("A restart with %s still works, for %s; then a %s restart is %s.", setting, secs(*c.HeadroomSeconds), ec.IncrementType, expiredWord(ec.IncrementType)),
		"Check that the job runs and publishes; raise "+c.TTLProperty+" on "+tableName(ec.SourceTable)+" to cover the longest outage you must survive.", evr)
	f.Magnitude = f64(*c.HeadroomSeconds)
	return f
}

// CodePublisherStale: no new offset row for too long.
var CodePublisherStale = diag.Declare(diag.Declaration{
	Code: "CONSUMER_PUBLISHER_STALE", Severity: diag.SeverityWarning,
	Action: "check the Flink job and its checkpoints",
	Impact: diag.ImpactBroken, Place: 19,
	Magnitude: diag.Measure{Name: "publish_age_seconds"},
	Title:     "An external consumer has not published an offset for too long",
	Spec:      "docs/consumers.md \"Publisher staleness\"",
	Meaning:   "The newest update_time of the consumer in its offset table is older than the threshold (--max-publish-age, default 15m, or the consumer's max_publish_age), or the table has no row of its consumer_id at all. The connector publishes after every completed checkpoint from subtask 0 and only logs a failed publication, so a stale row means the job is down, its checkpoints fail, or publication fails.",
	Matters:   "The offset table stops telling where a restart would begin; the headroom computed from it shrinks while nobody looks.",
	Confirm:   "dorisdiag consumers -o wide   # publish_age\nGET <jobmanager>:8081/jobs/<jobid>/checkpoints   # latest completed checkpoint (Flink REST, read only)",
	Fix:       "Check the Flink job and its checkpoints; check the connector's log for failed publications (wrong table, privileges); check source.binlog.consumer-id matches the configured consumer_id.",
	Related:   []string{"CONSUMER_HEADROOM_LOW"},
})

// staleFinding: the newest offset row is older than the threshold.
func staleFinding(finding newFinding, ec snapshot.ExternalConsumer, age float64, maxAge time.Duration, ev map[string]string) diag.Finding {
	f := finding(CodePublisherStale, fmt.Sprintf("consumer %s last published %s ago (> %s)", ec.Name, secs(age), secs(maxAge.Seconds())),
		"The newest update_time in "+ec.OffsetTable+" for this consumer is older than the threshold: the job is down, its checkpoints fail, or its publication fails (the connector only logs that).",
		"Check the Flink job's latest completed checkpoint and the connector's log.", ev)
	f.Magnitude = f64(age)
	return f
}

// neverPublishedFinding: the offset table has no row of the consumer_id.
func neverPublishedFinding(finding newFinding, ec snapshot.ExternalConsumer, ev map[string]string) diag.Finding {
	return finding(CodePublisherStale, fmt.Sprintf("consumer %s has never published: %s has no row of consumer_id %q", ec.Name, ec.OffsetTable, ec.ConsumerID),
		"The connector appends a row after every completed checkpoint (subtask 0 only); no row means the job never completed a checkpoint with this source.binlog.consumer-id, publishes elsewhere, or the consumer_id is misspelt.",
		"Compare the job's source.binlog.consumer-id and source.binlog.offset-table with the config file.", ev)
}

// CodeOffsetTableUnreadable: the consumer's position could not be read or interpreted.
var CodeOffsetTableUnreadable = diag.Declare(diag.Declaration{
	Code: "CONSUMER_OFFSET_TABLE_UNREADABLE", Severity: diag.SeverityWarning,
	Action: "grant read access to the offset table",
	Impact: diag.ImpactVisibility, Place: 19,
	Title:   "An external consumer's position cannot be judged: its offset table or its source table's TTL could not be read",
	Spec:    "docs/consumers.md \"What is read\"",
	Meaning: "The offset table statement failed (no such table, no SELECT privilege, a timeout), its values are not datetime text, or the source table's TTL is unknown. dorisdiag cannot say whether a restart from the offset works: it never reports such a consumer as healthy.",
	Matters: "A consumer whose offset already expired looks the same as a healthy one until the table can be read.",
	Confirm: "dorisdiag consumers -o json   # error per consumer\nSHOW GRANTS; SHOW CREATE TABLE db.offset_table;",
	Fix:     "Grant SELECT on the offset table (and on information_schema.table_properties of the source table) to dorisdiag's user; check the names in the config file's consumers: entry.",
	Related: []string{"SOURCE_UNREACHABLE"},
})

// unreadableFinding: the position cannot be judged, and why.
func unreadableFinding(finding newFinding, ec snapshot.ExternalConsumer, why string, ev map[string]string) diag.Finding {
	return finding(CodeOffsetTableUnreadable, "position of consumer "+ec.Name+" cannot be judged: "+why,
		"dorisdiag cannot tell whether a restart from the published offset works; it does not report the consumer as healthy.",
		"Grant SELECT on "+ec.OffsetTable+" to dorisdiag's user, or check the consumers: entry of the config file.", ev)
}

// CodeTZAmbiguous: the zone the offsets were written in is not known.
var CodeTZAmbiguous = diag.Declare(diag.Declaration{
	Code: "CONSUMER_TZ_AMBIGUOUS", Severity: diag.SeverityWarning,
	Action: "give the consumer's time_zone in the config",
	Impact: diag.ImpactVisibility, Place: 20,
	Title:   "The time zone of an external consumer's offsets is not known",
	Spec:    "docs/consumers.md \"Time zones\"",
	Meaning: "The connector writes offset_timestamp and update_time as zone-less text in its JDBC session's time zone. With no time_zone configured for the consumer, dorisdiag reads them in the cluster's session time_zone (info: an assumption, right when the connector does not set its own); when that is unknown too or not a zone dorisdiag can read, or the local time falls in a daylight-saving repeat, the instant is ambiguous (warning), and so are the headroom and the restart verdict. Every output prints the UTC instant beside the zone used.",
	Matters: "A zone off by eight hours moves the headroom by eight hours: an expired offset can look current, and the printed source.scan.timestamp would restart from the wrong instant.",
	Confirm: "SHOW VARIABLES LIKE '%time_zone%';   # the cluster's; the connector's JDBC URL may set its own (serverTimezone, sessionVariables)",
	Fix:     "Give the consumer's time_zone in the config file (consumers: [{..., time_zone: Asia/Shanghai}]).",
	Related: []string{"CONSUMER_HEADROOM_LOW"},
})

// tzUnknownFinding: no zone dorisdiag can read; the text is read as UTC.
func tzUnknownFinding(finding newFinding, ec snapshot.ExternalConsumer, zone string, ev map[string]string) diag.Finding {
	return finding(CodeTZAmbiguous, fmt.Sprintf("consumer %s: the time zone of its offsets is unknown; read as UTC", ec.Name),
		"Neither the config file nor the cluster's session time_zone gives a zone dorisdiag can read ("+strconv.Quote(zone)+"): the headroom and the restart verdict may be off by the zone's offset.",
		"Give time_zone for the consumer in the config file.", ev)
}

// tzRepeatFinding: the offset's wall clock occurs twice in its zone.
func tzRepeatFinding(finding newFinding, ec snapshot.ExternalConsumer, zone string, ev map[string]string) diag.Finding {
	return finding(CodeTZAmbiguous, fmt.Sprintf("consumer %s: offset %s falls in a daylight-saving repeat of %s", ec.Name, ec.OffsetTimestamp, zone),
		"The same wall-clock time occurs twice in this zone: the offset may be an hour earlier than read.",
		"Read the offset as the earlier instant when restarting.", ev)
}

// isExpiry: the codes whose conclusion rests on TTL expiry.
func isExpiry(c diag.Code) bool {
	return c == CodeOffsetExpiredRejected || c == CodeOffsetExpiredClipped || c == CodeHeadroomLow
}
