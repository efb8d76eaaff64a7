package exporter

import (
	"context"
	"errors"
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
		return Advance(base, time.Duration(round-1)*interval)
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
