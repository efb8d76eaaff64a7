package diag

import (
	"reflect"
	"testing"
)

func TestParseRefreshInfo(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RefreshInfo
	}{
		{"BUILD DEFERRED REFRESH INCREMENTAL FALLBACK ON MANUAL", RefreshInfo{BuildMode: "DEFERRED", Method: "INCREMENTAL", Fallback: true, Trigger: "MANUAL"}},
		{"BUILD IMMEDIATE REFRESH INCREMENTAL ON COMMIT", RefreshInfo{BuildMode: "IMMEDIATE", Method: "INCREMENTAL", Trigger: "COMMIT"}},
		{"BUILD IMMEDIATE REFRESH AUTO ON SCHEDULE EVERY 5 MINUTE", RefreshInfo{BuildMode: "IMMEDIATE", Method: "AUTO", Trigger: "SCHEDULE", Interval: 5, IntervalUnit: "MINUTE"}},
		{"BUILD IMMEDIATE REFRESH COMPLETE ON SCHEDULE EVERY 1 HOUR STARTS 2026-11-30 10:00:00", RefreshInfo{BuildMode: "IMMEDIATE", Method: "COMPLETE", Trigger: "SCHEDULE", Interval: 1, IntervalUnit: "HOUR", Starts: "2026-11-30 10:00:00"}},
		{`\N`, RefreshInfo{}},
		{"", RefreshInfo{}},
		{"BUILD", RefreshInfo{}},
		{"REFRESH INCREMENTAL ON COMMIT WITH SOMETHING", RefreshInfo{Method: "INCREMENTAL", Trigger: "COMMIT", Unrecognized: []string{"WITH", "SOMETHING"}}},
		{"ON SCHEDULE EVERY x MINUTE", RefreshInfo{Trigger: "SCHEDULE", Unrecognized: []string{"EVERY", "x", "MINUTE"}}},
	} {
		got := ParseRefreshInfo(tc.in)
		tc.want.Raw = tc.in
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseRefreshInfo(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
	if s := ParseRefreshInfo("REFRESH AUTO ON SCHEDULE EVERY 5 MINUTE").IntervalSeconds(); s != 300 {
		t.Errorf("IntervalSeconds = %d, want 300", s)
	}
	if !ParseRefreshInfo("REFRESH AUTO ON MANUAL").FallbackAllowed() || ParseRefreshInfo("REFRESH INCREMENTAL ON MANUAL").FallbackAllowed() {
		t.Error("FallbackAllowed: AUTO may fall back, INCREMENTAL alone may not")
	}
}

func TestParseMvProperties(t *testing.T) {
	for _, tc := range []struct {
		in       string
		excluded []string
		props    map[string]string
		unparsed string
	}{
		{"{excluded_trigger_tables=products, grace_period=10}", []string{"demo.products"}, map[string]string{"excluded_trigger_tables": "products", "grace_period": "10"}, ""},
		{"{excluded_trigger_tables=shop.products, demo.dim_region, replication_num=1}", []string{"demo.dim_region", "shop.products"}, nil, ""},
		{`{"excluded_trigger_tables":"products,regions"}`, []string{"demo.products", "demo.regions"}, nil, ""},
		{`\N`, nil, map[string]string{}, ""},
		{"{}", nil, map[string]string{}, ""},
		{"garbage, more", nil, map[string]string{}, "garbage,more"},
		{"{excluded_trigger_tables=}", nil, nil, ""},
		{"{excluded_trigger_tables=`db`.`t`}", []string{"db.t"}, nil, ""},
	} {
		got := ParseMvProperties(tc.in, "demo")
		var ex []string
		for _, r := range got.ExcludedTriggerTables {
			ex = append(ex, r.String())
		}
		if !reflect.DeepEqual(ex, tc.excluded) {
			t.Errorf("%q: excluded %v, want %v", tc.in, ex, tc.excluded)
		}
		if tc.props != nil && !reflect.DeepEqual(got.Properties, tc.props) {
			t.Errorf("%q: properties %v, want %v", tc.in, got.Properties, tc.props)
		}
		if got.Unparsed != tc.unparsed {
			t.Errorf("%q: unparsed %q, want %q", tc.in, got.Unparsed, tc.unparsed)
		}
	}
	p := ParseMvProperties("{excluded_trigger_tables=Products}", "demo")
	if !p.IsExcluded("demo", "products") || p.IsExcluded("other", "products") {
		t.Error("IsExcluded: case-insensitive match within the MV's database only")
	}
}

func TestParseIvmBaseTableStreams(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // "db.table>stream"
		ok   bool
	}{
		{"", nil, true},
		{`\N`, nil, true},
		{`{"demo.orders":"__doris_ivm_stream_mv_1_2"}`, []string{"demo.orders>__doris_ivm_stream_mv_1_2"}, true},
		{`[{"baseTable":"orders","streamName":"s1","streamId":12}]`, []string{"demo.orders>s1"}, true},
		{`[{"base_table_db":"shop","base_table":"orders","stream":"s1"}]`, []string{"shop.orders>s1"}, true},
		{"{demo.orders=s1, demo.customers=s2}", []string{"demo.customers>s2", "demo.orders>s1"}, true},
		{"orders:s1;customers:s2", []string{"demo.customers>s2", "demo.orders>s1"}, true},
		{"orders->s1", []string{"demo.orders>s1"}, true},
		{`[1,2]`, nil, false},
		{"a..b:c", nil, false},
	} {
		got, ok := ParseIvmBaseTableStreams(tc.in, "demo")
		var g []string
		for _, e := range got {
			g = append(g, e.BaseTable.String()+">"+e.Stream)
		}
		if ok != tc.ok || !reflect.DeepEqual(g, tc.want) {
			t.Errorf("%q: got %v ok=%v, want %v ok=%v", tc.in, g, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseRefreshInfo(f *testing.F) {
	for _, s := range []string{"BUILD DEFERRED REFRESH INCREMENTAL FALLBACK ON MANUAL", "REFRESH AUTO ON SCHEDULE EVERY 5 MINUTE STARTS 2026-11-30 10:00:00", `\N`, "EVERY", "ON"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := ParseRefreshInfo(s)
		if r.Raw != s {
			t.Fatal("Raw not kept")
		}
		_ = r.IntervalSeconds()
	})
}

func FuzzParseMvProperties(f *testing.F) {
	for _, s := range []string{"{excluded_trigger_tables=a, b, grace_period=1}", `{"excluded_trigger_tables":"x"}`, "{}", `\N`, "=,=", "{a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := ParseMvProperties(s, "demo")
		for _, r := range p.ExcludedTriggerTables {
			if r.Name == "" {
				t.Fatalf("empty table name from %q", s)
			}
		}
	})
}

func FuzzParseIvmBaseTableStreams(f *testing.F) {
	for _, s := range []string{`{"demo.orders":"s"}`, `[{"baseTable":"t","streamId":"1"}]`, "a:b;c:d", "{a=b}", "[[]]", `{"a":{"streamId":1}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := ParseIvmBaseTableStreams(s, "demo")
		if !ok && len(out) > 0 {
			t.Fatalf("not ok but entries from %q", s)
		}
		for _, e := range out {
			if e.BaseTable.Name == "" {
				t.Fatalf("empty base table from %q", s)
			}
		}
	})
}
