package streams

import (
	"github.com/dorisdiag/dorisdiag/diag"
)

// Test-only views of the registry (also used by package diag_test).

var streamCodes = []diag.Code{CodeCannotResumeRejected, CodeCannotResumeClipped, CodeIdleOutOfRetention,
	CodeHeadroomLow, CodePendingAgeHigh, CodeNoOffsetRowsSkipped, CodeIVMStreamRecomputeOnly, CodeStale,
	CodeDisabled, CodeBaseTableDropped, CodeStateUnknown, CodeLagInVersions, CodeServerClientMismatch, CodeMonitorStale}

// StreamCodes returns the codes raised by the stream analysis.
func StreamCodes() []diag.Declaration {
	var out []diag.Declaration
	for _, c := range streamCodes {
		out = append(out, c.Declaration())
	}
	return out
}
