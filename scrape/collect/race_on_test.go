//go:build race

package collect_test

// raceEnabled shrinks the largest end-to-end inputs under -race, which
// slows the emulator ~10×: .ci/run keeps -race on the collector well under
// its time budget, and the full-size scale run is the benchmark's job.
const raceEnabled = true
