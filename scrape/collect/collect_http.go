package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// metrics fetches GET /metrics of the FE the collector is connected to
// (Config.WithMetrics) through get: no credentials are sent, since the FE's
// MetricsAction is public ("Metrics endpoint is public - no authentication
// required", fe-core/.../httpv2/rest/MetricsAction.java @02da1ed0); they
// would go only in answer to a Basic challenge. A failure is recorded in
// the payload and as a gap; the multi-target fetcher lives with the
// metrics commands.
func (col *collector) metrics(ctx context.Context) {
	target := col.cfg.FEHTTPAddr(net.JoinHostPort(col.cfg.Host, strconv.Itoa(col.cfg.HTTPPort)))
	url := col.cfg.Scheme() + "://" + target + "/metrics"
	p := snapshot.MetricsPayload{Kind: "fe", Target: target, URL: url, FetchedAt: time.Now().UTC(), IsMaster: col.connectedMaster}
	o, err := col.cfg.FetchOptions(col.cfg.MetricsMaxBytes)
	// The body is read once, straight into the string the snapshot keeps
	// (no growing buffer, no second copy).
	var body strings.Builder
	if err == nil {
		_, err = scrape.FetchMetricsTo(ctx, scrape.NewClient(o), url, o, func(r io.Reader) error {
			_, err := io.Copy(&body, r)
			return err
		})
	}
	if err != nil {
		p.Error = err.Error()
		col.gap(snapshot.SourceMetrics, url, err)
		col.capability(snapshot.SourceMetrics, false, nil)
	} else {
		p.Body = body.String()
		p.Bytes = int64(len(p.Body))
		col.capability(snapshot.SourceMetrics, true, nil)
	}
	col.snap.Metrics = append(col.snap.Metrics, p)
}
