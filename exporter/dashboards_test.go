//lint:file-ignore SA1019 the classic dashboard JSON (schema v1) is what every Grafana imports; dashboardv2 needs Grafana 12

package exporter_test

// The three dashboards of apache/doris#69907 §2 "Dashboards" (T7: Overview,
// One MV, One stream), generated in Go with
// github.com/grafana/grafana-foundation-sdk/go (Apache-2.0) into
// docs/dashboards/*.json (`go test ./exporter -run TestDashboards -update`).
// They query the design's series by name, so they work against the FE's own
// series and the exporter's alike. Test-only: the SDK is never linked into
// the binary.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/bargauge"
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/statetimeline"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

var (
	promDS  = dashboard.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}
	mysqlDS = dashboard.DataSourceRef{Type: cog.ToPtr("mysql"), Uid: cog.ToPtr("${doris}")}
	// sel picks one cluster: every series carries cluster="NAME" (the
	// exporter's --cluster, or the scrape config's label for the FE's own
	// series); one job may hold many clusters (docs/exporter.md "Many
	// clusters"), so the dashboards never template on job.
	sel = `cluster=~"$cluster"`
)

// pq is a Prometheus target; refId is stable (A, B, … in the panel), as
// are the panels' ids: links, alerts and annotations keep pointing at them
// across regenerations.
func pq(refID, expr, legend string) cog.Builder[variants.Dataquery] {
	return prometheus.NewDataqueryBuilder().RefId(refID).Expr(expr).LegendFormat(legend).Datasource(promDS)
}

func instant(refID, expr string) cog.Builder[variants.Dataquery] {
	return prometheus.NewDataqueryBuilder().RefId(refID).Expr(expr).Instant().Format(prometheus.PromQueryFormatTable).Datasource(promDS)
}

// sqlQuery is a raw SQL target of Grafana's MySQL data source (Doris speaks
// the MySQL protocol); the SDK has no MySQL query type.
type sqlQuery struct{ sql string }

func (q sqlQuery) Build() (variants.Dataquery, error) {
	return variants.UnknownDataquery{"refId": "A", "datasource": mysqlDS, "format": "table", "rawQuery": true,
		"editorMode": "code", "rawSql": q.sql}, nil
}

func pos(x, y, w, h uint32) dashboard.GridPos { return dashboard.GridPos{X: x, Y: y, W: w, H: h} }

func variablesProm(extra ...cog.Builder[dashboard.VariableModel]) []cog.Builder[dashboard.VariableModel] {
	out := []cog.Builder[dashboard.VariableModel]{
		dashboard.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus"),
		dashboard.NewQueryVariableBuilder("cluster").Label("Cluster").
			Query(dashboard.StringOrMap{String: cog.ToPtr("label_values(doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds, cluster)")}).
			Datasource(promDS).Refresh(dashboard.VariableRefreshOnTimeRangeChanged),
	}
	return append(out, extra...)
}

func doris() cog.Builder[dashboard.VariableModel] {
	return dashboard.NewDatasourceVariableBuilder("doris").Label("Doris (MySQL data source)").Type("mysql")
}

func labelVar(name, label, query string) cog.Builder[dashboard.VariableModel] {
	return dashboard.NewQueryVariableBuilder(name).Label(label).
		Query(dashboard.StringOrMap{String: cog.ToPtr(query)}).Datasource(promDS).Refresh(dashboard.VariableRefreshOnTimeRangeChanged)
}

func overview() *dashboard.DashboardBuilder {
	return dashboard.NewDashboardBuilder("Doris changelog consumers — Overview").Uid("doris-changelog-overview").
		Tags([]string{"doris", "changelog", "ivm"}).Time("now-6h", "now").Refresh("1m").
		Description("apache/doris#69907 §2 Dashboards, 1. Overview. Works with the Master FE's own series and with dorisdiag exporter's (docs/exporter.md).").
		Variables(variablesProm(doris())).
		WithPanel(bargauge.NewPanelBuilder().Id(1).Title("MVs by state").GridPos(pos(0, 0, 6, 6)).
			WithTarget(pq("A", `sum by (state) (doris_fe_ivm_mvs{`+sel+`})`, "{{state}}"))).
		WithPanel(bargauge.NewPanelBuilder().Id(2).Title("Streams by state").GridPos(pos(6, 0, 6, 6)).
			WithTarget(pq("A", `sum by (kind, state) (doris_fe_changelog_streams{`+sel+`}) > 0`, "{{kind}} {{state}}"))).
		WithPanel(stat.NewPanelBuilder().Id(3).Title("Max delay").Unit("s").GridPos(pos(12, 0, 4, 6)).
			WithTarget(pq("A", `max(doris_fe_ivm_mv_max_data_delay_seconds{`+sel+`})`, "delay"))).
		WithPanel(stat.NewPanelBuilder().Id(4).Title("Min headroom").Unit("s").GridPos(pos(16, 0, 4, 6)).
			WithTarget(pq("A", `min by (kind) (doris_fe_changelog_stream_min_retention_headroom_seconds{`+sel+`})`, "{{kind}}"))).
		WithPanel(stat.NewPanelBuilder().Id(5).Title("Monitor age").Unit("s").GridPos(pos(20, 0, 4, 6)).
			WithTarget(pq("A", `time() - max(doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds{`+sel+`})`, "age"))).
		WithPanel(timeseries.NewPanelBuilder().Id(6).Title("MVs by data delay (buckets)").GridPos(pos(0, 6, 12, 8)).
			WithTarget(pq("A", `sum by (le) (doris_fe_ivm_mvs_by_data_delay{`+sel+`})`, "≤ {{le}} s"))).
		WithPanel(timeseries.NewPanelBuilder().Id(7).Title("Max pending age by kind").Unit("s").GridPos(pos(12, 6, 12, 8)).
			WithTarget(pq("A", `max by (kind) (doris_fe_changelog_stream_max_pending_age_seconds{`+sel+`})`, "{{kind}}"))).
		// The by-reason counters count the tasks that finish while they are
		// watched; an MV's own count (the server's persisted FALLBACK_COUNT,
		// CONSECUTIVE_FAILURES) shows what had already happened — on the
		// incident, the repeated fallbacks and the failing MVs check reports.
		WithPanel(timeseries.NewPanelBuilder().Id(8).Title("Fallbacks: by reason (1h), by MV").GridPos(pos(0, 14, 8, 8)).
			WithTarget(pq("A", `sum by (reason) (increase(doris_fe_ivm_fallbacks_total{`+sel+`}[1h])) > 0`, "{{reason}} (1h)")).
			WithTarget(pq("B", `doris_fe_ivm_mv_fallbacks_total{`+sel+`} > 0`, "{{db_name}}.{{mv_name}} (all)"))).
		WithPanel(timeseries.NewPanelBuilder().Id(9).Title("Failures: by reason (1h), in a row by MV").GridPos(pos(8, 14, 8, 8)).
			WithTarget(pq("A", `sum by (reason) (increase(doris_fe_ivm_refresh_failures_total{`+sel+`}[1h])) > 0`, "{{reason}} (1h)")).
			WithTarget(pq("B", `doris_fe_ivm_mv_consecutive_failures{`+sel+`} > 0`, "{{db_name}}.{{mv_name}} (in a row)"))).
		WithPanel(timeseries.NewPanelBuilder().Id(10).Title("Oldest queued, running").Unit("s").GridPos(pos(16, 14, 8, 8)).
			WithTarget(pq("A", `max(doris_fe_ivm_task_oldest_pending_age_seconds{`+sel+`})`, "queued")).
			WithTarget(pq("B", `max(doris_fe_ivm_task_oldest_running_age_seconds{`+sel+`})`, "running"))).
		WithPanel(timeseries.NewPanelBuilder().Id(11).Title("Changelog size").Unit("bytes").GridPos(pos(0, 22, 8, 8)).
			WithTarget(pq("A", `max by (scope) (doris_fe_changelog_retained_bytes{`+sel+`})`, "{{scope}}"))).
		WithPanel(timeseries.NewPanelBuilder().Id(12).Title("Monitor health, quota").GridPos(pos(8, 22, 8, 8)).
			WithTarget(pq("A", `max(doris_fe_changelog_ivm_monitor_sample_duration_seconds{`+sel+`})`, "round duration (s)")).
			WithTarget(pq("B", `sum(increase(doris_fe_changelog_ivm_monitor_sample_failures_total{`+sel+`}[1h]))`, "failed rounds")).
			WithTarget(pq("C", `sum by (type) (doris_fe_changelog_ivm_monitor_objects_not_exported{`+sel+`})`, "not exported: {{type}}"))).
		WithPanel(table.NewPanelBuilder().Id(13).Title("Not fresh (SQL)").GridPos(pos(16, 22, 8, 8)).
			Datasource(mysqlDS).WithTarget(sqlQuery{`SELECT DB_NAME, MV_NAME, FRESHNESS_STATE, DATA_DELAY_SECONDS, DELAY_PRECISION, LAGGING_REASON, CONSECUTIVE_FAILURES, LAST_FAILURE_REASON, SAMPLE_TIME
FROM information_schema.ivm_mv_status
WHERE FRESHNESS_STATE <> 'FRESH'
ORDER BY DATA_DELAY_SECONDS DESC`})).
		WithPanel(table.NewPanelBuilder().Id(14).Title("MVs not fresh (per-object series, under the quota)").GridPos(pos(0, 30, 24, 8)).
			WithTarget(instant("A", `doris_fe_ivm_mv_freshness_state{`+sel+`} > 0`))).
		// External consumers (docs/consumers.md): the exporter's own series,
		// one per consumer of --config's consumers: (or of the scenario), as
		// `dorisdiag consumers` shows them; the FE exports none.
		WithRow(dashboard.NewRowBuilder("Consumers").Id(15).GridPos(pos(0, 38, 24, 1))).
		WithPanel(timeseries.NewPanelBuilder().Id(16).Title("Retention headroom (< 0: expired)").Unit("s").GridPos(pos(0, 39, 8, 8)).
			WithTarget(pq("A", `min by (consumer) (dorisdiag_consumer_retention_headroom_seconds{`+sel+`})`, "{{consumer}}"))).
		WithPanel(timeseries.NewPanelBuilder().Id(17).Title("Offset age").Unit("s").GridPos(pos(8, 39, 8, 8)).
			WithTarget(pq("A", `max by (consumer) (dorisdiag_consumer_offset_age_seconds{`+sel+`})`, "{{consumer}}"))).
		WithPanel(timeseries.NewPanelBuilder().Id(18).Title("Publish age").Unit("s").GridPos(pos(16, 39, 8, 8)).
			WithTarget(pq("A", `max by (consumer) (dorisdiag_consumer_publish_age_seconds{`+sel+`})`, "{{consumer}}")))
}

func oneMV() *dashboard.DashboardBuilder {
	m := sel + `, db_name="$db", mv_name="$mv"`
	return dashboard.NewDashboardBuilder("Doris changelog consumers — One MV").Uid("doris-changelog-one-mv").
		Tags([]string{"doris", "changelog", "ivm"}).Time("now-6h", "now").Refresh("1m").
		Description("apache/doris#69907 §2 Dashboards, 2. One MV (MVs under the per-object quota).").
		Variables(variablesProm(doris(),
			labelVar("db", "Database", `label_values(doris_fe_ivm_mv_data_delay_seconds{`+sel+`}, db_name)`),
			labelVar("mv", "MV", `label_values(doris_fe_ivm_mv_data_delay_seconds{`+sel+`, db_name="$db"}, mv_name)`))).
		WithPanel(timeseries.NewPanelBuilder().Id(1).Title("Data delay (-1: unknown)").Unit("s").GridPos(pos(0, 0, 12, 8)).
			WithTarget(pq("A", `doris_fe_ivm_mv_data_delay_seconds{`+m+`}`, "delay"))).
		WithPanel(statetimeline.NewPanelBuilder().Id(2).Title("Freshness state (0 fresh … 4 unknown)").GridPos(pos(12, 0, 12, 8)).
			WithTarget(pq("A", `doris_fe_ivm_mv_freshness_state{`+m+`}`, "state"))).
		WithPanel(timeseries.NewPanelBuilder().Id(3).Title("Consecutive failures").GridPos(pos(0, 8, 8, 8)).
			WithTarget(pq("A", `doris_fe_ivm_mv_consecutive_failures{`+m+`}`, "failures"))).
		WithPanel(timeseries.NewPanelBuilder().Id(4).Title("Fallbacks (1h)").GridPos(pos(8, 8, 8, 8)).
			WithTarget(pq("A", `increase(doris_fe_ivm_mv_fallbacks_total{`+m+`}[1h])`, "fallbacks"))).
		WithPanel(timeseries.NewPanelBuilder().Id(5).Title("Last refresh duration").Unit("s").GridPos(pos(16, 8, 8, 8)).
			WithTarget(pq("A", `doris_fe_ivm_mv_last_refresh_duration_seconds{`+m+`}`, "duration"))).
		WithPanel(table.NewPanelBuilder().Id(6).Title("ivm_dependencies (SQL)").GridPos(pos(0, 16, 12, 10)).
			Datasource(mysqlDS).WithTarget(sqlQuery{`SELECT BASE_TABLE_DB, BASE_TABLE_NAME, IS_EXCLUDED_TRIGGER, DEPENDENCY_STATE, DELAY_SECONDS, LAGGING_PARTITIONS, WORST_PARTITION, STREAM_ID
FROM information_schema.ivm_dependencies
WHERE DB_NAME = '$db' AND MV_NAME = '$mv'
ORDER BY DELAY_SECONDS DESC`})).
		WithPanel(table.NewPanelBuilder().Id(7).Title("recent tasks() (SQL)").GridPos(pos(12, 16, 12, 10)).
			Datasource(mysqlDS).WithTarget(sqlQuery{`SELECT TaskId, Status, RefreshMode, IvmRefreshMethod, IvmFallbackReason, DurationMs, ErrorMsg, LastQueryId
FROM tasks("type" = "mv")
WHERE MvDatabaseName = '$db' AND MvName = '$mv'
ORDER BY CreateTime DESC
LIMIT 20`}))
}

func oneStream() *dashboard.DashboardBuilder {
	s := sel + `, db_name="$db", stream_name="$stream"`
	return dashboard.NewDashboardBuilder("Doris changelog consumers — One stream").Uid("doris-changelog-one-stream").
		Tags([]string{"doris", "changelog", "stream"}).Time("now-6h", "now").Refresh("1m").
		Description("apache/doris#69907 §2 Dashboards, 3. One stream (user streams under the per-object quota).").
		Variables(variablesProm(doris(),
			labelVar("db", "Database", `label_values(doris_fe_changelog_stream_state{`+sel+`}, db_name)`),
			labelVar("stream", "Stream", `label_values(doris_fe_changelog_stream_state{`+sel+`, db_name="$db"}, stream_name)`),
			labelVar("stream_id", "Stream ID", `label_values(doris_fe_changelog_stream_state{`+sel+`, db_name="$db", stream_name="$stream"}, stream_id)`))).
		WithPanel(timeseries.NewPanelBuilder().Id(1).Title("Pending age (-1: unknown)").Unit("s").GridPos(pos(0, 0, 12, 8)).
			WithTarget(pq("A", `doris_fe_changelog_stream_pending_age_seconds{`+s+`}`, "pending age"))).
		WithPanel(timeseries.NewPanelBuilder().Id(2).Title("Retention headroom").Unit("s").GridPos(pos(12, 0, 12, 8)).
			WithTarget(pq("A", `doris_fe_changelog_stream_retention_headroom_seconds{`+s+`}`, "headroom"))).
		WithPanel(statetimeline.NewPanelBuilder().Id(3).Title("State (0 caught_up … 6 disabled)").GridPos(pos(0, 8, 12, 8)).
			WithTarget(pq("A", `doris_fe_changelog_stream_state{`+s+`}`, "state"))).
		WithPanel(timeseries.NewPanelBuilder().Id(4).Title("Gap events (10m)").GridPos(pos(12, 8, 12, 8)).
			WithTarget(pq("A", `increase(doris_fe_changelog_stream_gap_events_total{`+s+`}[10m])`, "gaps"))).
		WithPanel(table.NewPanelBuilder().Id(5).Title("Worst partitions: table_stream_consumption (SQL)").GridPos(pos(0, 16, 24, 10)).
			Datasource(mysqlDS).WithTarget(sqlQuery{`SELECT UNIT, CONSUMED_TSO, SOURCE_END_TSO, PENDING_AGE_SECONDS, PENDING_AGE_PRECISION, CAN_RESUME, RETENTION_HEADROOM_SECONDS, LAST_GAP_TIME
FROM information_schema.table_stream_consumption
WHERE STREAM_ID = $stream_id
ORDER BY PENDING_AGE_SECONDS DESC
LIMIT 20`}))
}

type dash struct {
	file string
	b    *dashboard.DashboardBuilder
}

func dashboards() []dash {
	return []dash{{"overview.json", overview()}, {"one-mv.json", oneMV()}, {"one-stream.json", oneStream()}}
}

func buildDashboard(t testing.TB, b *dashboard.DashboardBuilder) (dashboard.Dashboard, []byte) {
	t.Helper()
	d, err := b.Build()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return d, append(out, '\n')
}

// TestDashboardsGenerated: docs/dashboards/*.json are what the Go above
// builds (-update rewrites them), and docs/exporter.md shows each layout.
func TestDashboardsGenerated(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "exporter.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dashboards() {
		built, got := buildDashboard(t, d.b)
		path := filepath.Join("..", "docs", "dashboards", d.file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./exporter -run TestDashboards -update)", err)
		}
		if string(want) != string(got) {
			t.Errorf("%s is not what the generator builds: run go test ./exporter -run TestDashboards -update", path)
		}
		pic := layout(built)
		if !strings.Contains(string(doc), pic) {
			t.Errorf("docs/exporter.md lacks the layout of %s:\n%s", d.file, pic)
		}
	}
}

// layout draws the panels' grid (24 columns, 3 characters each) as the
// picture in docs/exporter.md.
func layout(d dashboard.Dashboard) string {
	type cell struct {
		x, w  uint32
		title string
	}
	rows := map[uint32][]cell{}
	for _, p := range d.Panels {
		if r := p.RowPanel; r != nil && r.GridPos != nil && r.Title != nil {
			rows[r.GridPos.Y] = append(rows[r.GridPos.Y], cell{0, 24, "── " + *r.Title + " ──"})
			continue
		}
		if p.Panel == nil || p.Panel.GridPos == nil {
			continue
		}
		g := p.Panel.GridPos
		title := ""
		if p.Panel.Title != nil {
			title = *p.Panel.Title
		}
		rows[g.Y] = append(rows[g.Y], cell{g.X, g.W, title})
	}
	ys := make([]uint32, 0, len(rows))
	for y := range rows {
		ys = append(ys, y)
	}
	sort.Slice(ys, func(i, j int) bool { return ys[i] < ys[j] })
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", *d.Title)
	border := "+" + strings.Repeat("-", 71) + "+\n"
	b.WriteString(border)
	for _, y := range ys {
		cs := rows[y]
		sort.Slice(cs, func(i, j int) bool { return cs[i].x < cs[j].x })
		line := ""
		for _, c := range cs {
			width := int(c.w)*3 - 1
			t := c.title
			if len([]rune(t)) > width-2 {
				t = string([]rune(t)[:width-3]) + "…"
			}
			line += "| " + t + strings.Repeat(" ", max(0, width-1-len([]rune(t))))
		}
		b.WriteString(line + "|\n")
		b.WriteString(border)
	}
	return b.String()
}

// Why: the shipped Overview had no panel for the external consumers'
// series, so a consumer about to lose its offset was visible to the alert
// rules and `dorisdiag consumers` but not on the dashboard. Every
// dorisdiag_consumer_* series the exporter describes is queried by a panel
// of the Overview's Consumers row (TestDashboardsNonEmptyOnIncident checks
// each returns data on the incident).
func TestDashboardsShowConsumerSeries(t *testing.T) {
	_, raw := buildDashboard(t, overview())
	_, panels, _ := dashboardQueries(t, raw)
	var exprs []string
	for _, p := range panels {
		for _, e := range p.targets {
			exprs = append(exprs, e)
		}
	}
	all := strings.Join(exprs, "\n")
	doc, err := os.ReadFile(filepath.Join("..", "docs", "exporter.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("`(dorisdiag_consumer_[a-z_]+)\\{consumer\\}`").FindAllStringSubmatch(string(doc), -1)
	if len(names) < 3 {
		t.Fatalf("docs/exporter.md lists %d consumer series, want 3", len(names))
	}
	for _, n := range names {
		if !strings.Contains(all, n[1]+"{") {
			t.Errorf("no Overview panel queries %s", n[1])
		}
	}
	if !strings.Contains(string(raw), `"type": "row"`) || !strings.Contains(string(raw), `"title": "Consumers"`) {
		t.Error("the Overview has no Consumers row")
	}
}
