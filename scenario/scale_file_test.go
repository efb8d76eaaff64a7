package scenario

import (
	"os"
	"strconv"
	"testing"
)

// TestWriteScaleFile writes the scale scenario multiplied by
// DORISDIAG_SCALE_FACTOR to the file DORISDIAG_WRITE_SCALE, for the memory
// measurement of a large --snapshot (docs/performance.md "Snapshot decode"):
//
//	DORISDIAG_WRITE_SCALE=/tmp/scale9.json DORISDIAG_SCALE_FACTOR=9 go test ./scenario -run TestWriteScaleFile
//
// DORISDIAG_SCALE_STREAMS=N sets the user streams, DORISDIAG_SCALE_ROWS=N
// the consumption rows (at least one per stream). Issue 24's 400,000
// streams: DORISDIAG_SCALE_STREAMS=394000 beside the 6,000 internal streams
// of the 2,000 MVs, an 824 MB file (over the 512 MiB input limit);
// DORISDIAG_SCALE_STREAMS=234000, 240,000 streams, stays under it.
//
// Issue 24's streams-only shape (about 520 bytes a stream, no consumption
// row): DORISDIAG_SCALE_STREAMS=400000 DORISDIAG_SCALE_MVS=0
// DORISDIAG_SCALE_TABLES=1000 DORISDIAG_SCALE_NO_PARTITIONS=1, a 207 MB file.
//
// Without the variable it does nothing.
func TestWriteScaleFile(t *testing.T) {
	path := os.Getenv("DORISDIAG_WRITE_SCALE")
	if path == "" {
		t.Skip("set DORISDIAG_WRITE_SCALE=FILE (and DORISDIAG_SCALE_FACTOR=N) to write a scaled scale snapshot")
	}
	n, _ := strconv.Atoi(os.Getenv("DORISDIAG_SCALE_FACTOR"))
	n = max(n, 1)
	c := DefaultScale
	c.MVs, c.UserStreams, c.ConsumptionRows = c.MVs*n, c.UserStreams*n, c.ConsumptionRows*n
	if k, _ := strconv.Atoi(os.Getenv("DORISDIAG_SCALE_STREAMS")); k > 0 {
		c.UserStreams = k
	}
	if k, _ := strconv.Atoi(os.Getenv("DORISDIAG_SCALE_ROWS")); k > 0 {
		c.ConsumptionRows = k
	}
	if k, _ := strconv.Atoi(os.Getenv("DORISDIAG_SCALE_MVS")); k > 0 || os.Getenv("DORISDIAG_SCALE_MVS") == "0" {
		c.MVs = k
	}
	if k, _ := strconv.Atoi(os.Getenv("DORISDIAG_SCALE_TABLES")); k > 0 {
		c.Tables = k
	}
	c.NoPartitions = os.Getenv("DORISDIAG_SCALE_NO_PARTITIONS") != ""
	if _, err := WriteScaleFile(path, c); err != nil {
		t.Fatal(err)
	}
}
