package consumers

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	ttlgate "github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// Defaults of Options.
const (
	DefaultMinHeadroom   = 30 * time.Minute // as STREAM_HEADROOM_LOW's (the design's alert: < 1800 s)
	DefaultMaxPublishAge = 15 * time.Minute
)

// Options are the thresholds and the what-if of the analysis.
type Options struct {
	MinHeadroom   time.Duration // CONSUMER_HEADROOM_LOW below; 0 = DefaultMinHeadroom
	MaxPublishAge time.Duration // CONSUMER_PUBLISHER_STALE above (a consumer's own max_publish_age wins); 0 = DefaultMaxPublishAge
	// In, when > 0, also judges a restart from the offset at now + In
	// (`dorisdiag consumers --in`).
	In time.Duration
}

func (o Options) withDefaults() Options {
	if o.MinHeadroom <= 0 {
		o.MinHeadroom = DefaultMinHeadroom
	}
	if o.MaxPublishAge <= 0 {
		o.MaxPublishAge = DefaultMaxPublishAge
	}
	return o
}

// Verdict is what a restart from the published offset does.
type Verdict string

// Verdicts of a restart.
const (
	RestartOK       Verdict = "ok"       // every change after the offset is still retained
	RestartRejected Verdict = "rejected" // min_delta: the read fails with the expired-offset error
	RestartClipped  Verdict = "clipped"  // detail/append_only: succeeds, the expired changes skipped silently
	RestartUnknown  Verdict = "unknown"  // the offset, the TTL or the zone is unknown
	RestartNoTTL    Verdict = "no_ttl"   // the TTL is off: nothing expires
)

// State is a consumer's one-word state, worst first in Result order.
type State string

// States of a consumer.
const (
	StateRejected   State = "rejected"     // the offset expired, min_delta
	StateClipped    State = "clipped"      // the offset expired, detail/append_only
	StateUnreadable State = "unreadable"   // the position cannot be judged
	StateHeadroom   State = "headroom_low" // retained, but not for long
	StateStale      State = "stale"        // the publisher stopped
	StateOK         State = "ok"
)

// Restart is the exact restart setting from the published offset and what
// it does now and at now + Options.In.
type Restart struct {
	// Options are the connector options to restart with, in the offset's
	// own zone text ("source.scan.mode=from-timestamp",
	// "source.scan.timestamp=2026-11-30 08:00:00").
	Options []string `json:"options,omitempty"`
	// TimestampUTC is the same instant in UTC (RFC 3339).
	TimestampUTC string  `json:"timestamp_utc,omitempty"`
	Now          Verdict `json:"now"`
	// In and InSeconds: the verdict at now + --in (absent without --in).
	In        Verdict  `json:"in,omitempty"`
	InSeconds *float64 `json:"in_seconds,omitempty"`
	// LostFromUTC..LostToUTC is what a clipped restart skips: the changes
	// after the offset up to the retention floor (absent unless clipped now).
	LostFromUTC string   `json:"lost_from_utc,omitempty"`
	LostToUTC   string   `json:"lost_to_utc,omitempty"`
	LostSeconds *float64 `json:"lost_seconds,omitempty"`
}

// Consumer is the judgment of one declared external consumer.
type Consumer struct {
	Name          string `json:"name"`
	OffsetTable   string `json:"offset_table"`
	ConsumerID    string `json:"consumer_id"`
	SourceTable   string `json:"source_table"`
	IncrementType string `json:"increment_type"`
	State         State  `json:"state"`
	// TimeZone is the zone the offsets were read in; TimeZoneSource says
	// why: "configured", "session" (the cluster's session time_zone,
	// assumed) or "unknown" (UTC assumed).
	TimeZone       string `json:"time_zone"`
	TimeZoneSource string `json:"time_zone_source"`
	// OffsetTimestamp and UpdateTime as read, and the instants in UTC.
	OffsetTimestamp string `json:"offset_timestamp,omitempty"`
	OffsetUTC       string `json:"offset_utc,omitempty"`
	UpdateTime      string `json:"update_time,omitempty"`
	UpdateUTC       string `json:"update_utc,omitempty"`
	TTLSeconds      *int64 `json:"ttl_seconds,omitempty"`
	TTLProperty     string `json:"ttl_property,omitempty"`
	// HeadroomSeconds is offset − (now − ttl), the planner's rule
	// (negative: expired); OffsetAgeSeconds now − offset;
	// PublishAgeSeconds now − update_time. Absent when unknown.
	HeadroomSeconds   *float64 `json:"headroom_seconds,omitempty"`
	OffsetAgeSeconds  *float64 `json:"offset_age_seconds,omitempty"`
	PublishAgeSeconds *float64 `json:"publish_age_seconds,omitempty"`
	// TTLEnforced is the build's TTL enforcement (yes, no, unknown): the
	// expiry verdicts hold as computed only on yes.
	TTLEnforced string  `json:"ttl_enforced"`
	Restart     Restart `json:"restart"`
	// Error is why the position could not be judged ("" when it could).
	Error string `json:"error,omitempty"`
	// Note says what else a reader should know (an assumed zone, ...).
	Note string `json:"note,omitempty"`

	// Severity is the worst finding's severity, "ok" without one.
	Severity string `json:"severity"`
	// Worst is the same as a diag.Severity (none without a finding), for
	// ordering.
	Worst diag.Severity `json:"-"`
}

// Result is the analysis of every declared consumer.
type Result struct {
	Now        time.Time      `json:"now"`
	CurrentTSO tso.TSO        `json:"current_tso"`
	Consumers  []Consumer     `json:"consumers"`
	Findings   []diag.Finding `json:"findings"`
}

// Analyze judges every external consumer of the snapshot (pure: now is
// the cluster's TSO).
func Analyze(s *snapshot.Snapshot, opt Options) *Result {
	opt = opt.withDefaults()
	r := &Result{Now: s.Cluster.Now, CurrentTSO: s.Cluster.CurrentTSO, Consumers: []Consumer{}, Findings: []diag.Finding{}}
	enf := s.TTL()
	for _, ec := range s.ExternalConsumers {
		c, fs := analyzeOne(s, ec, opt)
		fs = ttlgate.Qualify(enf, c.TTLProperty, fs, isExpiry)
		c.TTLEnforced = enf.Verdict
		for _, f := range fs {
			c.Worst = max(c.Worst, f.Severity)
		}
		c.Severity = "ok"
		if c.Worst != diag.SeverityNone {
			c.Severity = c.Worst.String()
		}
		r.Consumers = append(r.Consumers, c)
		r.Findings = append(r.Findings, fs...)
	}
	return r
}

const textLayout = "2006-01-02 15:04:05"

func analyzeOne(s *snapshot.Snapshot, ec snapshot.ExternalConsumer, opt Options) (Consumer, []diag.Finding) {
	c := Consumer{Name: ec.Name, OffsetTable: ec.OffsetTable, ConsumerID: ec.ConsumerID, SourceTable: ec.SourceTable,
		IncrementType: ec.IncrementType, OffsetTimestamp: ec.OffsetTimestamp, UpdateTime: ec.UpdateTime,
		State: StateOK, Restart: Restart{Now: RestartUnknown}}
	var fs []diag.Finding
	now := s.Cluster.Now
	obj := diag.Object{Kind: "consumer", Name: ec.Name}
	ev := func(kv ...string) map[string]string {
		m := map[string]string{"offset_table": ec.OffsetTable, "consumer_id": ec.ConsumerID, "source_table": ec.SourceTable, "increment_type": ec.IncrementType}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	finding := func(code diag.Code, summary, detail, next string, evidence map[string]string) diag.Finding { // newFinding
		return diag.Finding{Code: code, Severity: code.Severity(), Object: obj, Summary: summary, Detail: detail, Evidence: evidence, Next: next}
	}
	unreadable := func(why string) {
		c.State, c.Error = StateUnreadable, why
		fs = append(fs, unreadableFinding(finding, ec, why, ev("error", why)))
	}

	// The zone the connector wrote its text in (snapshot.Normalize).
	loc, zoneName, zoneSource := ec.Zone, ec.ZoneName, ec.ZoneSource
	if loc == nil {
		loc, zoneSource = time.UTC, snapshot.ZoneUnknown
	}
	c.TimeZone, c.TimeZoneSource = zoneName, zoneSource
	// The source table's TTL, as for a stream's base table.
	sdb, stbl, _ := ec.SourceTableParts()
	var table *snapshot.Table
	for i := range s.Tables {
		if t := &s.Tables[i]; t.DB == sdb && t.Name == stbl {
			table = t
		}
	}
	c.TTLProperty = "binlog.ttl_seconds"
	if table != nil {
		if table.PropertyNaming == "changelog" {
			c.TTLProperty = "changelog.ttl_seconds"
		}
		c.TTLSeconds = table.TTLSeconds
	}

	switch {
	case !ec.Read:
		why := ec.Error
		if why == "" {
			why = "the offset table was not read (the snapshot was taken without this consumer in the config file)"
		}
		unreadable(why)
		return c, fs
	case !ec.Found:
		c.State = StateStale
		fs = append(fs, neverPublishedFinding(finding, ec, ev()))
		return c, fs
	}

	if zoneSource == snapshot.ZoneUnknown {
		fs = append(fs, tzUnknownFinding(finding, ec, zoneName, ev("time_zone", zoneName)))
	}
	if ec.OffsetMs == nil {
		unreadable(fmt.Sprintf("offset_timestamp %q is not datetime text", ec.OffsetTimestamp))
		return c, fs
	}
	off := time.UnixMilli(*ec.OffsetMs).UTC()
	c.OffsetUTC = off.Format(time.RFC3339)
	if ec.OffsetRepeated {
		fs = append(fs, tzRepeatFinding(finding, ec, zoneName, ev("time_zone", zoneName, "offset_timestamp", ec.OffsetTimestamp)))
	}
	if zoneSource == snapshot.ZoneSession {
		c.Note = "offsets read in the cluster's session time_zone " + zoneName + " (assumed: the connector's JDBC session may use another; give time_zone in the config file)"
	}
	c.OffsetAgeSeconds = f64(now.Sub(off).Seconds())
	if ec.UpdateMs != nil {
		up := time.UnixMilli(*ec.UpdateMs).UTC()
		c.UpdateUTC = up.Format(time.RFC3339Nano)
		c.PublishAgeSeconds = f64(now.Sub(up).Seconds())
	}
	c.Restart.Options = []string{"source.scan.mode=from-timestamp", "source.scan.timestamp=" + off.In(loc).Format(textLayout)}
	c.Restart.TimestampUTC = c.OffsetUTC

	// Publisher staleness.
	maxAge := opt.MaxPublishAge
	if ec.MaxPublishAgeSeconds > 0 {
		maxAge = time.Duration(ec.MaxPublishAgeSeconds * float64(time.Second))
	}
	if c.PublishAgeSeconds != nil && *c.PublishAgeSeconds > maxAge.Seconds() {
		c.State = StateStale
		fs = append(fs, staleFinding(finding, ec, *c.PublishAgeSeconds, maxAge,
			ev("publish_age_seconds", fmtF(*c.PublishAgeSeconds), "update_time", ec.UpdateTime, "update_utc", c.UpdateUTC)))
	}

	// Retention.
	switch {
	case c.TTLSeconds == nil:
		unreadable("the TTL of source table " + ec.SourceTable + " is unknown")
		return c, fs
	case *c.TTLSeconds <= 0:
		c.Restart.Now = RestartNoTTL
		if opt.In > 0 {
			c.Restart.In, c.Restart.InSeconds = RestartNoTTL, f64(opt.In.Seconds())
		}
		return c, fs
	}
	ttlS := *c.TTLSeconds
	ret, err := retention(s.Cluster.CurrentTSO, ttlS, off, 0)
	if err != nil {
		unreadable("retention: " + err.Error())
		return c, fs
	}
	c.HeadroomSeconds = f64(ret.HeadroomSeconds())
	c.Restart.Now = verdict(ret, ec.IncrementType)
	if opt.In > 0 {
		c.Restart.InSeconds = f64(opt.In.Seconds())
		if later, err := retention(s.Cluster.CurrentTSO, ttlS, off, opt.In); err == nil {
			c.Restart.In = verdict(later, ec.IncrementType)
		}
	}
	evr := ev("offset_timestamp", ec.OffsetTimestamp, "offset_utc", c.OffsetUTC, "time_zone", zoneName, "headroom_seconds", fmtF(*c.HeadroomSeconds),
		"ttl_seconds", strconv.FormatInt(ttlS, 10), "retention_floor_utc", ret.RetentionFloorTSO.Time().Format(time.RFC3339Nano))
	setting := strings.Join(c.Restart.Options, " ")
	switch c.Restart.Now {
	case RestartRejected:
		c.State = StateRejected
		fs = append(fs, rejectedFinding(finding, ec, c, ttlS, setting, evr))
	case RestartClipped:
		c.State = StateClipped
		lost := ret.ExpiredWindowMs
		c.Restart.LostFromUTC, c.Restart.LostToUTC, c.Restart.LostSeconds = c.OffsetUTC, ret.CutoffTSO.Time().Format(time.RFC3339Nano), f64(float64(lost)/1000)
		evr["lost_from_utc"], evr["lost_to_utc"], evr["lost_seconds"] = c.Restart.LostFromUTC, c.Restart.LostToUTC, fmtF(*c.Restart.LostSeconds)
		fs = append(fs, clippedFinding(finding, ec, c, ttlS, lost, setting, evr))
	case RestartOK:
		if *c.HeadroomSeconds < opt.MinHeadroom.Seconds() {
			if c.State == StateOK {
				c.State = StateHeadroom
			}
			fs = append(fs, headroomLowFinding(finding, ec, c, opt.MinHeadroom, setting, evr))
		}
	}
	return c, fs
}

// retention applies the planner's rule to the offset at now + in: the
// connector restarts after the offset's second (source.scan.timestamp is an
// exclusive start), so the consumed TSO is the last one of its
// millisecond, and the headroom is offset_ms − (ref_ms − ttl·1000)
// exactly (tso.ComputeRetention: the boundary millisecond expires).
func retention(ref tso.TSO, ttl int64, off time.Time, in time.Duration) (tso.Retention, error) {
	if in > 0 {
		r, err := tso.Compose(ref.Physical()+in.Milliseconds(), ref.Logical())
		if err != nil {
			return tso.Retention{}, err
		}
		ref = r
	}
	consumed, err := tso.Compose(off.UnixMilli(), tso.MaxLogical)
	if err != nil {
		return tso.Retention{}, err
	}
	return tso.ComputeRetention(ref, ttl, consumed)
}

func verdict(r tso.Retention, increment string) Verdict {
	if r.CanResume {
		return RestartOK
	}
	if increment == snapshot.IncrementDetail || increment == snapshot.IncrementAppendOnly {
		return RestartClipped
	}
	return RestartRejected
}

func expiredWord(increment string) string {
	if increment == snapshot.IncrementDetail || increment == snapshot.IncrementAppendOnly {
		return "silently clipped"
	}
	return "rejected"
}

func setProperty(qualified, prop string) string {
	db, tbl, ok := splitName(qualified)
	if !ok {
		return doris.SetTablePropertyOfSome(prop)
	}
	return doris.SetTableProperty(db, tbl, prop)
}

// tableName writes a consumer's source table inside a next step's prose:
// db.table as a person types it (doris.FormatName) when it splits, else with
// its line breaks and control characters escaped, so that a line feed in the
// name never starts a line of its own in the printed steps.
func tableName(qualified string) string {
	if db, tbl, ok := splitName(qualified); ok {
		return doris.FormatName(db, tbl)
	}
	return doris.CommentText(qualified)
}

func splitName(s string) (string, string, bool) {
	return snapshot.ExternalConsumer{SourceTable: s}.SourceTableParts()
}

func f64(v float64) *float64 { return &v }

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func secs(v float64) string { return tso.FormatDuration(int64(math.Round(v * 1000))) }
