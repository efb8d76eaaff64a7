package lint

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// The 50 MB payload of design.md "Performance budgets": a Master FE that
// exports every signal for every object (seed §3 "A bounded number of
// series": 2,000 MVs at 80 series and 7,000 streams at 23, about 320,000
// series), plus the usual FE families. Generated deterministically here,
// never committed.

var gen50MB = flag.String("gen50mb", "", "write the 50 MB benchmark payload (with its planted errors) to this file and exit the test")

// plantedErrors is how many escaping errors the lint variant carries.
const plantedErrors = 5

var (
	payloadOnce  sync.Once
	payloadClean []byte
	payloadDirty []byte

	payload50Once sync.Once
	payload50     []byte
)

// errors50 is the variant with 50 planted errors (the five kinds, ten MVs
// each): all of them must be found, at the cost of the clean payload.
const errors50 = 50

func payload50Errors(tb testing.TB) []byte {
	if testing.Short() {
		tb.Skip("the 50 MB payload is not generated under -short")
	}
	payload50Once.Do(func() { payload50 = genPayloadN(errors50) })
	return payload50
}

func payloads(tb testing.TB) (clean, dirty []byte) {
	if testing.Short() {
		tb.Skip("the 50 MB payload is not generated under -short")
	}
	payloadOnce.Do(func() {
		payloadClean = genPayload(false)
		payloadDirty = genPayload(true)
	})
	return payloadClean, payloadDirty
}

func genPayload(planted bool) []byte {
	if planted {
		return genPayloadN(plantedErrors)
	}
	return genPayloadN(0)
}

// genPayloadN plants n escaping errors (0, 5 or 50) in the MV families.
func genPayloadN(n int) []byte {
	planted := n > 0
	var b bytes.Buffer
	b.Grow(56 << 20)
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
	}
	fam := func(name, typ, help string) {
		w("# HELP ", name, " ", help, "\n# TYPE ", name, " ", typ, "\n")
	}
	// Usual FE families.
	fam("jvm_heap_size_bytes", "gauge", "jvm heap stat")
	for _, t := range []string{"max", "committed", "used"} {
		w(`jvm_heap_size_bytes{type="`, t, `"} 8589934592`, "\n")
	}
	fam("node_info", "gauge", "node info")
	w(`node_info{type="is_master"} 1`, "\n")
	fam("doris_fe_query_total", "counter", "total query")
	for u := 0; u < 200; u++ {
		w(`doris_fe_query_total{user="user_`, strconv.Itoa(u), `"} `, strconv.Itoa(1000+u), "\n")
	}
	fam("doris_fe_table_data_size", "gauge", "table data size")
	for t := 0; t < 2000; t++ {
		w(`doris_fe_table_data_size{db_name="db_`, strconv.Itoa(t%50), `", table_name="table_`, strconv.Itoa(t), `"} `, strconv.Itoa(1<<20+t*4096), "\n")
	}
	mvLabels := func(i int) string {
		db := i % 40
		return `db_id="` + strconv.Itoa(10000+db) + `", db_name="dw_` + strconv.Itoa(db) + `", mv_id="` + strconv.Itoa(200000+i) + `", mv_name="mv_sales_by_region_` + strconv.Itoa(i) + `"`
	}
	plant := map[int]string{ // mv index -> broken mv_name
		17:   `mv_name="a\b"`,
		345:  "mv_name=\"orders\"v2\"",
		901:  `mv_name="caf\u00e9"`,
		1203: `mv_name="tab\tbed"`,
		1999: "mv_name=\"line\nfeed\"",
	}
	if n == errors50 {
		kinds := []string{`mv_name="a\b"`, "mv_name=\"orders\"v2\"", `mv_name="caf\u00e9"`, `mv_name="tab\tbed"`, "mv_name=\"line\nfeed\""}
		plant = map[int]string{}
		for i := 0; i < errors50; i++ {
			plant[17+i*39] = kinds[i%len(kinds)]
		}
	}
	mvSeries := func(name, typ, help string, extra []string) {
		fam(name, typ, help)
		for i := 0; i < 2000; i++ {
			lbl := mvLabels(i)
			if planted && name == "doris_fe_ivm_mv_data_delay_seconds" {
				if bad, ok := plant[i]; ok {
					lbl = lbl[:bytes.LastIndex([]byte(lbl), []byte("mv_name="))] + bad
				}
			}
			if len(extra) == 0 {
				w(name, "{", lbl, "} ", strconv.Itoa(i%900), "\n")
				continue
			}
			for k, x := range extra {
				w(name, "{", lbl, ", ", x, "} ", strconv.Itoa((i+k)%97), "\n")
			}
		}
	}
	cross := func(a string, as []string, c string, cs []string) []string {
		var out []string
		for _, x := range as {
			for _, y := range cs {
				out = append(out, a+`="`+x+`", `+c+`="`+y+`"`)
			}
		}
		return out
	}
	one := func(a string, as ...string) []string {
		var out []string
		for _, x := range as {
			out = append(out, a+`="`+x+`"`)
		}
		return out
	}
	reasons := []string{"partition_sync_failed", "query_unusable", "execution_failed", "changelog_broken", "other"}
	phases := []string{"plan", "read", "write", "publish"}
	methods := []string{"incremental", "partition_rebuild", "complete"}
	results := []string{"success", "no_change", "failed", "canceled"}
	var rar []string
	for _, rq := range methods {
		for _, ac := range methods {
			for _, rs := range results {
				rar = append(rar, `requested="`+rq+`", actual="`+ac+`", result="`+rs+`"`)
			}
		}
	}
	// 80 series per MV
	mvSeries("doris_fe_ivm_mv_data_delay_seconds", "gauge", "data delay, -1 when unknown", nil)
	mvSeries("doris_fe_ivm_mv_freshness_state", "gauge", "the freshness state as a number", nil)
	mvSeries("doris_fe_ivm_mv_consecutive_failures", "gauge", "consecutive failures", nil)
	mvSeries("doris_fe_ivm_mv_fallbacks_total", "counter", "fallbacks", nil)
	mvSeries("doris_fe_ivm_mv_last_refresh_duration_seconds", "gauge", "run time of the latest task", nil)
	mvSeries("doris_fe_ivm_mv_refresh_failures_total", "counter", "failures by reason and phase", cross("reason", reasons, "phase", phases))
	mvSeries("doris_fe_ivm_mv_refresh_tasks_total", "counter", "tasks by requested and actual method and result", rar)
	mvSeries("doris_fe_ivm_mv_fallbacks_by_reason_total", "counter", "fallbacks by reason", one("reason", "a", "b", "c", "d", "e", "f", "g", "incomplete_refresh_snapshot"))
	mvSeries("doris_fe_ivm_mv_dependency_delay_seconds", "gauge", "delay per base table", one("base_table", "orders", "customers", "lineitem"))
	mvSeries("doris_fe_ivm_mv_dependency_headroom_seconds", "gauge", "headroom per base table", one("base_table", "orders", "customers", "lineitem"))
	for _, n := range []string{"pending_publish_txns", "dirty_partitions", "excluded_delay_seconds", "last_success_timestamp_seconds", "current_task_age_seconds"} {
		mvSeries("doris_fe_ivm_mv_"+n, "gauge", n, nil)
	}
	// 23 series per stream, 7,000 streams (6,000 internal, 1,000 user)
	stLabels := func(i int) string {
		db := i % 40
		kind := "user"
		if i >= 1000 {
			kind = "ivm"
		}
		return `db_id="` + strconv.Itoa(10000+db) + `", db_name="dw_` + strconv.Itoa(db) + `", stream_id="` + strconv.Itoa(300000+i) + `", stream_name="stream_orders_cdc_` + strconv.Itoa(i) + `", kind="` + kind + `"`
	}
	stSeries := func(name, typ string, extra []string) {
		fam(name, typ, name)
		for i := 0; i < 7000; i++ {
			lbl := stLabels(i)
			if len(extra) == 0 {
				w(name, "{", lbl, "} ", strconv.Itoa(i%1800), "\n")
				continue
			}
			for k, x := range extra {
				w(name, "{", lbl, ", ", x, "} ", strconv.Itoa((i+k)%31), "\n")
			}
		}
	}
	for _, n := range []string{"state", "pending_age_seconds", "retention_headroom_seconds", "pending_partitions", "position_gap_seconds", "last_consumption_timestamp_seconds", "lag_rows", "can_resume", "min_retention_headroom_seconds", "ttl_seconds", "partitions", "offset_lag_seconds"} {
		stSeries("doris_fe_changelog_stream_"+n, "gauge", nil)
	}
	stSeries("doris_fe_changelog_stream_gap_events_total", "counter", nil)
	stSeries("doris_fe_changelog_stream_consumed_rows_total", "counter", one("op", "insert", "delete", "update_before", "update_after"))
	stSeries("doris_fe_changelog_stream_read_window_events_total", "counter", cross("outcome", []string{"expired_rejected", "expired_clipped"}, "consumer", []string{"stream", "ivm", "query"}))
	return b.Bytes()
}

func TestGenerate50MB(t *testing.T) {
	if *gen50MB == "" {
		t.Skip("set -gen50mb PATH to write the benchmark payload")
	}
	_, dirty := payloads(t)
	if err := os.WriteFile(*gen50MB, dirty, 0o644); err != nil {
		t.Fatal(err)
	}
}

// callerOptions lint the payload as `dorisdiag metrics lint` does (its
// profile is diag/metrics.LintOptions): the changelog/IVM families and
// node_info kept (the first 20,000 samples) and checked for NaN, a note
// asked of every problem. The hooks cost what the real ones do: one prefix
// test per family, one call per problem.
var callerOptions = exposition.Options{
	Family: func(name string) exposition.FamilyPolicy {
		d := strings.HasPrefix(name, "doris_fe_changelog_") || strings.HasPrefix(name, "doris_fe_ivm_") ||
			strings.HasPrefix(name, "doris_be_changelog_") || name == "node_info"
		return exposition.FamilyPolicy{Keep: d, NoNaN: d}
	},
	Note: func(p exposition.Problem, _ string) (string, string) { return p.Message, p.Fix },
}

func BenchmarkLint50MB(b *testing.B) {
	_, data := payloads(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var res *exposition.Result
	for b.Loop() {
		var err error
		res, err = Lint(bytes.NewReader(data), callerOptions)
		if err != nil {
			b.Fatal(err)
		}
	}
	if res.Errors != plantedErrors {
		b.Fatalf("found %d errors, want the %d planted ones: %s", res.Errors, plantedErrors, errorList(res))
	}
	b.ReportMetric(float64(res.Series), "series")
	if len(res.Samples) != 20000 || res.SamplesNotKept == 0 {
		b.Fatalf("kept %d samples (%d not kept); the caller's families are the payload's bulk", len(res.Samples), res.SamplesNotKept)
	}
}

// BenchmarkLintNoHooks50MB is the linter for a caller with no policy:
// nothing kept, nothing noted.
func BenchmarkLintNoHooks50MB(b *testing.B) {
	_, data := payloads(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Lint(bytes.NewReader(data), exposition.Options{})
		if err != nil || res.Errors != plantedErrors || len(res.Samples) != 0 {
			b.Fatalf("%v %d %d", err, res.Errors, len(res.Samples))
		}
	}
}

func BenchmarkLintClean50MB(b *testing.B) {
	data, _ := payloads(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Lint(bytes.NewReader(data), callerOptions)
		if err != nil || res.Errors != 0 {
			b.Fatalf("%v %d", err, res.Errors)
		}
	}
}

func BenchmarkLint50Errors50MB(b *testing.B) {
	data := payload50Errors(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Lint(bytes.NewReader(data), callerOptions)
		if err != nil || res.Errors != errors50 {
			b.Fatalf("%v: found %d errors, want the %d planted ones", err, res.Errors, errors50)
		}
	}
}

func BenchmarkExpfmtParse50MB(b *testing.B) {
	data, _ := payloads(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := expfmt.NewTextParser(model.UTF8Validation)
		if _, err := p.TextToMetricFamilies(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

var _ = fmt.Sprint
