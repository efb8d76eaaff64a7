package exporter_test

// Every Prometheus panel of the three dashboards returns data on the
// incident scenario: the dashboards' PromQL is evaluated by Prometheus's own
// engine (github.com/prometheus/prometheus/promql, test-only) over the
// series the exporter serves for `--demo incident`, one sample per round.

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/dorisdiag/dorisdiag/scenario"
)

// fsample is one float sample.
type fsample struct {
	t int64
	f float64
}

func (s fsample) T() int64                      { return s.t }
func (s fsample) ST() int64                     { return 0 }
func (s fsample) F() float64                    { return s.f }
func (s fsample) H() *histogram.Histogram       { return nil }
func (s fsample) FH() *histogram.FloatHistogram { return nil }
func (s fsample) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (s fsample) Copy() chunks.Sample           { return s }

// memStore is an in-memory storage.Queryable of float series.
type memStore struct {
	series map[string]*memSeries
}

type memSeries struct {
	lset    labels.Labels
	samples []chunks.Sample
}

func (m *memStore) add(t time.Time, mfs []*dto.MetricFamily) {
	for _, mf := range mfs {
		for _, mm := range mf.Metric {
			var v float64
			switch {
			case mm.Gauge != nil:
				v = mm.Gauge.GetValue()
			case mm.Counter != nil:
				v = mm.Counter.GetValue()
			case mm.Untyped != nil:
				v = mm.Untyped.GetValue()
			default:
				continue // summaries and histograms: the Go collector's, no panel reads them
			}
			b := labels.NewScratchBuilder(len(mm.Label) + 1)
			b.Add(model.MetricNameLabel, mf.GetName())
			for _, l := range mm.Label {
				b.Add(l.GetName(), l.GetValue())
			}
			b.Sort()
			ls := b.Labels()
			k := ls.String()
			s := m.series[k]
			if s == nil {
				s = &memSeries{lset: ls}
				m.series[k] = s
			}
			s.samples = append(s.samples, fsample{t.UnixMilli(), v})
		}
	}
}

func (m *memStore) Querier(_, _ int64) (storage.Querier, error) { return memQuerier{m}, nil }

type memQuerier struct{ m *memStore }

func (q memQuerier) Select(_ context.Context, _ bool, _ *storage.SelectHints, ms ...*labels.Matcher) storage.SeriesSet {
	var out []storage.Series
	keys := make([]string, 0, len(q.m.series))
	for k := range q.m.series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := q.m.series[k]
		ok := true
		for _, m := range ms {
			if !m.Matches(s.lset.Get(m.Name)) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, storage.NewListSeries(s.lset, s.samples))
		}
	}
	return &listSet{s: out, i: -1}
}

func (memQuerier) LabelValues(context.Context, string, *storage.LabelHints, ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	return nil, nil, nil
}

func (memQuerier) LabelNames(context.Context, *storage.LabelHints, ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	return nil, nil, nil
}

func (memQuerier) Close() error { return nil }

type listSet struct {
	s []storage.Series
	i int
}

func (l *listSet) Next() bool                        { l.i++; return l.i < len(l.s) }
func (l *listSet) At() storage.Series                { return l.s[l.i] }
func (l *listSet) Err() error                        { return nil }
func (l *listSet) Warnings() annotations.Annotations { return nil }

// panelQueries lists, per dashboard, each Prometheus panel with its targets
// and the label_values variables in their order.
type dashVar struct{ name, selector, label string }

type dashPanel struct {
	id      int
	title   string
	targets map[string]string // refId → expr
}

func dashboardQueries(t *testing.T, raw []byte) ([]dashVar, []dashPanel, []string) {
	t.Helper()
	var doc struct {
		Panels []struct {
			ID         *int   `json:"id"`
			Title      string `json:"title"`
			Datasource *struct {
				Type string `json:"type"`
			} `json:"datasource"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	labelValues := regexp.MustCompile(`^label_values\((.*),\s*([a-z_]+)\)$`)
	var vars []dashVar
	var varNames []string
	for _, v := range doc.Templating.List {
		varNames = append(varNames, v.Name)
		q, _ := v.Query.(string)
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(q)
		if m == nil {
			t.Fatalf("variable %s: not label_values(SELECTOR, label): %q", v.Name, q)
		}
		vars = append(vars, dashVar{v.Name, m[1], m[2]})
	}
	var panels []dashPanel
	ids := map[int]bool{}
	for _, p := range doc.Panels {
		if p.ID == nil || *p.ID <= 0 || ids[*p.ID] {
			t.Errorf("panel %q: id missing or not unique", p.Title)
			continue
		}
		ids[*p.ID] = true
		dp := dashPanel{id: *p.ID, title: p.Title, targets: map[string]string{}}
		for _, tg := range p.Targets {
			if tg.RefID == "" || dp.targets[tg.RefID] != "" {
				t.Errorf("panel %q: a target without a refId, or a refId used twice", p.Title)
			}
			if tg.Expr != "" {
				dp.targets[tg.RefID] = tg.Expr
			}
		}
		if len(dp.targets) > 0 {
			panels = append(panels, dp)
		}
	}
	return vars, panels, varNames
}

// TestDashboardsNonEmptyOnIncident: on the incident scenario (eight rounds
// of `exporter --demo incident`, 15 s apart, as Prometheus would have
// scraped them), every Prometheus panel of the three dashboards returns at
// least one sample, with each variable at the first of its values (Grafana's
// default); there is a $cluster variable and no $job; every panel has a
// unique id and every target a refId. The SQL panels query the FE and are
// not evaluated here.
func TestDashboardsNonEmptyOnIncident(t *testing.T) {
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	e := demoExporter(t, s, 0)
	store := &memStore{series: map[string]*memSeries{}}
	at := s.Cluster.Now
	const rounds = 8
	for i := 0; i < rounds; i++ {
		mustRound(t, e)
		mfs, err := e.Gather()
		if err != nil {
			t.Fatal(err)
		}
		store.add(at.Add(time.Duration(i)*interval), mfs)
	}
	now := at.Add((rounds - 1) * interval)
	eng := promql.NewEngine(promql.EngineOpts{MaxSamples: 1 << 22, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	eval := func(expr string) promql.Vector {
		t.Helper()
		q, err := eng.NewInstantQuery(context.Background(), store, nil, expr, now)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		defer q.Close()
		r := q.Exec(context.Background())
		if r.Err != nil {
			t.Fatalf("%q: %v", expr, r.Err)
		}
		switch v := r.Value.(type) {
		case promql.Vector:
			return v
		case promql.Scalar:
			return promql.Vector{{F: v.V}}
		}
		t.Fatalf("%q: a %s, want a vector", expr, r.Value.Type())
		return nil
	}
	for _, d := range dashboards() {
		t.Run(d.file, func(t *testing.T) {
			_, raw := buildDashboard(t, d.b)
			vars, panels, names := dashboardQueries(t, raw)
			if !contains(names, "cluster") {
				t.Errorf("no $cluster variable: %v", names)
			}
			if contains(names, "job") || strings.Contains(string(raw), "$job") {
				t.Error("the dashboard templates on $job: one job may hold many clusters")
			}
			// Each variable takes the first of its values, as Grafana does;
			// $cluster too (the exporter under test serves no cluster label
			// yet where none was given: cluster=~"" then matches).
			values := map[string]string{}
			subst := func(q string) string {
				// Longest names first: $stream_id before $stream.
				ks := make([]string, 0, len(values))
				for k := range values {
					ks = append(ks, k)
				}
				sort.Slice(ks, func(i, j int) bool { return len(ks[i]) > len(ks[j]) })
				for _, k := range ks {
					q = strings.ReplaceAll(q, "$"+k, values[k])
				}
				return q
			}
			for _, v := range vars {
				got := map[string]bool{}
				for _, smp := range eval(subst(v.selector)) {
					got[smp.Metric.Get(v.label)] = true
				}
				var vs []string
				for k := range got {
					vs = append(vs, k)
				}
				sort.Strings(vs)
				if len(vs) == 0 {
					t.Fatalf("variable $%s: no value (label_values(%s, %s))", v.name, v.selector, v.label)
				}
				values[v.name] = regexp.QuoteMeta(vs[0])
				if v.name != "cluster" {
					values[v.name] = vs[0]
				}
			}
			for _, p := range panels {
				n := 0
				refs := make([]string, 0, len(p.targets))
				for ref := range p.targets {
					refs = append(refs, ref)
				}
				sort.Strings(refs)
				for _, ref := range refs {
					n += len(eval(subst(p.targets[ref])))
				}
				if n == 0 {
					t.Errorf("panel %d %q is empty on the incident (variables %v): %v", p.id, p.title, values, p.targets)
				}
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
