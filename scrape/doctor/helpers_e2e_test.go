package doctor_test

import (
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/emutest"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// startEmulator serves snap on 127.0.0.1:0 and returns the collector config
// that points at it.
func startEmulator(t testing.TB, snap *snapshot.Snapshot, opts emulator.Options) (*emulator.Emulator, scrape.Config) {
	t.Helper()
	return emutest.Start(t, snap, opts)
}
