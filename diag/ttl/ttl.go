// Package ttl is the gate every expiry conclusion passes: whether the
// build enforces the changelog TTL, as the snapshot's evidence says
// (snapshot.TTLEnforcement), and how a finding that rests on expiry is
// worded under it. Builds differ (docs/notes-realbuilds-evidence.md "TTL
// enforcement"): earlier ROW binlog builds keep every change whatever
// binlog.ttl_seconds says (apache/doris#65897), later ones filter expired
// changes when a read is planned (apache/doris#68226), the Doris 5.0
// changelog hides them at once. Every expiry finding says which holds:
//
//   - enforced (yes): as computed;
//   - unknown: the same numbers, at most a warning, worded as a condition
//     ("if this build enforces binlog.ttl_seconds (apache/doris#68226)")
//     and saying how to tell;
//   - not enforced (no, the user's word): no expiry finding; the headroom
//     is still shown.
//
// It is pure and imports only diag's core and snapshot, so every concept
// whose findings rest on expiry (streams, MVs, TSO offsets, consumers)
// applies the same gate with its own list of codes.
package ttl

import (
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// HowToTell says how to tell whether a build enforces the TTL: the
// explain texts of the expiry codes and their findings' details end with it.
const HowToTell = "Whether this build expires changes past the TTL is not proven by the snapshot. It does if a base table uses the changelog.* properties (Doris 5.0), " +
	"if a refresh or read failed with \"offset has expired according to binlog.ttl_seconds\", if /metrics carries the TTL series of apache/doris#69907 " +
	"(doris_be_changelog_ttl_cleanup_total, ...), or if table_stream_consumption has RETENTION_APPLICABLE / CAN_RESUME; earlier ROW binlog builds never " +
	"expire changes (apache/doris#65897). If you know it does, give --assume-ttl-enforced (or assume_ttl_enforced: true in the config file) to restore the critical gate; " +
	"--assume-ttl-enforced=false says it does not."

// BuildsDiffer ends the explain text (Meaning) of every code whose
// conclusion rests on expiry.
const BuildsDiffer = "Builds differ: earlier ROW binlog builds never expire changes whatever binlog.ttl_seconds says (apache/doris#65897), later ones do " +
	"(apache/doris#68226), the Doris 5.0 changelog at once. Without evidence that the build enforces the TTL (changelog.* properties, an expired-offset error, " +
	"the TTL series of apache/doris#69907 on /metrics, the retention columns of table_stream_consumption) the finding is at most a warning worded " +
	"\"if this build enforces binlog.ttl_seconds (apache/doris#68226)\"; --assume-ttl-enforced (config key assume_ttl_enforced) restores the critical, " +
	"--assume-ttl-enforced=false drops the finding."

// Condition is the condition an expiry finding is worded under when
// enforcement is unknown; property is the TTL property the table uses
// ("binlog.ttl_seconds" when empty).
func Condition(property string) string {
	if property == "" {
		property = "binlog.ttl_seconds"
	}
	return "if this build enforces " + property + " (apache/doris#68226)"
}

// Enforced says whether expiry conclusions hold as computed: true only
// when the evidence (or the user) says the build enforces the TTL.
func Enforced(e snapshot.TTLEnforcement) bool { return e.Verdict == snapshot.TTLEnforced }

// Qualify applies the build's TTL enforcement e to the findings fs whose
// code restsOnExpiry says rests on expiry: kept as they are when enforced,
// dropped when not enforced, and worded under Condition(property) at most
// as a warning when unknown (Conditional). The other findings pass
// unchanged. It reuses fs's backing array.
func Qualify(e snapshot.TTLEnforcement, property string, fs []diag.Finding, restsOnExpiry func(diag.Code) bool) []diag.Finding {
	if e.Verdict == snapshot.TTLEnforced || len(fs) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if !restsOnExpiry(f.Code) {
			out = append(out, f)
			continue
		}
		if e.Verdict == snapshot.TTLNotEnforced {
			continue
		}
		out = append(out, Conditional(f, property))
	}
	return out
}

// Conditional words one expiry finding under the enforcement condition:
// at most a warning, its summary prefixed with Condition(property), its
// detail ending with HowToTell, evidence ttl_enforced=unknown.
func Conditional(f diag.Finding, property string) diag.Finding {
	f.Severity = min(f.Severity, diag.SeverityWarning)
	f.Summary = Condition(property) + ": " + f.Summary
	f.Detail = strings.TrimSpace(f.Detail + " " + HowToTell)
	ev := make(map[string]string, len(f.Evidence)+1)
	for k, v := range f.Evidence {
		ev[k] = v
	}
	ev["ttl_enforced"] = snapshot.TTLUnknown
	f.Evidence = ev
	return f
}

// Assumed is the enforcement of the user's word alone (--assume-ttl-enforced
// and its config key; nil: not given): all a tool that reads no cluster,
// such as `tso headroom`, knows.
func Assumed(assumed *bool) snapshot.TTLEnforcement {
	switch {
	case assumed == nil:
		return snapshot.TTLEnforcement{Verdict: snapshot.TTLUnknown}
	case *assumed:
		return snapshot.TTLEnforcement{Verdict: snapshot.TTLEnforced}
	}
	return snapshot.TTLEnforcement{Verdict: snapshot.TTLNotEnforced}
}
