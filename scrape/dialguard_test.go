package scrape_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/internal/testnet"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/scrape/collect"
)

// TestDialGuardSeesEveryDial: the process-wide guard is asked before the
// MySQL connect and before an HTTP fetch, with the address; when it refuses,
// no connection reaches the listener and the error is the guard's.
func TestDialGuardSeesEveryDial(t *testing.T) {
	var accepted atomic.Int32
	addr := testnet.ScriptedListener(t, func(c net.Conn) { accepted.Add(1); c.Close() })
	refuse := errors.New("offline test: no socket")
	var asked []string
	restore := scrape.SetDialGuard(func(network, a string) error {
		asked = append(asked, network+" "+a)
		return refuse
	})
	defer restore()

	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := collect.Collect(ctx, scrape.Config{Host: host, Port: p, HTTPPort: p, Timeout: 5 * time.Second}); err == nil || !strings.Contains(err.Error(), refuse.Error()) {
		t.Errorf("Collect: %v, want the guard's error", err)
	}
	fo := scrape.FetchOptions{RequestTimeout: 5 * time.Second}
	if _, err := scrape.FetchMetrics(ctx, scrape.NewClient(fo), "http://"+addr+"/metrics", fo); err == nil || !strings.Contains(err.Error(), refuse.Error()) {
		t.Errorf("FetchMetrics: %v, want the guard's error", err)
	}
	if len(asked) < 2 || asked[0] != "tcp "+addr || asked[len(asked)-1] != "tcp "+addr {
		t.Errorf("guard asked %v, want the MySQL and the HTTP dial of %s", asked, addr)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections reached the listener past the guard", n)
	}
	restore()
	if _, err := scrape.FetchMetrics(ctx, scrape.NewClient(fo), "http://"+addr+"/metrics", fo); err == nil || strings.Contains(err.Error(), refuse.Error()) {
		t.Errorf("after restore: %v, want the listener's hang-up", err)
	}
}
