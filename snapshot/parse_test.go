package snapshot

import (
	"reflect"
	"strings"
	"testing"
)

func refresh(s string) RefreshInfo {
	r, _ := ParseRefreshInfo(s)
	return r
}

func TestParseRefreshInfo(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    RefreshInfo
		wantErr bool
	}{
		// MTMVRefreshInfo.toString() as mv_infos() writes it.
		{"BUILD DEFERRED REFRESH INCREMENTAL FALLBACK ON MANUAL", RefreshInfo{BuildMode: "DEFERRED", Method: "INCREMENTAL", Fallback: true, Trigger: "MANUAL"}, false},
		{"BUILD IMMEDIATE REFRESH INCREMENTAL ON COMMIT", RefreshInfo{BuildMode: "IMMEDIATE", Method: "INCREMENTAL", Trigger: "COMMIT"}, false},
		{"BUILD IMMEDIATE REFRESH AUTO ON SCHEDULE EVERY 5 MINUTE", RefreshInfo{BuildMode: "IMMEDIATE", Method: "AUTO", Trigger: "SCHEDULE", Interval: 5, IntervalUnit: "MINUTE"}, false},
		{"BUILD IMMEDIATE REFRESH COMPLETE ON SCHEDULE EVERY 1 HOUR STARTS 2026-11-30 10:00:00", RefreshInfo{BuildMode: "IMMEDIATE", Method: "COMPLETE", Trigger: "SCHEDULE", Interval: 1, IntervalUnit: "HOUR", Starts: "2026-11-30 10:00:00"}, false},
		{`\N`, RefreshInfo{}, false},
		{"", RefreshInfo{}, false},
		{"BUILD", RefreshInfo{}, false},
		// Unknown words are kept, and reported.
		{"REFRESH INCREMENTAL ON COMMIT WITH SOMETHING", RefreshInfo{Method: "INCREMENTAL", Trigger: "COMMIT", Unrecognized: []string{"WITH", "SOMETHING"}}, true},
		{"ON SCHEDULE EVERY x MINUTE", RefreshInfo{Trigger: "SCHEDULE", Unrecognized: []string{"EVERY", "x", "MINUTE"}}, true},
	} {
		got, err := ParseRefreshInfo(tc.in)
		tc.want.Raw = tc.in
		if !reflect.DeepEqual(got, tc.want) || (err != nil) != tc.wantErr {
			t.Errorf("ParseRefreshInfo(%q)\n got %+v err %v\nwant %+v err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	if s := refresh("REFRESH AUTO ON SCHEDULE EVERY 5 MINUTE").IntervalSeconds(); s != 300 {
		t.Errorf("IntervalSeconds = %d, want 300", s)
	}
	if !refresh("REFRESH AUTO ON MANUAL").FallbackAllowed() || refresh("REFRESH INCREMENTAL ON MANUAL").FallbackAllowed() {
		t.Error("FallbackAllowed: AUTO may fall back, INCREMENTAL alone may not")
	}
}

func TestParseMvProperties(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		shape    string
		excluded []string
		props    map[string]string // nil: not checked
		wantErr  bool
	}{
		// Real Doris first: Java Map.toString() (MetadataGenerator.mtmvMetadataResult
		// writes mv.getMvProperties().toString()).
		{"empty map", "{}", "map", nil, map[string]string{}, false},
		{"docs example", "{partition_sync_limit=100, partition_sync_time_unit=YEAR}", "map", nil,
			map[string]string{"partition_sync_limit": "100", "partition_sync_time_unit": "YEAR"}, false},
		{"excluded, value with commas", "{excluded_trigger_tables=shop.t1,shop.t2, partition_sync_limit=100}", "map",
			[]string{"shop.t1", "shop.t2"}, map[string]string{"excluded_trigger_tables": "shop.t1,shop.t2", "partition_sync_limit": "100"}, false},
		{"excluded last", "{partition_sync_limit=100, excluded_trigger_tables=lineitem,partsupp}", "map",
			[]string{"demo.lineitem", "demo.partsupp"}, nil, false},
		{"excluded without db", "{excluded_trigger_tables=products, grace_period=10}", "map", []string{"demo.products"},
			map[string]string{"excluded_trigger_tables": "products", "grace_period": "10"}, false},
		{"user wrote a, b", "{excluded_trigger_tables=shop.products, demo.dim_region, replication_num=1}", "map",
			[]string{"demo.dim_region", "shop.products"}, nil, false},
		{"value with = and :", "{replication_allocation=tag.location.default: 3, excluded_trigger_tables=t}", "map",
			[]string{"demo.t"}, map[string]string{"replication_allocation": "tag.location.default: 3", "excluded_trigger_tables": "t"}, false},
		{"empty value", "{excluded_trigger_tables=}", "map", nil, nil, false},
		{"backquoted", "{excluded_trigger_tables=`db`.`t`}", "map", []string{"db.t"}, nil, false},
		{"null", `\N`, "", nil, nil, false},
		{"empty", "", "", nil, nil, false},
		// The JSON fallback (older dorisdiag fixtures, hand-written snapshots).
		{"json", `{"excluded_trigger_tables":"products,regions","grace_period":10}`, "json", []string{"demo.products", "demo.regions"},
			map[string]string{"excluded_trigger_tables": "products,regions", "grace_period": "10"}, false},
		// Garbage is malformed, never silently empty.
		{"garbage", "garbage, more", "", nil, nil, true},
		{"unclosed", "{a=b", "", nil, nil, true},
		{"no key", "{just text, k=v}", "map", nil, map[string]string{"k": "v"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMvProperties(tc.in, "demo")
			if (err != nil) != tc.wantErr {
				t.Fatalf("%q: err %v, want error %v", tc.in, err, tc.wantErr)
			}
			if got.Shape != tc.shape {
				t.Errorf("%q: shape %q, want %q", tc.in, got.Shape, tc.shape)
			}
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
		})
	}
	p, _ := ParseMvProperties("{excluded_trigger_tables=Products}", "demo")
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

func TestParseTaskContext(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    TaskContext
		wantErr bool
	}{
		{`{"triggerMode":"COMMIT","isComplete":false,"partitions":[]}`, TaskContext{TriggerMode: "COMMIT", Partitions: []string{}}, false},
		{`{"triggerMode":"manual","isComplete":true}`, TaskContext{TriggerMode: "MANUAL", IsComplete: true}, false},
		{`{"partitions":["p1"],"refreshMode":"PARTITIONS"}`, TaskContext{Partitions: []string{"p1"}, RefreshMode: "PARTITIONS"}, false},
		{`\N`, TaskContext{}, false},
		{"", TaskContext{}, false},
		{"MTMVTaskContext{triggerMode=COMMIT}", TaskContext{}, true},
		{`{"triggerMode":1}`, TaskContext{}, true},
	} {
		got, err := ParseTaskContext(tc.in)
		if !reflect.DeepEqual(got, tc.want) || (err != nil) != tc.wantErr {
			t.Errorf("ParseTaskContext(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseCountOrList(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		in      string
		want    CountOrList
		none    bool
		wantErr bool
	}{
		// A BIGINT column (the monitoring design's build): a count.
		{"0", CountOrList{Shape: ShapeCount, Count: i(0)}, true, false},
		{"2", CountOrList{Shape: ShapeCount, Count: i(2)}, false, false},
		{" 3.0 ", CountOrList{Shape: ShapeCount, Count: i(3)}, false, false},
		// A text column: names.
		{"demo.products", CountOrList{Shape: ShapeList, Names: []string{"demo.products"}}, false, false},
		{"demo.a,demo.b", CountOrList{Shape: ShapeList, Names: []string{"demo.a", "demo.b"}}, false, false},
		{"[p1, p2]", CountOrList{Shape: ShapeList, Names: []string{"p1", "p2"}}, false, false},
		{`["demo.a","demo.b"]`, CountOrList{Shape: ShapeList, Names: []string{"demo.a", "demo.b"}}, false, false},
		{"[]", CountOrList{Shape: ShapeList}, true, false},
		{`\N`, CountOrList{}, true, false},
		{"", CountOrList{}, true, false},
		{"NULL", CountOrList{}, true, false},
		// Malformed counts.
		{"-1", CountOrList{}, true, true},
		{"99999999999999999999", CountOrList{}, true, true},
	} {
		got, err := ParseCountOrList(tc.in)
		if !reflect.DeepEqual(got, tc.want) || (err != nil) != tc.wantErr || got.None() != tc.none {
			t.Errorf("ParseCountOrList(%q) = %+v (none %v), %v; want %+v (none %v), error %v", tc.in, got, got.None(), err, tc.want, tc.none, tc.wantErr)
		}
	}
}

func TestParseChangelogConfig(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	tr, fa := true, false
	for _, tc := range []struct {
		name  string
		props map[string]string
		want  ChangelogConfig
		bad   []string // columns reported
	}{
		{"binlog", map[string]string{"binlog.enable": "true", "binlog.ttl_seconds": "86400"}, ChangelogConfig{Naming: "binlog", Enabled: &tr, TTLSeconds: i(86400)}, nil},
		{"changelog off", map[string]string{"changelog.enable": "false"}, ChangelogConfig{Naming: "changelog", Enabled: &fa}, nil},
		{"ttl absent", map[string]string{"binlog.enable": "true"}, ChangelogConfig{Naming: "binlog", Enabled: &tr, TTLMissing: true}, nil},
		// "7d" is not seconds: unknown, never the default.
		{"ttl 7d", map[string]string{"binlog.enable": "true", "binlog.ttl_seconds": "7d"}, ChangelogConfig{Naming: "binlog", Enabled: &tr}, []string{"binlog.ttl_seconds"}},
		{"enable yes-ish", map[string]string{"binlog.enable": "on", "binlog.ttl_seconds": "60"}, ChangelogConfig{Naming: "binlog", TTLSeconds: i(60)}, []string{"binlog.enable"}},
		{"none", map[string]string{"binlog.format": "ROW"}, ChangelogConfig{}, nil},
	} {
		got, errs := ParseChangelogConfig(tc.props)
		var bad []string
		for _, e := range errs {
			bad = append(bad, e.Column)
		}
		if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(bad, tc.bad) {
			t.Errorf("%s: got %+v %v, want %+v %v", tc.name, got, bad, tc.want, tc.bad)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]string{"1": "true", "0": "false", "true": "true", "FALSE": "false", `\N`: "nil", "": "nil", "2": "error", "on": "error"} {
		v, err := ParseBool(in)
		got := "nil"
		switch {
		case err != nil:
			got = "error"
		case v != nil && *v:
			got = "true"
		case v != nil:
			got = "false"
		}
		if got != want {
			t.Errorf("ParseBool(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzParseRefreshInfo(f *testing.F) {
	for _, s := range []string{"BUILD DEFERRED REFRESH INCREMENTAL FALLBACK ON MANUAL", "REFRESH AUTO ON SCHEDULE EVERY 5 MINUTE STARTS 2026-11-30 10:00:00", `\N`, "EVERY", "ON"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, _ := ParseRefreshInfo(s)
		if r.Raw != s {
			t.Fatal("Raw not kept")
		}
		_ = r.IntervalSeconds()
	})
}

func FuzzParseMvProperties(f *testing.F) {
	for _, s := range []string{"{excluded_trigger_tables=shop.t1,shop.t2, partition_sync_limit=100}", "{partition_sync_limit=100, partition_sync_time_unit=YEAR}",
		"{excluded_trigger_tables=a, b, grace_period=1}", `{"excluded_trigger_tables":"x"}`, "{}", `\N`, "=,=", "{a=b", "{, =}", "{=x, k=}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseMvProperties(s, "demo")
		for _, r := range p.ExcludedTriggerTables {
			if r.Name == "" {
				t.Fatalf("empty table name from %q", s)
			}
		}
		if err == nil && p.Unparsed != "" {
			t.Fatalf("%q: unparsed text %q without an error", s, p.Unparsed)
		}
		if p.Shape == "map" {
			// Every entry's key and value come from the text.
			for k := range p.Properties {
				if !strings.Contains(s, k) {
					t.Fatalf("%q: key %q not in the text", s, k)
				}
			}
		}
	})
}

func FuzzParseCountOrList(f *testing.F) {
	for _, s := range []string{"0", "3", "3.0", "-1", "a,b", `["a"]`, "[", "[]", `\N`, "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseCountOrList(s)
		if err != nil && v.Shape != ShapeNone {
			t.Fatalf("%q: error %v with shape %q", s, err, v.Shape)
		}
		if v.N() < 0 {
			t.Fatalf("%q: negative N", s)
		}
		if v.Shape == ShapeCount && (v.Count == nil || len(v.Names) > 0) {
			t.Fatalf("%q: count shape without a count", s)
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

func FuzzParseTaskContext(f *testing.F) {
	for _, s := range []string{`{"triggerMode":"COMMIT","isComplete":false,"partitions":[]}`, `\N`, "{", `{"partitions":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseTaskContext(s)
		if err != nil && !reflect.DeepEqual(c, TaskContext{}) {
			t.Fatalf("%q: error %v with a non-zero context", s, err)
		}
	})
}
