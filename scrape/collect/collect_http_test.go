package collect_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

const httpSecret = "Hx7-emulated-pw"

// TestTSOFollowerAsksMaster: the session lands on a follower FE (emulator
// Follower mode, TSOAction answers "Current FE is not master" there), the
// information_schema and SHOW clocks are unavailable: the collector asks
// /api/tso on the Master's HttpPort from SHOW FRONTENDS, without
// credentials first, then once with them when TSOAction asks ("Need auth
// information.").
func TestTSOFollowerAsksMaster(t *testing.T) {
	e, cfg := startEmulator(t, emulator.Sample(), emulator.Options{Follower: true, NoTSOStatus: true, NoShowTSO: true,
		User: "diag", Password: httpSecret})
	got := collectLive(t, cfg)
	if got.Cluster.ClockSource != snapshot.SourceHTTPTSO || got.Cluster.CurrentTSO != emulator.Sample().Cluster.CurrentTSO {
		t.Fatalf("clock %q %d", got.Cluster.ClockSource, got.Cluster.CurrentTSO)
	}
	var master []emulator.HTTPRequest
	for _, r := range e.HTTPRequests() {
		switch {
		case r.Server == "fe" && strings.HasPrefix(r.Path, "/api/tso"):
			t.Errorf("the follower was asked /api/tso although SHOW FRONTENDS named the Master")
		case r.Server == "fe-master":
			master = append(master, r)
		}
	}
	if len(master) != 2 || master[0].Authorization || !master[1].Authorization {
		t.Errorf("Master FE requests %+v: want /api/tso without, then with Authorization", master)
	}
	for _, g := range got.CouldNotRead {
		if g.Source == snapshot.SourceHTTPTSO {
			t.Errorf("a gap for the clock that was read: %+v", g)
		}
	}
}

// TestTSOErrorCarriesDorisReason: /api/tso errors carry Doris's own reason
// (the envelope's data), name the host:port, and never the password.
func TestTSOErrorCarriesDorisReason(t *testing.T) {
	e, cfg := startEmulator(t, emulator.Sample(), emulator.Options{Follower: true, User: "diag", Password: httpSecret})
	_, err := fetchTSO(context.Background(), cfg, e.HTTPAddr())
	want := "GET http://" + e.HTTPAddr() + "/api/tso: FE answered code 400 (Bad Request): Current FE is not master"
	if err == nil || err.Error() != want {
		t.Errorf("follower: error %v, want %q", err, want)
	}
	// The Master asks for credentials, gets the wrong ones, refuses them.
	cfg.Password = "Wrong-" + httpSecret
	_, err = fetchTSO(context.Background(), cfg, e.MasterHTTPAddr())
	if err == nil || !strings.Contains(err.Error(), "Access denied for user 'diag'") || !strings.Contains(err.Error(), e.MasterHTTPAddr()) {
		t.Errorf("wrong password: %v", err)
	}
	for _, s := range []string{cfg.Password, httpSecret} {
		if err != nil && strings.Contains(err.Error(), s) {
			t.Fatalf("the error carries the password: %v", err)
		}
	}
}

// TestNoCredentialsToFEMetrics: snapshot --with-metrics fetches the FE's
// /metrics, which is public (MetricsAction): no Authorization header goes,
// although a password is configured (it used to be sent ahead of time).
func TestNoCredentialsToFEMetrics(t *testing.T) {
	e, cfg := startEmulator(t, emulator.Sample(), emulator.Options{User: "diag", Password: httpSecret})
	cfg.WithMetrics = true
	got := collectLive(t, cfg)
	if len(got.Metrics) != 1 || got.Metrics[0].Error != "" {
		t.Fatalf("metrics %+v", got.Metrics)
	}
	n := 0
	for _, r := range e.HTTPRequests() {
		if r.Path == "/metrics" {
			n++
			if r.Authorization {
				t.Errorf("credentials sent to the FE /metrics: %+v", r)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d /metrics requests, want 1", n)
	}
}

// TestBEMetricsAuthChallenge: BEs with enable_all_http_auth=true, found
// through SHOW BACKENDS: the first request carries nothing, the 401 Basic
// challenge gets one retry with the credentials; without credentials the
// 401 is reported, naming the BE.
func TestBEMetricsAuthChallenge(t *testing.T) {
	s := emulator.Sample()
	s.Metrics = append(s.Metrics, snapshot.MetricsPayload{Kind: "be", Target: "be1.demo.invalid:8040", Body: "# TYPE doris_be_up gauge\ndoris_be_up 1\n"})
	e, cfg := startEmulator(t, s, emulator.Options{BEHTTP: true, EnableAllHTTPAuth: true, User: "diag", Password: httpSecret})
	got := collectLive(t, cfg)
	var targets []scrape.Target
	for _, b := range got.Backends {
		targets = append(targets, scrape.Target{Kind: "be", Host: net.JoinHostPort(b.Host, strconv.Itoa(b.HTTPPort))})
	}
	if len(targets) != 1 || targets[0].Host != e.BEHTTPAddrs()[0] {
		t.Fatalf("SHOW BACKENDS gave %+v, want the BE listener %v", targets, e.BEHTTPAddrs())
	}
	o := scrape.FetchOptions{KeepBody: true, Credentials: &scrape.Credentials{User: "diag", Password: httpSecret}}
	res := scrape.ScrapeAll(context.Background(), scrape.NewClient(o), targets, o)
	if res[0].Err != nil || !strings.Contains(string(res[0].Body), "doris_be_up 1") {
		t.Fatalf("scrape: %v", res[0].Err)
	}
	var be []emulator.HTTPRequest
	for _, r := range e.HTTPRequests() {
		if strings.HasPrefix(r.Server, "be ") {
			be = append(be, r)
		}
	}
	if len(be) != 2 || be[0].Authorization || !be[1].Authorization {
		t.Errorf("BE requests %+v: want the first without Authorization, one retry with it", be)
	}

	o.Credentials = nil
	res = scrape.ScrapeAll(context.Background(), scrape.NewClient(o), targets, o)
	if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "401") || !strings.Contains(res[0].Err.Error(), targets[0].Host) {
		t.Errorf("without credentials: %v", res[0].Err)
	}
}

// fetchTSO is the collector's clock fallback, with the defaults Collect
// applies, as the tests above call it.
func fetchTSO(ctx context.Context, cfg scrape.Config, target string) (string, error) {
	cfg.Defaults()
	t, _, err := scrape.FetchTSO(ctx, cfg, target)
	return t.String(), err
}
