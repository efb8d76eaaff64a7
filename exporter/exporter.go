// Package exporter is `dorisdiag exporter`: a long-running process that runs
// the read-only collector and the same diag code as `check` every interval
// (the sampler of apache/doris#69907 §3, client-side), keeps the design's
// change points in memory, and serves the design's series through
// client_golang (docs/exporter.md). It is the only package that listens on a
// socket; it dials only through scrape.
//
// A round publishes an immutable result by swapping one pointer; /metrics
// renders the last published result and never waits for a round. Rounds run
// one at a time in one goroutine: a round that overruns the interval makes
// the ticks it covered skipped (counted), never overlapped.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/dorisdiag/dorisdiag/diag/round"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// DefaultInterval is the design's changelog_ivm_monitor_interval_seconds.
const DefaultInterval = 15 * time.Second

// DefaultListenAddress: port 10930 (docs/exporter.md "Port").
const DefaultListenAddress = ":10930"

// Source takes one snapshot for round n (1-based) within ctx.
type Source func(ctx context.Context, round int) (*snapshot.Snapshot, error)

// Design-series modes (--design-series).
const (
	ModeAuto = "auto" // serve them unless the build's own monitor does (live only)
	ModeOn   = "on"
	ModeOff  = "off"
)

// Options configure an exporter.
type Options struct {
	Interval     time.Duration // 0 = DefaultInterval
	RoundTimeout time.Duration // per-round timeout; 0 = the interval
	Source       Source
	// Demo: the source is a bundled scenario; nothing else serves the
	// design's series, so auto serves them even when the scenario has the
	// build's monitor columns.
	Demo          bool
	DesignSeries  string // auto | on | off; "" = auto
	Diag          round.Options
	TelemetryPath string // "" = /metrics
	// Cluster is --cluster: cluster="NAME" on every series served ("" for
	// none), so rules and dashboards group by cluster.
	Cluster string
	Logger  *slog.Logger
	// NoGCAfterRound skips the full collection at the end of every
	// completed round (tests and benchmarks that compare both).
	NoGCAfterRound bool
	// Now is the wall clock (round duration, /readyz); nil = time.Now.
	// Tests inject one; diag never sees it.
	Now func() time.Time
	// MaxLabelValueBytes caps every served label value; 0 =
	// DefaultMaxLabelValueBytes (serve.go).
	MaxLabelValueBytes int
}

// published is one immutable view of the exporter's state.
type published struct {
	res                 *round.Result // the latest completed round; nil before
	design              bool
	lastSuccess         time.Time
	lastSuccessDuration float64
	lastDuration        float64
	haveDuration        bool
	statements          float64
	rounds, failures    float64
	skipped             float64
	lastError           string
	// consecutiveFailures counts the failed rounds since the last completed
	// one (a collection error, a timeout, or a critical source unreadable).
	consecutiveFailures int
	// lastSample is the cluster time of the latest completed round: a round
	// that could not read a critical source is published (what it read is
	// served, the rest withheld) but is no sample.
	lastSample time.Time
}

// NotReadyAfterFailures: /readyz answers 503 after this many failed rounds
// in a row (docs/exporter.md "Endpoints"), or when no round completed
// within two intervals.
const NotReadyAfterFailures = 2

// Exporter runs rounds and serves their results.
type Exporter struct {
	opt   Options
	state *round.State
	cur   atomic.Pointer[published]
	reg   *prometheus.Registry
	mu    sync.Mutex  // one round at a time
	enc   encodeCache // the /metrics bodies of the published state (serve.go)
	round int
	said  bool
	// demoStart is the wall-clock time of a demo's first round: the demo's
	// simulated cluster clock is exported on the wall clock from there, so
	// `time() - last_sample_timestamp` reads fresh (docs/exporter.md "--demo").
	demoStart time.Time
}

// New builds an exporter; nothing runs until Run or Round.
func New(opt Options) (*Exporter, error) {
	if opt.Source == nil {
		return nil, errors.New("exporter: no source")
	}
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	if opt.RoundTimeout <= 0 {
		opt.RoundTimeout = opt.Interval
	}
	switch opt.DesignSeries {
	case "":
		opt.DesignSeries = ModeAuto
	case ModeAuto, ModeOn, ModeOff:
	default:
		return nil, fmt.Errorf("exporter: --design-series must be auto, on or off, got %q", opt.DesignSeries)
	}
	if opt.TelemetryPath == "" {
		opt.TelemetryPath = "/metrics"
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	e := &Exporter{opt: opt, state: round.NewState(opt.Diag), reg: prometheus.NewRegistry()}
	e.cur.Store(&published{})
	var reg prometheus.Registerer = e.reg
	if opt.Cluster != "" {
		reg = prometheus.WrapRegistererWith(prometheus.Labels{"cluster": opt.Cluster}, e.reg)
	}
	if err := reg.Register(collector{e: e, d: newDescs()}); err != nil {
		return nil, err
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return e, nil
}

// Registry is the exporter's registry (tests gather from it directly).
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// State is the diag state (tests).
func (e *Exporter) State() *round.State { return e.state }

// Last returns the latest completed round's result, nil before the first.
func (e *Exporter) Last() *round.Result { return e.cur.Load().res }

// Round runs one round now: collect within the round timeout, compute,
// publish. A failed round keeps the last result served and counts the
// failure. Rounds never overlap: a call while one runs waits for it.
func (e *Exporter) Round(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.round++
	start := e.opt.Now()
	if e.round == 1 {
		e.demoStart = start
	}
	rctx, cancel := context.WithTimeoutCause(ctx, e.opt.RoundTimeout, roundTimeout(e.opt.RoundTimeout))
	snap, err := e.opt.Source(rctx, e.round)
	err = nameRoundTimeout(rctx, err)
	cancel()
	if err == nil && snap == nil {
		err = errors.New("the source returned no snapshot")
	}
	prev := e.cur.Load()
	next := *prev
	if err != nil {
		next.failures++
		next.consecutiveFailures++
		next.lastDuration, next.haveDuration = e.opt.Now().Sub(start).Seconds(), true
		next.lastError = err.Error()
		e.cur.Store(&next)
		e.opt.Logger.Warn("round failed; the last result stays served", "round", e.round, "err", err)
		return err
	}
	res := e.state.Round(snap)
	dur := e.opt.Now().Sub(start).Seconds()
	next.res = res
	next.lastDuration, next.haveDuration = dur, true
	next.statements = float64(snap.Source.Queries)
	next.design = e.designFor(res)
	failed := res.Failed()
	if failed {
		// Blind, not healthy: the round is published so that what it read
		// is current and the rest is withheld with its reason, but it
		// counts as failed and is no sample (docs/exporter.md).
		next.failures++
		next.consecutiveFailures++
		next.lastError = res.FailedReason()
	} else {
		next.rounds++
		next.consecutiveFailures = 0
		next.lastSuccess = e.opt.Now()
		next.lastSuccessDuration = dur
		next.lastSample = res.ClusterTime
		if e.opt.Demo {
			next.lastSample = e.demoStart.Add(time.Duration(e.round-1) * e.opt.Interval)
		}
		next.lastError = ""
	}
	// The round's snapshot and analysis (about 85 MB at the design's scale)
	// are garbage now; what stays is the published result, the change points
	// and the counters. Collecting here, while the live heap is smallest,
	// bounds the next round's peak heap by that live set plus one round's
	// allocation, instead of twice the live set of whichever moment inside a
	// round the pacer happened to mark (docs/performance.md "dorisdiag
	// exporter"). One full collection per interval costs a few tens of ms of
	// CPU against the round's hundreds.
	snap, res = nil, nil
	if !e.opt.NoGCAfterRound {
		runtime.GC()
	}
	// Published after the collection, and the body encoded in the formats
	// scraped last round (serve.go): that allocation lands on the smallest
	// heap, not on top of the round's garbage, and no scrape waits for it.
	e.cur.Store(&next)
	e.prewarm()
	if failed {
		e.opt.Logger.Warn("round failed: a critical source could not be read; its series are withheld", "round", e.round, "err", next.lastError)
		return errors.New(next.lastError)
	}
	if !e.said {
		e.said = true
		if next.design {
			e.opt.Logger.Info("serving the design's series (apache/doris#69907 §2 Reference), computed client-side", "mode", e.opt.DesignSeries)
		} else {
			e.opt.Logger.Info("not serving the design's series: the build's own monitor exports them; serving the server-vs-client cross-check and the exporter's own series only", "mode", e.opt.DesignSeries)
		}
	}
	return nil
}

func (e *Exporter) designFor(r *round.Result) bool {
	switch e.opt.DesignSeries {
	case ModeOn:
		return true
	case ModeOff:
		return false
	}
	return e.opt.Demo || !r.ServerMonitor
}

// skipped counts the interval ticks a round of duration d covered beyond
// its own: they are skipped, never run late or in parallel.
func skipped(d, interval time.Duration) int {
	if d <= interval || interval <= 0 {
		return 0
	}
	return int(math.Ceil(float64(d)/float64(interval))) - 1
}

func (e *Exporter) addSkipped(n int) {
	if n <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	next := *e.cur.Load()
	next.skipped += float64(n)
	e.cur.Store(&next)
}

// Run runs a round at once and then every interval until ctx is done.
func (e *Exporter) Run(ctx context.Context) {
	t := time.NewTicker(e.opt.Interval)
	defer t.Stop()
	for {
		start := e.opt.Now()
		_ = e.Round(ctx)
		if n := skipped(e.opt.Now().Sub(start), e.opt.Interval); n > 0 {
			e.addSkipped(n)
			e.opt.Logger.Warn("round overran the interval; ticks skipped", "skipped", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// A tick that fell during the round is dropped by the ticker (it
			// keeps one); the round after it starts now, not twice.
		}
	}
}

// Ready reports whether a round completed within two intervals and fewer
// than NotReadyAfterFailures rounds failed since.
func (e *Exporter) Ready() bool {
	p := e.cur.Load()
	return p.res != nil && !p.lastSuccess.IsZero() && p.consecutiveFailures < NotReadyAfterFailures &&
		e.opt.Now().Sub(p.lastSuccess) <= 2*e.opt.Interval
}

// Handler serves the telemetry path, /healthz (alive), /readyz (a round
// completed within two intervals) and a landing page.
func (e *Exporter) Handler() (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle(e.opt.TelemetryPath, e.metricsHandler())
	mux.HandleFunc("/healthz", healthz)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if e.Ready() {
			_, _ = w.Write([]byte("ready\n"))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		p := e.cur.Load()
		msg := "not ready: no round completed within two intervals"
		if p.consecutiveFailures >= NotReadyAfterFailures {
			msg = fmt.Sprintf("not ready: %d rounds failed in a row", p.consecutiveFailures)
		}
		if p.lastError != "" {
			// The error can hold the server's text: escaped (Go syntax,
			// without the quotes) so an ESC, CR or bidi control is inert.
			q := strconv.Quote(p.lastError)
			msg += "; last error: " + q[1:len(q)-1]
		}
		_, _ = w.Write([]byte(msg + "\n"))
	})
	if e.opt.TelemetryPath != "/" {
		lp, err := web.NewLandingPage(web.LandingConfig{
			Name:        "dorisdiag exporter",
			Description: "The Doris changelog/IVM monitoring series of apache/doris#69907, computed client-side",
			Links: []web.LandingLinks{{Address: e.opt.TelemetryPath, Text: "Metrics"},
				{Address: "/healthz", Text: "Health"}, {Address: "/readyz", Text: "Readiness"}},
		})
		if err != nil {
			return nil, err
		}
		mux.Handle("/", lp)
	}
	return mux, nil
}
