package exporter

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/scrape/collect"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// LiveSource collects the cluster with the read-only collector (the same
// allowlist and O(databases) statements as every command) within the
// round's context.
func LiveSource(cfg scrape.Config) Source {
	return func(ctx context.Context, _ int) (*snapshot.Snapshot, error) {
		return collect.Collect(ctx, cfg)
	}
}

// DemoSource serves a bundled scenario with a simulated clock: round n sees
// the scenario with its cluster time (current TSO and Now) advanced by
// (n−1)×interval. Nothing writes or consumes in between, so pending ages,
// delays and task ages grow by one interval per round and headrooms shrink
// (docs/exporter.md "--demo"). It never opens a socket.
func DemoSource(base *snapshot.Snapshot, interval time.Duration) Source {
	return func(ctx context.Context, round int) (*snapshot.Snapshot, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return AdvanceMonitor(base, time.Duration(round-1)*interval)
	}
}

// Advance returns a shallow copy of s whose cluster clock is d later. The
// rows are shared with s: diag never mutates a snapshot.
func Advance(s *snapshot.Snapshot, d time.Duration) (*snapshot.Snapshot, error) {
	if s == nil {
		return nil, errors.New("no snapshot")
	}
	c := *s
	ms := s.Cluster.CurrentTSO.Physical() + d.Milliseconds()
	t, err := tso.Compose(ms, s.Cluster.CurrentTSO.Logical())
	if err != nil {
		return nil, err
	}
	c.Cluster.CurrentTSO = t
	c.Cluster.Now = time.UnixMilli(ms).UTC()
	if !s.TakenAt.IsZero() {
		c.TakenAt = s.TakenAt.Add(d)
	}
	return &c, nil
}

// AdvanceMonitor is Advance for the demo: the scenario's own FE monitor
// (the design's sampled columns, and the Master's last-sample series in its
// /metrics) samples on as the clock moves, so that a demo round never reads
// a frozen server round as stale or as disagreeing with the client
// (docs/exporter.md "--demo"): sample times move by d, pending ages and
// delays that are not 0 grow by d, headrooms shrink by d (a headroom that
// falls below 0 makes the offset unable to resume).
func AdvanceMonitor(s *snapshot.Snapshot, d time.Duration) (*snapshot.Snapshot, error) {
	c, err := Advance(s, d)
	if err != nil || d == 0 {
		return c, err
	}
	ms, sec := d.Milliseconds(), d.Seconds()
	addMs := func(p *int64) *int64 {
		if p == nil {
			return nil
		}
		v := *p + ms
		return &v
	}
	grow := func(p *float64) *float64 {
		if p == nil || *p <= 0 {
			return p
		}
		v := *p + sec
		return &v
	}
	shrink := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		v := *p - sec
		return &v
	}
	resume := func(h *float64, cr *bool) *bool {
		if h == nil || cr == nil {
			return cr
		}
		v := *h >= 0
		return &v
	}
	// A slice is copied only when the scenario has the monitor's columns in
	// it (at the design's scale a copy of every row each round cost RSS).
	if slices.ContainsFunc(s.Streams, func(st snapshot.Stream) bool { return st.MonitorSampleTimeMs != nil }) {
		c.Streams = append([]snapshot.Stream(nil), s.Streams...)
	}
	for i := range c.Streams {
		st := &c.Streams[i]
		if st.MonitorSampleTimeMs == nil {
			continue
		}
		st.MonitorSampleTimeMs = addMs(st.MonitorSampleTimeMs)
		st.MaxPendingAgeSeconds = grow(st.MaxPendingAgeSeconds)
		st.MinRetentionHeadroomSeconds = shrink(st.MinRetentionHeadroomSeconds)
		st.CanResume = resume(st.MinRetentionHeadroomSeconds, st.CanResume)
	}
	sampled := slices.ContainsFunc(s.Consumption, func(p snapshot.Consumption) bool {
		return p.PendingAgeSeconds != nil || p.RetentionHeadroomSeconds != nil || p.RetentionFloorTSO != nil
	})
	if sampled {
		c.Consumption = append([]snapshot.Consumption(nil), s.Consumption...)
	}
	for i := range c.Consumption {
		if !sampled {
			break
		}
		p := &c.Consumption[i]
		p.PendingAgeSeconds = grow(p.PendingAgeSeconds)
		if p.RetentionHeadroomSeconds != nil {
			p.RetentionHeadroomSeconds = shrink(p.RetentionHeadroomSeconds)
			p.CanResume = resume(p.RetentionHeadroomSeconds, p.CanResume)
		}
		if p.RetentionFloorTSO != nil {
			if t, err := tso.Compose(p.RetentionFloorTSO.Physical()+ms, p.RetentionFloorTSO.Logical()); err == nil {
				p.RetentionFloorTSO = &t
			}
		}
	}
	c.MVStatus = append([]snapshot.MVStatus(nil), s.MVStatus...)
	for i := range c.MVStatus {
		m := &c.MVStatus[i]
		m.SampleTimeMs = addMs(m.SampleTimeMs)
		m.DataDelaySeconds = grow(m.DataDelaySeconds)
		m.MaxExcludedDelaySeconds = grow(m.MaxExcludedDelaySeconds)
		m.MinRetentionHeadroomSeconds = shrink(m.MinRetentionHeadroomSeconds)
		m.CurrentTaskAgeSeconds = grow(m.CurrentTaskAgeSeconds)
	}
	c.Dependencies = append([]snapshot.Dependency(nil), s.Dependencies...)
	for i := range c.Dependencies {
		p := &c.Dependencies[i]
		p.SampleTimeMs = addMs(p.SampleTimeMs)
		p.DelaySeconds = grow(p.DelaySeconds)
		p.MinRetentionHeadroomSeconds = shrink(p.MinRetentionHeadroomSeconds)
	}
	c.Metrics = append([]snapshot.MetricsPayload(nil), s.Metrics...)
	for i := range c.Metrics {
		m := &c.Metrics[i]
		if !m.FetchedAt.IsZero() {
			m.FetchedAt = m.FetchedAt.Add(d)
		}
		m.Body = lastSampleLine.ReplaceAllStringFunc(m.Body, func(line string) string {
			sub := lastSampleLine.FindStringSubmatch(line)
			v, err := strconv.ParseFloat(sub[2], 64)
			if err != nil {
				return line
			}
			return sub[1] + " " + strconv.FormatFloat(v+sec, 'f', -1, 64)
		})
	}
	return c, nil
}

// lastSampleLine is the Master's monitor timestamp sample in a /metrics body.
var lastSampleLine = regexp.MustCompile(`(?m)^(doris_fe_changelog_ivm_monitor_last_sample_timestamp_seconds(?:\{[^}\n]*\})?) ([0-9.eE+-]+)$`)
