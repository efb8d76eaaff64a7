package tsotool

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

func headroomIn(t *testing.T, offset string, now time.Time, ttl int64) HeadroomInput {
	t.Helper()
	p, err := tso.ParseOffset(offset)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := tso.FromTime(now, 0)
	if err != nil {
		t.Fatal(err)
	}
	return HeadroomInput{OffsetText: offset, Offset: p, Now: ref, TTLSeconds: ttl, MinHeadroom: 30 * time.Minute}
}

// The unhappy paths first: a sentinel offset and a TTL the arithmetic
// overflows are typed errors naming the input, never a result.
func TestTSOHeadroomBadInput(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	in := headroomIn(t, "9223372036854775807", now, 86400)
	var e *HeadroomError
	if _, err := Headroom(in); !errors.As(err, &e) || e.Input != "offset" {
		t.Errorf("unbounded offset: err %v, want a TSOHeadroomError on offset", err)
	}
	in = headroomIn(t, "469067681628160003", now, 1<<62)
	if _, err := Headroom(in); !errors.As(err, &e) || e.Input != "ttl" || !errors.Is(err, tso.ErrOutOfRange) {
		t.Errorf("overflowing ttl: err %v, want a TSOHeadroomError on ttl wrapping ErrOutOfRange", err)
	}
}

// The verdicts come with the registered codes at their registered
// severities when the build enforces the TTL (--assume-ttl-enforced):
// expired (critical), low (warning), enough (none), no offset (none, read
// effects only).
func TestTSOHeadroomFindings(t *testing.T) {
	const c = "469067681628160003" // physical 2026-09-14T02:00:02.500Z
	yes := true
	for _, tc := range []struct {
		offset string
		now    time.Time
		code   string
	}{
		{c, time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC), "TSO_OFFSET_EXPIRED"},
		{c, time.Date(2026, 9, 15, 1, 40, 0, 0, time.UTC), "TSO_HEADROOM_LOW"}, // 20m03s left
		{c, time.Date(2026, 9, 14, 12, 0, 0, 0, time.UTC), ""},
		{"N/A", time.Date(2026, 9, 14, 12, 0, 0, 0, time.UTC), ""},
	} {
		in := headroomIn(t, tc.offset, tc.now, 86400)
		in.AssumeTTLEnforced = &yes
		res, err := Headroom(in)
		if err != nil {
			t.Fatalf("%s at %s: %v", tc.offset, tc.now, err)
		}
		if tc.code == "" {
			if len(res.Findings) != 0 || res.Findings == nil {
				t.Errorf("%s at %s: findings %+v, want an empty list", tc.offset, tc.now, res.Findings)
			}
			continue
		}
		if len(res.Findings) != 1 || res.Findings[0].Code.String() != tc.code {
			t.Fatalf("%s at %s: findings %+v, want one %s", tc.offset, tc.now, res.Findings, tc.code)
		}
		if c, _ := diag.ParseCode(tc.code); res.Findings[0].Severity != c.Severity() {
			want := c.Severity()
			t.Errorf("%s: severity %s, want the registered %s", tc.code, res.Findings[0].Severity, want)
		}
	}
}

// Issue 21: TSO_OFFSET_EXPIRED and TSO_HEADROOM_LOW rest on expiry, so they
// pass the same gate as check's expiry findings (ttl.Qualify): with
// no word on enforcement, at most a warning worded "if this build enforces
// binlog.ttl_seconds (apache/doris#68226)" with the same numbers; the
// user's yes restores the critical, the user's no drops the finding and
// keeps the numbers. Before, the expired offset was critical on every build.
func TestTSOHeadroomTTLGate(t *testing.T) {
	const c = "469067681628160003"
	yes, no := true, false
	expired := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	low := time.Date(2026, 9, 15, 1, 40, 0, 0, time.UTC)
	const cond = "if this build enforces binlog.ttl_seconds (apache/doris#68226): "
	for _, tc := range []struct {
		name    string
		now     time.Time
		assumed *bool
		code    string
		sev     diag.Severity
		worded  bool
	}{
		{"expired, unknown", expired, nil, "TSO_OFFSET_EXPIRED", diag.SeverityWarning, true},
		{"expired, enforced", expired, &yes, "TSO_OFFSET_EXPIRED", diag.SeverityCritical, false},
		{"expired, not enforced", expired, &no, "", 0, false},
		{"low, unknown", low, nil, "TSO_HEADROOM_LOW", diag.SeverityWarning, true},
		{"low, enforced", low, &yes, "TSO_HEADROOM_LOW", diag.SeverityWarning, false},
		{"low, not enforced", low, &no, "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := headroomIn(t, c, tc.now, 86400)
			in.AssumeTTLEnforced = tc.assumed
			res, err := Headroom(in)
			if err != nil {
				t.Fatal(err)
			}
			if res.HeadroomSeconds == nil || res.CanResume == nil {
				t.Fatalf("the numbers are gone: %+v", res)
			}
			if tc.code == "" {
				if len(res.Findings) != 0 {
					t.Errorf("findings %+v, want none", res.Findings)
				}
				return
			}
			if len(res.Findings) != 1 || res.Findings[0].Code.String() != tc.code {
				t.Fatalf("findings %+v, want one %s", res.Findings, tc.code)
			}
			f := res.Findings[0]
			if f.Severity != tc.sev {
				t.Errorf("severity %s, want %s", f.Severity, tc.sev)
			}
			if got := strings.HasPrefix(f.Summary, cond); got != tc.worded {
				t.Errorf("summary %q: worded under the condition %v, want %v", f.Summary, got, tc.worded)
			}
			if tc.worded && (f.Evidence["ttl_enforced"] != snapshot.TTLUnknown || !strings.Contains(f.Detail, "--assume-ttl-enforced")) {
				t.Errorf("evidence %v, detail %q: want ttl_enforced unknown and how to tell", f.Evidence, f.Detail)
			}
		})
	}
}

func TestTSOHeadroomNumbers(t *testing.T) {
	const c = "469067681628160003"
	res, _ := Headroom(headroomIn(t, "N/A", time.Date(2026, 9, 14, 12, 0, 0, 0, time.UTC), 86400))
	if res.HasOffset || res.CanResume != nil || len(res.ReadEffects) == 0 {
		t.Errorf("no offset: %+v, want no verdict and the read effects", res)
	}
	res, _ = Headroom(headroomIn(t, c, time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC), 86400))
	if res.LostSeconds == nil || *res.LostSeconds <= 0 || *res.CanResume {
		t.Errorf("expired: lost %v can_resume %v, want a positive lost window and false", res.LostSeconds, res.CanResume)
	}
}

// The offset is read only when the LAG has a value, as before; a bad one
// next to a value is an error.
func TestTSOLag(t *testing.T) {
	if _, err := Lag("x", ""); err == nil {
		t.Error("LAG x: no error")
	}
	if _, err := Lag("3", "garbage"); err == nil {
		t.Error("--offset garbage with a LAG: no error")
	}
	if r, err := Lag("N/A", "garbage"); err != nil || r.HasValue {
		t.Errorf("N/A: %+v %v, want no value and no error", r, err)
	}
	if r, _ := Lag("3", "469067681628160003"); !r.ProbablyVersions || r.Milliseconds != nil {
		t.Errorf("3 next to an offset: %+v, want probably versions, not converted", r)
	}
	if r, _ := Lag("262144000", ""); r.Milliseconds == nil || *r.Milliseconds != 1000 {
		t.Errorf("262144000: %+v, want 1000 ms", r)
	}
}

// TSODecode drops nothing: bad inputs are listed with their error.
func TestTSODecode(t *testing.T) {
	r := Decode([]string{"469067681628160003", "nope", "N/A"}, nil)
	if len(r.TSOs) != 2 || len(r.Errors) != 1 || r.Errors[0].Input != "nope" {
		t.Errorf("%+v", r)
	}
}
