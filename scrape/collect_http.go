package scrape

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// DefaultMetricsMaxBytes bounds a /metrics body: the seed's worst Master FE
// payload is about 50 MB (design.md "Bounded reads").
const DefaultMetricsMaxBytes = 64 << 20

// metrics fetches GET /metrics of the FE the collector is connected to
// (Config.WithMetrics). A failure is recorded in the payload and as a gap;
// the richer multi-target fetcher lives with the metrics commands.
func (col *collector) metrics(ctx context.Context) {
	target := net.JoinHostPort(col.cfg.Host, strconv.Itoa(col.cfg.HTTPPort))
	url := "http://" + target + "/metrics"
	p := snapshot.MetricsPayload{Kind: "fe", Target: target, URL: url, FetchedAt: time.Now().UTC()}
	for _, fe := range col.snap.Frontends {
		if fe.IsMaster && fe.Host == col.cfg.Host {
			p.IsMaster = true
		}
	}
	if len(col.snap.Frontends) == 1 {
		p.IsMaster = col.snap.Frontends[0].IsMaster
	}
	body, err := httpGet(ctx, col.cfg, url, col.cfg.MetricsMaxBytes)
	if err != nil {
		p.Error = err.Error()
		col.gap(snapshot.SourceMetrics, url, err)
		col.capability(snapshot.SourceMetrics, false, nil)
	} else {
		p.Body = string(body)
		p.Bytes = int64(len(body))
		col.capability(snapshot.SourceMetrics, true, nil)
	}
	col.snap.Metrics = append(col.snap.Metrics, p)
}
