package check_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/diag/streams/whatif"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/report/demo"
	mvreport "github.com/dorisdiag/dorisdiag/report/mv"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// FuzzCheckSnapshot feeds a fuzzed snapshot JSON through the whole pipeline a
// --snapshot FILE takes: snapshot.Decode, check.Run and every renderer of
// check (table, JSON, markdown, prom), plus streams/mv rendering and the
// headroom what-if. Bad input must be refused by Decode or analysed without
// a panic (design.md "Bad input never panics: every parser is fuzzed").
//
// Its seeds are small: the scenario snapshots (tens of KB) made the default
// 60 s minimisation eat the budget (21 execs in 80 s); they run through the
// same body in TestCheckSnapshotScenarios.
func FuzzCheckSnapshot(f *testing.F) {
	const head = `{"schema_version":1,"cluster":{"current_tso":"470819222323200000"}`
	for _, s := range []string{
		``, `{}`, `null`, `[1]`, `{"schema_version":99}`,
		head + `}`,
		head + `,"tables":null,"streams":null,"consumption":null,"mvs":null,"jobs":null,"tasks":null}`,
		head + `,"tables":[{"db":"d","name":"t","ttl_seconds":9223372036854775807}],"streams":[{"db":"d","name":"s","id":1,"base_table_db":"d","base_table_name":"t","enabled":true}],"consumption":[{"db":"d","stream_name":"s","stream_id":1,"unit":"p","consumption_status":"9223372036854775807","offset":"9223372036854775807","lag":"-9223372036854775808","lag_value":-9223372036854775808}]}`,
		head + `,"streams":[{"db":"d","name":"__doris_ivm_stream_","id":1},{"db":"d","name":"__doris_ivm_stream_x_!!_zz","id":1}],"consumption":[{"db":"d","stream_name":"ghost","stream_id":7,"unit":"p","consumption_status":"N/A","lag":"N/A"}]}`,
		head + `,"mvs":[{"id":1,"db":"d","name":"m","refresh_info":"REFRESH INCREMENTAL ON SCHEDULE EVERY 9223372036854775807 DAY"}],"tasks":[{"task_id":1,"mv_id":1,"mv_name":"m","mv_database_name":"d","status":"RUNNING","create_time_ms":9223372036854775807,"start_time_ms":-9223372036854775808,"duration_ms":-1}]}`,
		head + `,"ivm_mv_status":[{"db":"d","mv_name":"m","mv_id":1,"freshness_state":"LAGGING","data_delay_seconds":1e308,"consecutive_failures":-9223372036854775808}],"streams":[{"db":"d","name":"s","id":2,"max_pending_age_seconds":-1e308}]}`,
		head + `,"metrics":[{"kind":"fe","target":"x","is_master":true,"bytes":-1,"body":"\u0000\ufffd# TYPE a counter\na{b=\"\\\"} NaN\n"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkSnapshotPipeline)
}

// TestCheckSnapshotScenarios runs the FuzzCheckSnapshot body over the
// scenario snapshots, too large to be fuzz seeds.
func TestCheckSnapshotScenarios(t *testing.T) {
	for _, name := range []string{"healthy", "incident", "legacy"} {
		s, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := snapshot.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { checkSnapshotPipeline(t, buf.Bytes()) })
	}
}

func checkSnapshotPipeline(t *testing.T, data []byte) {
	{
		s, err := snapshot.Decode(data)
		if err != nil {
			return
		}
		series := []*snapshot.Snapshot{s}
		res := check.Run(series, check.Options{})
		st := report.NewStyle(io.Discard, false)
		// Every registered format of every document must survive any
		// snapshot the decoder accepts (no panic; an error is fine).
		emitAll := func(d report.Doc) {
			for _, f := range report.Formats(d.Kind()) {
				err := report.Emit(io.Discard, st, f, d)
				if f == report.FormatJSON && err != nil {
					t.Fatalf("%s JSON: %v", d.Kind(), err)
				}
			}
		}
		emitAll(report.CheckDoc{Result: res})
		emitAll(demo.DemoDoc{Check: res})
		emitAll(report.StreamsDoc{Now: res.Now, Streams: res.Streams.Streams, Findings: res.Streams.Findings})
		for i := range res.Streams.Streams {
			emitAll(report.StreamDoc{Now: res.Now, Stream: &res.Streams.Streams[i], Findings: res.Streams.Findings})
		}
		var items []mv.ListItem
		for i := range res.MVs.MVs {
			m := &res.MVs.MVs[i]
			items = append(items, m.ListItem(res.MVs.Findings))
			emitAll(mvreport.MVExplainDoc{Now: res.Now, MV: m, Findings: res.MVs.Findings})
		}
		emitAll(mvreport.MVListDoc{Now: res.Now, MVs: items, Findings: res.MVs.Findings})
		plan := whatif.PlanHeadroom(series, streams.Options{}, s.Cluster.Now.Add(time.Hour))
		emitAll(report.HeadroomDoc{HeadroomPlan: plan, All: true})
		emitAll(report.SnapshotSummaryDoc{Summary: sources.Summarize(s)})
	}
}
