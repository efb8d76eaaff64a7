package budgets

import (
	"bufio"
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
	write := func(name string, c scenario.ScaleConfig) (string, int64) {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		if err := snapshot.Write(w, scenario.Scale(c)); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		f.Close()
		return p, fi.Size()
	}
	small, smallSize := write("small.json", scenario.ScaleConfig{MVs: 10, BasePerMV: 3, UserStreams: 100, ConsumptionRows: 500})
	big, size := write("big.json", scenario.ScaleConfig{MVs: 200, BasePerMV: 3, UserStreams: 10_000, ConsumptionRows: 10_600})
	floor, code, stderr := childMaxRSS(t, bin, "check", "--snapshot", small, "--fail-on", "none")
	if code != 0 {
		t.Fatalf("small snapshot: exit %d: %s", code, stderr)
	}
	rss, code, stderr := childMaxRSS(t, bin, "check", "--snapshot", big, "--fail-on", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("file %d bytes: max RSS %d kB, floor %d kB (a %d-byte snapshot): (RSS - floor) / file = %.2f×",
		size, rss>>10, floor>>10, smallSize, float64(rss-floor)/float64(size))
	if rss-floor > 3*size {
		t.Errorf("check of a %d-byte snapshot: max RSS %d kB, %d kB over the floor: more than 3× the file", size, rss>>10, (rss-floor)>>10)
	}

	// Over the limit: refused from its size, before it is read (a sparse
	// file: nothing to read anyway), exit 2, the limit named.
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, snapshot.DefaultMaxBytes+1); err != nil {
		t.Fatal(err)
	}
	rss, code, stderr = childMaxRSS(t, bin, "check", "--snapshot", huge)
	if code != 2 || !strings.Contains(stderr, strconv.Itoa(snapshot.DefaultMaxBytes)+"-byte limit") {
		t.Errorf("over the limit: exit %d, stderr %q; want 2 and the limit named", code, stderr)
	}
	if rss > floor+(16<<20) {
		t.Errorf("over the limit: max RSS %d kB, floor %d kB: something was read", rss>>10, floor>>10)
	}
}
