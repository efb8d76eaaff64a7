package doris

import (
	"strings"
	"testing"
)

func TestParseIvmStreamName(t *testing.T) {
	for _, tc := range []struct {
		in       string
		mv       string
		mid, bid int64
		ok       bool
	}{
		{"__doris_ivm_stream_mv_orders_daily_9ix_ll", "mv_orders_daily", 12345, 777, true},
		{"__doris_ivm_stream_12345_777", "", 12345, 777, true},
		{"__doris_ivm_stream_12345_abc", "", 12345, 0, true},
		{"s_orders", "", 0, 0, false},
		{"__doris_ivm_stream_", "", 0, 0, true},
	} {
		mv, mid, bid, ok := ParseIvmStreamName(tc.in)
		if mv != tc.mv || mid != tc.mid || bid != tc.bid || ok != tc.ok {
			t.Errorf("%s: got %q %d %d %v", tc.in, mv, mid, bid, ok)
		}
	}
}

func FuzzParseIvmStreamName(f *testing.F) {
	for _, s := range []string{"__doris_ivm_stream_mv_orders_daily_9ix_ll", "__doris_ivm_stream_12345_777", "__doris_ivm_stream_", "__doris_ivm_stream____", "s", "__doris_ivm_stream_a_zzzzzzzzzzzzzzzzzzz_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mv, mid, bid, ok := ParseIvmStreamName(s)
		if !ok && (mv != "" || mid != 0 || bid != 0) {
			t.Fatalf("not ok but values: %q %d %d", mv, mid, bid)
		}
		if ok != strings.HasPrefix(s, IvmStreamPrefix) {
			t.Fatalf("ok %v for %q", ok, s)
		}
	})
}

func TestIvmStreamNameRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		mv          string
		mvID, table int64
	}{{"mv_orders_daily", 12345, 777}, {"a", 1, 1}, {"x_1_2", 36, 35}} {
		name := IvmStreamName(tc.mv, tc.mvID, tc.table)
		mv, mid, bid, ok := ParseIvmStreamName(name)
		if !ok || !IsIvmStreamName(name) || mv != tc.mv || mid != tc.mvID || bid != tc.table {
			t.Errorf("%s: got %q %d %d %v", name, mv, mid, bid, ok)
		}
	}
}
