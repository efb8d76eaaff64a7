package consumers

import (
	"math"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/internal/diagtest"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// consumerSnap is one consumer of demo.orders (TTL ttl) whose offset and
// publication were written in zone (the text as the connector wrote it).
func consumerSnap(ttl *int64, enforced string, ec snapshot.ExternalConsumer, session string) *snapshot.Snapshot {
	b := diagtest.New().Table("demo", "orders", "UNIQUE_KEYS", ttl)
	s := b.S
	s.Tables[0].PropertyNaming = "binlog" // enforcement decided by the case, not the spelling
	s.Cluster.TimeZone = session
	if ec.Name == "" {
		ec.Name = "cdc"
	}
	ec.OffsetTable, ec.SourceTable = "ops.flink_offsets", "demo.orders"
	if ec.ConsumerID == "" {
		ec.ConsumerID = "job-1"
	}
	s.ExternalConsumers = []snapshot.ExternalConsumer{ec}
	s.Normalize()
	switch enforced {
	case snapshot.TTLEnforced:
		s.AssumeTTLEnforced(true, "test")
	case snapshot.TTLNotEnforced:
		s.AssumeTTLEnforced(false, "test")
	}
	return s
}

// text is the wall clock of Now − ago in zone, as the connector writes it.
func text(ago time.Duration, zone string) string {
	loc, ok := snapshot.ParseTimeZone(zone)
	if !ok {
		panic(zone)
	}
	return diagtest.Now.Add(-ago).In(loc).Format("2006-01-02 15:04:05")
}

func TestAnalyze(t *testing.T) {
	day := diagtest.Day
	off := int64(0)
	read := func(inc string, offAgo, pubAgo time.Duration, zone string) snapshot.ExternalConsumer {
		return snapshot.ExternalConsumer{IncrementType: inc, Read: true, Found: true,
			OffsetTimestamp: text(offAgo, zone), UpdateTime: text(pubAgo, zone) + ".250"}
	}
	withZone := func(ec snapshot.ExternalConsumer, z string) snapshot.ExternalConsumer { ec.TimeZone = z; return ec }
	cases := []struct {
		name      string
		ttl       *int64
		enforced  string
		ec        snapshot.ExternalConsumer
		session   string
		opt       Options
		state     State
		now, in   Verdict
		headroom  *float64 // want, within 1 s
		codes     []string
		severity  diag.Severity
		wantNoHdr bool
	}{
		{name: "current consumer is fine", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("min_delta", 2*time.Minute, time.Minute, "UTC"), session: "UTC",
			state: StateOK, now: RestartOK, headroom: f64(86400 - 120)},
		{name: "expired min_delta is rejected", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("min_delta", 26*time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateRejected, now: RestartRejected, headroom: f64(-2 * 3600), codes: []string{"CONSUMER_OFFSET_EXPIRED_REJECTED"}, severity: diag.SeverityCritical},
		{name: "expired detail is clipped", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("detail", 30*time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateClipped, now: RestartClipped, headroom: f64(-6 * 3600), codes: []string{"CONSUMER_OFFSET_EXPIRED_CLIPPED"}, severity: diag.SeverityCritical},
		{name: "append_only is clipped too", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("append_only", 25*time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateClipped, now: RestartClipped, headroom: f64(-3600), codes: []string{"CONSUMER_OFFSET_EXPIRED_CLIPPED"}, severity: diag.SeverityCritical},
		{name: "unknown enforcement: at most a warning", ttl: &day, enforced: snapshot.TTLUnknown, ec: read("min_delta", 26*time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateRejected, now: RestartRejected, headroom: f64(-2 * 3600), codes: []string{"CONSUMER_OFFSET_EXPIRED_REJECTED"}, severity: diag.SeverityWarning},
		{name: "not enforced: no expiry finding", ttl: &day, enforced: snapshot.TTLNotEnforced, ec: read("min_delta", 26*time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateRejected, now: RestartRejected, headroom: f64(-2 * 3600)},
		{name: "headroom low, and --in says rejected", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("min_delta", 23*time.Hour+50*time.Minute, time.Minute, "UTC"), session: "UTC",
			opt: Options{In: time.Hour}, state: StateHeadroom, now: RestartOK, in: RestartRejected, headroom: f64(600), codes: []string{"CONSUMER_HEADROOM_LOW"}, severity: diag.SeverityWarning},
		{name: "publisher stale", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("detail", 2*time.Hour, 2*time.Hour, "UTC"), session: "UTC",
			state: StateStale, now: RestartOK, headroom: f64(22 * 3600), codes: []string{"CONSUMER_PUBLISHER_STALE"}, severity: diag.SeverityWarning},
		{name: "configured max_publish_age wins", ttl: &day, enforced: snapshot.TTLEnforced,
			ec: func() snapshot.ExternalConsumer {
				e := read("detail", 2*time.Hour, 2*time.Hour, "UTC")
				e.MaxPublishAgeSeconds = 3 * 3600
				return e
			}(), session: "UTC",
			state: StateOK, now: RestartOK, headroom: f64(22 * 3600)},
		{name: "never published", ttl: &day, enforced: snapshot.TTLEnforced, ec: snapshot.ExternalConsumer{IncrementType: "detail", Read: true}, session: "UTC",
			state: StateStale, now: RestartUnknown, codes: []string{"CONSUMER_PUBLISHER_STALE"}, severity: diag.SeverityWarning, wantNoHdr: true},
		{name: "offset table unreadable", ttl: &day, enforced: snapshot.TTLEnforced, ec: snapshot.ExternalConsumer{IncrementType: "detail", Error: "Error 1105: table not found"}, session: "UTC",
			state: StateUnreadable, now: RestartUnknown, codes: []string{"CONSUMER_OFFSET_TABLE_UNREADABLE"}, severity: diag.SeverityWarning, wantNoHdr: true},
		{name: "offset not datetime text", ttl: &day, enforced: snapshot.TTLEnforced, ec: snapshot.ExternalConsumer{IncrementType: "detail", Read: true, Found: true, OffsetTimestamp: "yesterday\x1b[2J"}, session: "UTC",
			state: StateUnreadable, now: RestartUnknown, codes: []string{"CONSUMER_OFFSET_TABLE_UNREADABLE"}, severity: diag.SeverityWarning, wantNoHdr: true},
		{name: "source TTL unknown", ttl: nil, enforced: snapshot.TTLEnforced, ec: read("detail", time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateUnreadable, now: RestartUnknown, codes: []string{"CONSUMER_OFFSET_TABLE_UNREADABLE"}, severity: diag.SeverityWarning, wantNoHdr: true},
		{name: "TTL off: nothing expires", ttl: &off, enforced: snapshot.TTLEnforced, ec: read("min_delta", 40*time.Hour, time.Minute, "UTC"), session: "UTC",
			state: StateOK, now: RestartNoTTL, wantNoHdr: true},
		// Time zones: the connector wrote Shanghai wall clock 26 h ago.
		{name: "session zone non-UTC", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("min_delta", 26*time.Hour, time.Minute, "Asia/Shanghai"), session: "Asia/Shanghai",
			state: StateRejected, now: RestartRejected, headroom: f64(-2 * 3600), codes: []string{"CONSUMER_OFFSET_EXPIRED_REJECTED"}, severity: diag.SeverityCritical},
		{name: "configured zone wins over the session's", ttl: &day, enforced: snapshot.TTLEnforced, ec: withZone(read("min_delta", 2*time.Hour, time.Minute, "+08:00"), "+08:00"), session: "UTC",
			state: StateOK, now: RestartOK, headroom: f64(22 * 3600)},
		{name: "wrong zone shifts the verdict by 8 h", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("min_delta", 20*time.Hour, time.Minute, "Asia/Shanghai"), session: "UTC",
			state: StateOK, now: RestartOK, headroom: f64(12 * 3600)},
		{name: "no zone at all", ttl: &day, enforced: snapshot.TTLEnforced, ec: read("detail", time.Hour, time.Minute, "UTC"), session: "",
			state: StateOK, now: RestartOK, headroom: f64(23 * 3600), codes: []string{"CONSUMER_TZ_AMBIGUOUS"}, severity: diag.SeverityWarning},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := consumerSnap(tc.ttl, tc.enforced, tc.ec, tc.session)
			r := Analyze(s, tc.opt)
			if len(r.Consumers) != 1 {
				t.Fatalf("consumers = %d", len(r.Consumers))
			}
			c := r.Consumers[0]
			if c.State != tc.state || c.Restart.Now != tc.now || c.Restart.In != tc.in {
				t.Errorf("state %s now %s in %s, want %s %s %s (%+v)", c.State, c.Restart.Now, c.Restart.In, tc.state, tc.now, tc.in, c)
			}
			if tc.wantNoHdr != (c.HeadroomSeconds == nil) {
				t.Errorf("headroom = %v, want absent %v", c.HeadroomSeconds, tc.wantNoHdr)
			}
			if tc.headroom != nil && (c.HeadroomSeconds == nil || math.Abs(*c.HeadroomSeconds-*tc.headroom) > 1) {
				t.Errorf("headroom = %v, want %v within 1 s", c.HeadroomSeconds, *tc.headroom)
			}
			var codes []string
			for _, f := range r.Findings {
				codes = append(codes, f.Code.String())
			}
			if len(codes) != len(tc.codes) {
				t.Fatalf("codes = %v, want %v", codes, tc.codes)
			}
			for i := range codes {
				if codes[i] != tc.codes[i] {
					t.Errorf("codes = %v, want %v", codes, tc.codes)
				}
			}
			if c.Worst != tc.severity {
				t.Errorf("severity = %s, want %s", c.Worst, tc.severity)
			}
		})
	}
}

// The next step names the source table and suggests the contract's
// statement (issue 19 item 5): a name that does not split into db.table is
// a placeholder in the statement, never written unquoted, and a line feed
// in it never starts a line of its own.
func TestSourceTableInNext(t *testing.T) {
	for _, tc := range []struct{ in, stmt, name string }{
		{"demo.orders", "ALTER TABLE `demo`.`orders` SET (\"binlog.ttl_seconds\" = \"...\")", "demo.orders"},
		{"`my db`.orders", "ALTER TABLE `my db`.`orders` SET (\"binlog.ttl_seconds\" = \"...\")", "`my db`.orders"},
		{"orders\nDROP DATABASE prod;", "ALTER TABLE <db>.<table> SET (\"binlog.ttl_seconds\" = \"...\")", `orders\nDROP DATABASE prod;`},
		{"cat.demo.orders", "ALTER TABLE <db>.<table> SET (\"binlog.ttl_seconds\" = \"...\")", "cat.demo.orders"},
	} {
		if got := setProperty(tc.in, "binlog.ttl_seconds"); got != tc.stmt {
			t.Errorf("setProperty(%q) = %q, want %q", tc.in, got, tc.stmt)
		}
		if got := tableName(tc.in); got != tc.name {
			t.Errorf("tableName(%q) = %q, want %q", tc.in, got, tc.name)
		}
		if steps := diag.SplitNext("raise it on " + tableName(tc.in) + " (" + setProperty(tc.in, "binlog.ttl_seconds") + ")."); len(steps) != 1 {
			t.Errorf("%q: next is %d lines: %q", tc.in, len(steps), steps)
		}
	}
}
