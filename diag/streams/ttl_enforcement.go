package streams

import (
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
)

// Whether a conclusion that rests on expiry holds depends on the build:
// every stream finding that does passes the gate of diag/ttl.

// expiryCode: the stream findings whose conclusion rests on expiry.
func expiryCode(c diag.Code) bool {
	switch c {
	case CodeCannotResumeRejected, CodeCannotResumeClipped, CodeIdleOutOfRetention, CodeHeadroomLow,
		CodeNoOffsetRowsSkipped, CodeIVMStreamRecomputeOnly:
		return true
	}
	return false
}

// ttlEnforced says whether expiry conclusions hold as computed: yes when
// enforced; no when not enforced or unknown.
func (a *streamAnalyzer) ttlEnforced() bool { return ttl.Enforced(a.ttl) }
