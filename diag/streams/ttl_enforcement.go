package streams

import (
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The gate itself is diag's (diag/ttl_gate.go): every expiry finding,
// whoever raises it (streams, MVs, `tso headroom`), is judged and worded
// once. These names keep the stream package's callers short.

// HowToTellTTL: diag.HowToTellTTL.
const HowToTellTTL = diag.HowToTellTTL

// TTLBuildsDiffer: diag.TTLBuildsDiffer.
const TTLBuildsDiffer = diag.TTLBuildsDiffer

// ExpiryCondition: diag.ExpiryCondition.
func ExpiryCondition(property string) string { return diag.ExpiryCondition(property) }

// expiryCodes are the stream findings whose conclusion rests on expiry.
func expiryCode(c diag.Code) bool {
	switch c {
	case CodeCannotResumeRejected, CodeCannotResumeClipped, CodeIdleOutOfRetention, CodeHeadroomLow,
		CodeNoOffsetRowsSkipped, CodeIVMStreamRecomputeOnly:
		return true
	}
	return false
}

// QualifyExpiry applies the snapshot's TTL enforcement to the findings fs
// (diag.QualifyExpiry).
func QualifyExpiry(ttl snapshot.TTLEnforcement, property string, fs []diag.Finding, isExpiry func(diag.Code) bool) []diag.Finding {
	return diag.QualifyExpiry(ttl.Verdict, property, fs, isExpiry)
}

// ttlEnforced says whether expiry conclusions hold as computed: yes when
// enforced; no when not enforced or unknown.
func (a *streamAnalyzer) ttlEnforced() bool { return a.ttl.Verdict == snapshot.TTLEnforced }
