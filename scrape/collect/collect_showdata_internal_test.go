package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"strings"

	"github.com/dorisdiag/dorisdiag/doris"

	"testing"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestParseSize: one parser for SHOW DATA's raw-byte forms and
// DebugUtil.printByteWithUnit's human form (fe-core common/util/DebugUtil.java
// @0979e5da); anything else is an error, never a silent 0.
func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  int64
		human bool
		err   bool
	}{
		{"1024", 1024, false, false},
		{"0", 0, false, false},
		{"0.000 ", 0, true, false},
		{"1024.000 B", 1024, true, false},
		{"1.500 MB", 1572864, true, false},
		{"12.3 KB", 12595, true, false},
		{"117.738 MB", 123457241, true, false},
		{"3.000 TB", 3 << 40, true, false},
		{"1,500 KB", 1536, true, false}, // a JVM default locale with a decimal comma
		{"garbage", 0, false, true},
		{"-1", 0, false, true},
		{"1.5 XB", 0, false, true},
		{"1.500MBs", 0, false, true},
		{"99999999999 TB", 0, false, true},
	} {
		v, human, err := parseSize(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("%q: err %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && (v != tc.want || human != tc.human) {
			t.Errorf("%q: %d human=%v, want %d human=%v", tc.in, v, human, tc.want, tc.human)
		}
	}
}

// TestSizeCellMalformed: a size that does not parse is recorded in
// snap.Malformed (source, row, column, value) and left unknown.
func TestSizeCellMalformed(t *testing.T) {
	snap := &snapshot.Snapshot{}
	v := "lots"
	tb := &scrape.Table{Cols: []string{"BinlogSize"}, Index: map[string]int{"BINLOGSIZE": 0}}
	rr := &rowReader{t: tb, r: []*string{&v}, source: snapshot.SourceShowData, row: "demo.orders", snap: snap}
	if got, _ := rr.size(doris.ShowDataProperties.BinlogSize); got != nil {
		t.Errorf("size of %q = %d, want unknown", v, *got)
	}
	if len(snap.Malformed) != 1 || snap.Malformed[0].Value != "lots" || snap.Malformed[0].Row != "demo.orders" || snap.Malformed[0].Column != "BinlogSize" {
		t.Errorf("malformed: %+v", snap.Malformed)
	}
	null := `\N`
	rr.r = []*string{&null}
	if got, _ := rr.size(doris.ShowDataProperties.BinlogSize); got != nil || len(snap.Malformed) != 1 {
		t.Errorf("NULL text: %v, %d malformed", got, len(snap.Malformed))
	}
}

// TestShowDataLimit: when the per-database SHOW DATA does not size the
// tables, per-table statements stop at MaxShowData and the rest is
// recorded as not read.
func TestShowDataLimit(t *testing.T) {
	col := &collector{snap: &snapshot.Snapshot{}}
	keys := []tableKey{{"d", "c"}, {"d", "a"}, {"d", "b"}}
	kept := col.boundTables(keys, 1, snapshot.SourceShowData, "changelog size of %d base tables not read (limit %d SHOW DATA FROM db.tbl), e.g. %s")
	if len(kept) != 1 || kept[0] != (tableKey{"d", "a"}) {
		t.Errorf("kept %v", kept)
	}
	if len(col.snap.CouldNotRead) != 1 || !strings.Contains(col.snap.CouldNotRead[0].Error, "2 base tables not read (limit 1 SHOW DATA FROM db.tbl), e.g. d.b, d.c") {
		t.Errorf("gaps: %+v", col.snap.CouldNotRead)
	}
}
