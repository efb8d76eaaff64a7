package collect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scrape"
)

// TestCollectNeverLooksUpReservedNames: a bundled scenario's node names
// (fe1.demo.invalid) are refused before any DNS query leaves the machine
// (the collector's half of scrape's TestReservedNamesAreNeverLookedUp).
func TestCollectNeverLooksUpReservedNames(t *testing.T) {
	if _, err := Collect(context.Background(), scrape.Config{Host: "fe1.demo.invalid", Timeout: time.Second}); err == nil || !strings.Contains(err.Error(), ".invalid") {
		t.Fatalf("Collect: %v", err)
	}
}

// TestLiveWrongPasswordEqualToUserIsNotMasked: over the real MySQL protocol,
// user root with the wrong password "root": the FE's "Access denied for user
// 'root'" reaches the user whole, and no text says the password is the user
// name.
func TestLiveWrongPasswordEqualToUserIsNotMasked(t *testing.T) {
	e, err := emulator.New(emulator.Sample(), emulator.Options{User: "root", Password: "Right-pw-77"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	host, port := splitAddr(t, e.Addr())
	_, err = Collect(context.Background(), scrape.Config{Host: host, Port: port, User: "root", Password: "root", Timeout: hopTimeout})
	if err == nil {
		t.Fatal("a wrong password was accepted")
	}
	msg := err.Error()
	if strings.Contains(msg, "***") || !strings.Contains(msg, "'root'") {
		t.Fatalf("error %q: want the user name intact and nothing masked", msg)
	}
}
