// Package usertext holds the tests that read every output of every command:
// each command on each bundled scenario in each format, every explain, every
// fixture payload linted. The outputs are generated once per test process
// (outputs_test.go), in one streaming pass that the citation scanner (issue
// 13: text a user reads cites no notes of ours) and the checks of prose
// fitted to an 80-column terminal (no "…" inside prose, the overview's
// counts kept, a summary in at most two lines) all read. They only need
// cmd.Main, so they are a test package of their own: `go test ./...` runs
// them beside cmd's tests (issue 19: no package over ~60 s). Tests only:
// nothing imports it.
package usertext
