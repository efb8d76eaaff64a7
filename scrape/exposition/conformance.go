package exposition

import "time"

// ConformanceRules are the design conformance checks of Conform.
var ConformanceRules = []Rule{}

type ConformOptions struct{ Now time.Time }

func Conform(res *Result, opts ConformOptions) []Problem { return nil }
