package budgets

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Issue 24, "bounded snapshots": a valid snapshot within the input limit is
// checked in at most 3× its size of resident memory (the largest the scale
// generator writes within 512 MiB, 495 MB, took 2.64×: docs/performance.md),
// and a larger one is refused before anything is read, with the limit named.
// The test runs a smaller file of the same shape (the scale generator's
// streams and consumption rows) in a whole process: its max RSS less the
// process's floor (the same binary checking a small snapshot) is within 3×
// the file.
func TestSnapshotCheckRSSWithinThreeTimesTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB snapshot and runs check on it")
	}
	bin := dorisdiagBinary(t)
	dir := t.TempDir()
	write := func(name string, c scenario.ScaleConfig) (string, int64) { return writeScale(t, dir, name, c) }
	small, smallSize := write("small.json", scenario.ScaleConfig{MVs: 10, BasePerMV: 3, UserStreams: 100, ConsumptionRows: 500})
	big, size := write("big.json", scenario.ScaleConfig{MVs: 200, BasePerMV: 3, UserStreams: 10_000, ConsumptionRows: 10_600})
	floor := checkWithinThreeTimes(t, bin, "the scale shape", small, smallSize, big, size)

	// Over the limit: refused from its size, before it is read (a sparse
	// file: nothing to read anyway), exit 2, the limit named.
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, snapshot.DefaultMaxBytes+1); err != nil {
		t.Fatal(err)
	}
	rss, code, stderr := childMaxRSS(t, bin, "check", "--snapshot", huge)
	if code != 2 || !strings.Contains(stderr, strconv.Itoa(snapshot.DefaultMaxBytes)+"-byte limit") {
		t.Errorf("over the limit: exit %d, stderr %q; want 2 and the limit named", code, stderr)
	}
	if rss > floor+(16<<20) {
		t.Errorf("over the limit: max RSS %d kB, floor %d kB: something was read", rss>>10, floor>>10)
	}
}

// writeScale writes the scale generator's snapshot for c to dir/name and
// returns its path and size.
func writeScale(t *testing.T, dir, name string, c scenario.ScaleConfig) (string, int64) {
	t.Helper()
	p := filepath.Join(dir, name)
	size, err := scenario.WriteScaleFile(p, c)
	if err != nil {
		t.Fatal(err)
	}
	return p, size
}

// Issue 24 item 4, the streams-only shape (many streams, no consumption
// row, about 520 bytes a stream): memory followed the number of streams,
// not the bytes — 400,000 streams (207 MB) took 2.93 GB, 14×. check now
// tallies the streams as it diagnoses them, holds each finding once with
// the texts streams share, and sets a soft memory limit from the input's
// size (docs/performance.md "Bounded snapshots"). A whole process checks
// 60,000 such streams; its max RSS less the floor is within 3× the file.
func TestSnapshotCheckStreamsOnlyRSSWithinThreeTimesTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 31 MB snapshot and runs check on it")
	}
	bin := dorisdiagBinary(t)
	dir := t.TempDir()
	small, smallSize := writeScale(t, dir, "small.json", scenario.ScaleConfig{UserStreams: 100, Tables: 10, NoPartitions: true})
	big, size := writeScale(t, dir, "big.json", scenario.ScaleConfig{UserStreams: 60_000, Tables: 1000, NoPartitions: true})
	checkWithinThreeTimes(t, bin, "60,000 streams only", small, smallSize, big, size)
}

// checkWithinThreeTimes runs `check --snapshot` on small (the process's
// floor) and on big in whole processes and fails when big's max RSS less the
// floor exceeds 3× its size; it returns the floor.
func checkWithinThreeTimes(t *testing.T, bin, shape, small string, smallSize int64, big string, size int64) int64 {
	t.Helper()
	floor, code, stderr := childMaxRSS(t, bin, "check", "--snapshot", small, "--fail-on", "none")
	if code != 0 {
		t.Fatalf("small snapshot: exit %d: %s", code, stderr)
	}
	rss, code, stderr := childMaxRSS(t, bin, "check", "--snapshot", big, "--fail-on", "none")
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", shape, code, stderr)
	}
	t.Logf("%s, file %d bytes: max RSS %d kB, floor %d kB (a %d-byte snapshot): (RSS - floor) / file = %.2f×, RSS / file = %.2f×",
		shape, size, rss>>10, floor>>10, smallSize, float64(rss-floor)/float64(size), float64(rss)/float64(size))
	if rss-floor > 3*size {
		t.Errorf("%s: check of a %d-byte snapshot: max RSS %d kB, %d kB over the floor: more than 3× the file", shape, size, rss>>10, (rss-floor)>>10)
	}
	return floor
}
