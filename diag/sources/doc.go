// Package sources is what a snapshot could not read or interpret, and what
// that costs (design.md "Partial failures"): SOURCE_UNREACHABLE at the
// severity of each source's cost, SOURCE_MALFORMED_VALUE, the fallbacks that
// superseded a failed source, and the summary of `snapshot --summary`. The
// analyses ask it whether a source they need was read.
package sources
