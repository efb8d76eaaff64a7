package diag

import "strings"

// Whether a conclusion that rests on expiry holds depends on the build
// (docs/notes-realbuilds-evidence.md "TTL enforcement"): earlier ROW binlog
// builds keep every change whatever binlog.ttl_seconds says
// (apache/doris#65897), later ones filter expired changes when a read is
// planned (apache/doris#68226), the Doris 5.0 changelog hides them at once.
// The snapshot records the evidence (snapshot.TTLEnforcement); `tso
// headroom`, which reads no cluster, has only the user's word. Every expiry
// finding, whoever raises it, goes through QualifyExpiry here, so it is
// judged and worded once:
//
//   - enforced (yes): as computed;
//   - unknown: the same numbers, at most a warning, worded as a condition
//     ("if this build enforces binlog.ttl_seconds (apache/doris#68226)")
//     and saying how to tell;
//   - not enforced (no, the user's word): no expiry finding; the headroom
//     is still shown.

// The verdicts of TTL enforcement (the same strings as snapshot.TTLEnforced,
// TTLNotEnforced and TTLUnknown; TestTTLVerdictsAgree pins them).
const (
	TTLEnforced    = "yes"
	TTLNotEnforced = "no"
	TTLUnknown     = "unknown"
)

// TTLVerdictOf is the verdict of the user's word alone (--assume-ttl-enforced
// and its config key; nil: not given): what a tool that reads no cluster
// knows.
func TTLVerdictOf(assumed *bool) string {
	switch {
	case assumed == nil:
		return TTLUnknown
	case *assumed:
		return TTLEnforced
	}
	return TTLNotEnforced
}

// HowToTellTTL says how to tell whether a build enforces the TTL: the
// explain texts of the expiry codes and their findings' details end with it.
const HowToTellTTL = "Whether this build expires changes past the TTL is not proven by the snapshot. It does if a base table uses the changelog.* properties (Doris 5.0), " +
	"if a refresh or read failed with \"offset has expired according to binlog.ttl_seconds\", if /metrics carries the TTL series of apache/doris#69907 " +
	"(doris_be_changelog_ttl_cleanup_total, ...), or if table_stream_consumption has RETENTION_APPLICABLE / CAN_RESUME; earlier ROW binlog builds never " +
	"expire changes (apache/doris#65897). If you know it does, give --assume-ttl-enforced (or assume_ttl_enforced: true in the config file) to restore the critical gate; " +
	"--assume-ttl-enforced=false says it does not."

// TTLBuildsDiffer ends the explain text (Meaning) of every code whose
// conclusion rests on expiry.
const TTLBuildsDiffer = "Builds differ: earlier ROW binlog builds never expire changes whatever binlog.ttl_seconds says (apache/doris#65897), later ones do " +
	"(apache/doris#68226), the Doris 5.0 changelog at once. Without evidence that the build enforces the TTL (changelog.* properties, an expired-offset error, " +
	"the TTL series of apache/doris#69907 on /metrics, the retention columns of table_stream_consumption) the finding is at most a warning worded " +
	"\"if this build enforces binlog.ttl_seconds (apache/doris#68226)\"; --assume-ttl-enforced (config key assume_ttl_enforced) restores the critical, " +
	"--assume-ttl-enforced=false drops the finding."

// ExpiryCondition is the condition an expiry finding is worded under when
// enforcement is unknown; property is the TTL property the table uses
// ("binlog.ttl_seconds"; "" for that default).
func ExpiryCondition(property string) string {
	if property == "" {
		property = "binlog.ttl_seconds"
	}
	return "if this build enforces " + property + " (apache/doris#68226)"
}

// QualifyExpiry applies the build's TTL enforcement verdict to the findings
// fs whose code isExpiry says rests on expiry: kept as they are when
// enforced, dropped when not enforced, and worded under
// ExpiryCondition(property) at most as a warning when unknown (any other
// verdict). The other findings pass unchanged.
func QualifyExpiry(verdict, property string, fs []Finding, isExpiry func(Code) bool) []Finding {
	if verdict == TTLEnforced || len(fs) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if !isExpiry(f.Code) {
			out = append(out, f)
			continue
		}
		if verdict == TTLNotEnforced {
			continue
		}
		out = append(out, conditional(f, property))
	}
	return out
}

// conditional words an expiry finding under the enforcement condition.
func conditional(f Finding, property string) Finding {
	f.Severity = min(f.Severity, SeverityWarning)
	f.Summary = ExpiryCondition(property) + ": " + f.Summary
	f.Detail = strings.TrimSpace(f.Detail + " " + HowToTellTTL)
	ev := make(map[string]string, len(f.Evidence)+1)
	for k, v := range f.Evidence {
		ev[k] = v
	}
	ev["ttl_enforced"] = TTLUnknown
	f.Evidence = ev
	return f
}
