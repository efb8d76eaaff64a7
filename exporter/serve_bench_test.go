package exporter_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/dorisdiag/dorisdiag/scenario"
)

// constCollector serves fixed metric families through client_golang's own
// path (Collect, Write, sort, encode): the reference a scrape is measured
// against.
type constCollector struct{ ms []prometheus.Metric }

func (c constCollector) Describe(chan<- *prometheus.Desc) {} // unchecked: the series are fixed
func (c constCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.ms {
		ch <- m
	}
}

func constMetrics(tb testing.TB, mfs []*dto.MetricFamily) []prometheus.Metric {
	tb.Helper()
	var out []prometheus.Metric
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			var names, values []string
			for _, l := range m.Label {
				names, values = append(names, l.GetName()), append(values, l.GetValue())
			}
			d := prometheus.NewDesc(mf.GetName(), mf.GetHelp(), names, nil)
			var cm prometheus.Metric
			var err error
			switch {
			case m.Counter != nil:
				cm, err = prometheus.NewConstMetric(d, prometheus.CounterValue, m.Counter.GetValue(), values...)
			case m.Gauge != nil:
				cm, err = prometheus.NewConstMetric(d, prometheus.GaugeValue, m.Gauge.GetValue(), values...)
			case m.Untyped != nil:
				cm, err = prometheus.NewConstMetric(d, prometheus.UntypedValue, m.Untyped.GetValue(), values...)
			case m.Summary != nil:
				q := map[float64]float64{}
				for _, x := range m.Summary.Quantile {
					q[x.GetQuantile()] = x.GetValue()
				}
				cm, err = prometheus.NewConstSummary(d, m.Summary.GetSampleCount(), m.Summary.GetSampleSum(), q, values...)
			case m.Histogram != nil:
				bk := map[float64]uint64{}
				for _, x := range m.Histogram.Bucket {
					bk[x.GetUpperBound()] = x.GetCumulativeCount()
				}
				cm, err = prometheus.NewConstHistogram(d, m.Histogram.GetSampleCount(), m.Histogram.GetSampleSum(), bk, values...)
			default:
				continue
			}
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, cm)
		}
	}
	return out
}

// BenchmarkScrapeVsClientGolangScale: at the scale scenario (9,100 design
// series), each iteration serves one scrape as Prometheus asks for it (text,
// gzip) three ways, one after the other so that a shared machine's load
// affects all alike: client_golang's own promhttp handler over the same
// series held as constant metrics (the reference), the exporter's first
// scrape after a round (it encodes the body: once per round and format), and
// any later scrape of that round (bytes from memory). Reported: each time and
// the ratios to the reference; the budget is a scrape ≤ 1.5× the reference
// (docs/performance.md "Serving /metrics").
func BenchmarkScrapeVsClientGolangScale(b *testing.B) {
	e := demoExporter(b, scenario.Scale(scenario.DefaultScale), 1)
	mfs, err := e.Gather()
	if err != nil {
		b.Fatal(err)
	}
	ref := prometheus.NewPedanticRegistry()
	ref.MustRegister(constCollector{constMetrics(b, mfs)})
	refH := promhttp.HandlerFor(ref, promhttp.HandlerOpts{})
	ours := mustHandler(b, e)
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	req.Header.Set("Accept-Encoding", "gzip")
	// Wall time and the process's CPU time (user + system, every thread:
	// the garbage collector's work an encoding causes is its cost too). On
	// a machine other processes load, wall time swings with the scheduler;
	// CPU time is the cost.
	serve := func(h http.Handler) (time.Duration, time.Duration, int) {
		w := httptest.NewRecorder()
		c0 := processCPU(b)
		t0 := time.Now()
		h.ServeHTTP(w, req)
		d := time.Since(t0)
		c := processCPU(b) - c0
		if w.Code != http.StatusOK {
			b.Fatalf("%d", w.Code)
		}
		return d, c, w.Body.Len()
	}
	var refD, coldD, warmD, refC, coldC time.Duration
	var refN, ourN int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		d, c, n := serve(refH)
		refD, refC, refN = refD+d, refC+c, n
		runtime.GC()
		e.DropBodies()
		d, c, n = serve(ours)
		coldD, coldC, ourN = coldD+d, coldC+c, n
		d, _, _ = serve(ours)
		warmD += d
	}
	n := float64(b.N)
	b.ReportMetric(float64(refD.Microseconds())/1000/n, "clientgolang-ms")
	b.ReportMetric(float64(coldD.Microseconds())/1000/n, "first-scrape-ms")
	b.ReportMetric(float64(warmD.Microseconds())/1000/n, "later-scrape-ms")
	b.ReportMetric(float64(coldD)/float64(refD), "first/clientgolang")
	b.ReportMetric(float64(warmD)/float64(refD), "later/clientgolang")
	b.ReportMetric(float64(refC.Microseconds())/1000/n, "clientgolang-cpu-ms")
	b.ReportMetric(float64(coldC.Microseconds())/1000/n, "first-scrape-cpu-ms")
	b.ReportMetric(float64(coldC)/float64(refC), "first/clientgolang-cpu")
	b.ReportMetric(float64(refN), "clientgolang-gzip-bytes")
	b.ReportMetric(float64(ourN), "gzip-bytes")
}

// BenchmarkFirstScrapeScale: the exporter's first scrape after a round
// alone (profiling).
func BenchmarkFirstScrapeScale(b *testing.B) {
	e := demoExporter(b, scenario.Scale(scenario.DefaultScale), 1)
	ours := mustHandler(b, e)
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	req.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.DropBodies()
		ours.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// BenchmarkLaterScrapeScale: a scrape of a round already encoded: bytes
// from memory (allocations per scrape).
func BenchmarkLaterScrapeScale(b *testing.B) {
	e := demoExporter(b, scenario.Scale(scenario.DefaultScale), 1)
	ours := mustHandler(b, e)
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2")
	req.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ours.ServeHTTP(discardWriter{h: http.Header{}}, req)
	}
}

type discardWriter struct{ h http.Header }

func (w discardWriter) Header() http.Header         { return w.h }
func (w discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w discardWriter) WriteHeader(int)             {}

// processCPU is the process's user + system CPU time so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
