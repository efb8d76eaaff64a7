// Package budgets holds the whole-process resource budgets of dorisdiag:
// the real binary (internal/testbin, built once per test process) run as a
// grandchild under GNU time, its max RSS held to a budget — the HTTP bodies
// of `metrics lint`, `metrics scrape` and `check` (issue 14), and `check` of
// a large snapshot within 3× the file (issue 24). They only need the built
// binary, so they are a test package of their own: `go test ./...` runs them
// beside cmd's tests instead of after them (issue 19: no package over ~60 s),
// and within this package one at a time (a budget is measured alone;
// docs/performance.md, "Test suite"). Tests only: nothing imports it.
package budgets
