package diag

// The codes of the findings about the snapshot and the source itself (areaGeneral).
var (
	// CodeSourceUnreachable: A source could not be read; the report is partial
	CodeSourceUnreachable = Declare(Declaration{
		Code:     "SOURCE_UNREACHABLE",
		Severity: SeverityCritical,
		Impact:   ImpactVisibility,
		Place:    1,
		Series:   "dorisdiag_sources_unreadable",
		Alert:    "DorisdiagSourceUnreadable",
		Title:    "A source could not be read; the report is partial",
		Spec:     "docs/architecture.md \"Partial failures\"",
		Meaning:  "One system table, table-valued function, FE or BE could not be read while the snapshot was taken. Everything else was read and is reported. The severity follows what the source costs (see \"What an unreadable source costs\" below): critical for a source the diagnosis needs (table_streams, table_stream_consumption, the cluster clock; the MV sources when MVs exist), a warning naming what is not diagnosed for an optional one (SHOW DATA, partitions, SHOW FRONTENDS/BACKENDS, one node's /metrics). A fallback that another source superseded (SHOW TSO STATUS failed, GET /api/tso gave the clock) is no finding, only a line in the sources.",
		Matters:  "What was not read cannot be diagnosed: a problem there stays invisible. A CI gate must not pass on a partial view of what it needs without saying so, nor fail a healthy cluster because a least-privilege user may not run an optional statement.",
		Confirm:  "dorisdiag snapshot --summary  # lists could_not_read with the error of each source",
		Fix:      "Fix the access (privileges, network, timeout) named in the error, or raise --timeout. Re-run.",
		Related:  []string{"SOURCE_MALFORMED_VALUE"},
	})
	// CodeSourceMalformedValue: A value in a system table could not be interpreted
	CodeSourceMalformedValue = Declare(Declaration{
		Code:     "SOURCE_MALFORMED_VALUE",
		Severity: SeverityWarning,
		Impact:   ImpactVisibility,
		Place:    2,
		Title:    "A value in a system table could not be interpreted",
		Spec:     "docs/architecture.md \"Bad input never panics\"",
		Meaning:  "A column held text the tool could not parse (for example a TSO that is not a number). The value was left out of the computation, counted and reported here.",
		Matters:  "A diagnosis built without that value may be incomplete; the table, column and value say where to look.",
		Confirm:  "dorisdiag snapshot --summary  # lists malformed values with table, column and value",
		Fix:      "Check the Doris version and the column; report the value to the dorisdiag maintainers if it is legitimate Doris output.",
		Related:  []string{"SOURCE_UNREACHABLE"},
	})
	// CodeTSOOffsetExpired: The offset given to `tso headroom` is past the retention
	CodeTSOOffsetExpired = Declare(Declaration{
		Code:      "TSO_OFFSET_EXPIRED",
		Severity:  SeverityCritical,
		Impact:    ImpactLoss,
		Place:     4,
		Magnitude: Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		Title:     "The offset given to `tso headroom` is past the retention",
		Spec:      "apache/doris#69907 §3 Definitions (can_resume); docs/tso.md",
		Meaning:   "nextTso(C) is below the retention floor nextTso(calculateCutoff(now, ttl)): the next change this consumer needs has expired.",
		Matters:   "A MIN_DELTA read from this offset is rejected; a DETAIL or APPEND_ONLY read succeeds and silently skips the expired changes (apache/doris#69907 §1 S4).",
		Confirm:   "SELECT UNIT, CONSUMPTION_STATUS, `LAG` FROM information_schema.table_stream_consumption WHERE STREAM_NAME = '<stream>';\nSELECT CURRENT_TSO FROM information_schema.tso_status;",
		Fix:       "Find the consumer (dorisdiag streams), then reset the stream or rebuild the target from the base table; raise changelog.ttl_seconds so it does not recur.",
		Related:   []string{"STREAM_CANNOT_RESUME_REJECTED", "STREAM_CANNOT_RESUME_CLIPPED", "TSO_HEADROOM_LOW"},
	})
	// CodeTSOHeadroomLow: The offset given to `tso headroom` is close to leaving the retention
	CodeTSOHeadroomLow = Declare(Declaration{
		Code:      "TSO_HEADROOM_LOW",
		Severity:  SeverityWarning,
		Impact:    ImpactLoss,
		Place:     7,
		Magnitude: Measure{Name: "headroom_seconds", SmallerIsWorse: true},
		Title:     "The offset given to `tso headroom` is close to leaving the retention",
		Spec:      "apache/doris#69907 §3 Definitions (headroom_seconds)",
		Meaning:   "The headroom — physical(next_required) − physical(retention_floor) — is under --min-headroom (default 30m).",
		Matters:   "When it reaches 0, the consumer can no longer resume: MIN_DELTA reads are rejected and DETAIL/APPEND_ONLY reads skip changes.",
		Confirm:   "dorisdiag tso headroom --offset C --ttl SECONDS --now CURRENT_TSO",
		Fix:       "Consume the stream before the headroom runs out, or raise changelog.ttl_seconds on the base table.",
		Related:   []string{"TSO_OFFSET_EXPIRED", "STREAM_HEADROOM_LOW"},
	})
)
