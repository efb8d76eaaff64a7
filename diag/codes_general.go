package diag

// generalCodes are the findings about the snapshot and the source itself.
var generalCodes = []Code{
	{
		Code:     "SOURCE_UNREACHABLE",
		Severity: SeverityCritical,
		Title:    "A source could not be read; the report is partial",
		Spec:     "design.md \"Partial failures\"",
		Meaning:  "One system table, table-valued function, FE or BE could not be read while the snapshot was taken. Everything else was read and is reported.",
		Matters:  "What was not read cannot be diagnosed: a problem there stays invisible. A CI gate must not pass on a partial view without saying so.",
		Confirm:  "dorisdiag snapshot --summary  # lists could_not_read with the error of each source",
		Fix:      "Fix the access (privileges, network, timeout) named in the error, or raise --timeout. Re-run.",
		Related:  []string{"SOURCE_MALFORMED_VALUE"},
	},
	{
		Code:     "SOURCE_MALFORMED_VALUE",
		Severity: SeverityWarning,
		Title:    "A value in a system table could not be interpreted",
		Spec:     "design.md \"Bad input never panics\"",
		Meaning:  "A column held text the tool could not parse (for example a TSO that is not a number). The value was left out of the computation, counted and reported here.",
		Matters:  "A diagnosis built without that value may be incomplete; the table, column and value say where to look.",
		Confirm:  "dorisdiag snapshot --summary  # lists malformed values with table, column and value",
		Fix:      "Check the Doris version and the column; report the value to the dorisdiag maintainers if it is legitimate Doris output.",
		Related:  []string{"SOURCE_UNREACHABLE"},
	},
}
