package exporter_test

import (
	"context"
	"flag"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/emutest"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

var update = flag.Bool("update", false, "rewrite the golden files (docs/dashboards/*.json, docs/alerts/*_test.yml)")

// fakeClock is the wall clock of an exporter under test: it moves only when
// the test says so (no timing assertions).
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// startEmulator serves snap on 127.0.0.1:0 and returns the collector config
// (no credentials, a 5 s timeout).
func startEmulator(t testing.TB, snap *snapshot.Snapshot, opts emulator.Options) (*emulator.Emulator, scrape.Config) {
	t.Helper()
	e, cfg := emutest.Start(t, snap, opts)
	cfg.User, cfg.Password, cfg.Timeout = "", "", 5*time.Second
	return e, cfg
}

// series is every gathered sample, keyed "name{l1=v1,l2=v2}" with labels sorted.
type series map[string]float64

func gather(t testing.TB, e *exporter.Exporter) (series, []*dto.MetricFamily) {
	t.Helper()
	fams, err := e.Registry().Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	out := series{}
	for _, f := range fams {
		for _, m := range f.Metric {
			var v float64
			switch {
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Counter != nil:
				v = m.Counter.GetValue()
			case m.Untyped != nil:
				v = m.Untyped.GetValue()
			default:
				continue
			}
			out[key(f.GetName(), m.Label)] = v
		}
	}
	return out, fams
}

func key(name string, labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return name
	}
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

// get returns the one sample whose key starts with name{ and contains every
// fragment ("stream_name=s_orders_cdc").
func (s series) get(t testing.TB, name string, fragments ...string) float64 {
	t.Helper()
	var found []string
	for k := range s {
		if k != name && !strings.HasPrefix(k, name+"{") {
			continue
		}
		ok := true
		for _, f := range fragments {
			if !strings.Contains(k, f) {
				ok = false
			}
		}
		if ok {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s %v: want one series, got %v", name, fragments, found)
	}
	return s[found[0]]
}

func (s series) count(name string) int {
	n := 0
	for k := range s {
		if k == name || strings.HasPrefix(k, name+"{") {
			n++
		}
	}
	return n
}

func mustRound(t testing.TB, e *exporter.Exporter) {
	t.Helper()
	if err := e.Round(context.Background()); err != nil {
		t.Fatalf("round: %v", err)
	}
}

type dtoFamily = dto.MetricFamily
