package exposition

// ConformanceRules are the design conformance checks of Conform.
var ConformanceRules = []Rule{}
