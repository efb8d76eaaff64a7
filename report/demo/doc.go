// Package demo renders `dorisdiag demo` (kind "demo"): the check overview,
// then the worst MV's explain (report/mv) and the worst stream, as one page.
package demo
