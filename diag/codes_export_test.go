package diag

// Test-only views of the registry (also used by package diag_test).

// codesOf lists the codes of one area in declaration order.
func codesOf(a area) []Code {
	var out []Code
	for _, r := range registry {
		if r.area == a {
			out = append(out, r.code)
		}
	}
	return out
}

// StreamCodes returns the codes raised by the streams area.
func StreamCodes() []CodeDoc {
	var out []CodeDoc
	for _, c := range codesOf(areaStreams) {
		out = append(out, c.Doc())
	}
	return out
}
