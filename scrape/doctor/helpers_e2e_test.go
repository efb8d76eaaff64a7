package doctor_test

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// startEmulator serves snap on 127.0.0.1:0 and returns the collector config
// that points at it.
func startEmulator(t testing.TB, snap *snapshot.Snapshot, opts emulator.Options) (*emulator.Emulator, scrape.Config) {
	t.Helper()
	e, err := emulator.New(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	p, _ := strconv.Atoi(port)
	hp, _ := strconv.Atoi(hport)
	return e, scrape.Config{Host: host, Port: p, HTTPPort: hp, User: opts.User, Password: opts.Password, Timeout: 10 * time.Second}
}
