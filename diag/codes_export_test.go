package diag

// Test-only views of the registry (also used by package diag_test).

var streamCodes = []Code{CodeStreamCannotResumeRejected, CodeStreamCannotResumeClipped, CodeStreamIdleOutOfRetention,
	CodeStreamHeadroomLow, CodeStreamPendingAgeHigh, CodeStreamNoOffsetRowsSkipped, CodeIVMStreamRecomputeOnly, CodeStreamStale,
	CodeStreamDisabled, CodeStreamBaseTableDropped, CodeStreamStateUnknown, CodeStreamLagInVersions, CodeServerClientMismatch, CodeMonitorStale}

// StreamCodes returns the codes raised by the stream analysis.
func StreamCodes() []Declaration {
	var out []Declaration
	for _, c := range streamCodes {
		out = append(out, c.Declaration())
	}
	return out
}
