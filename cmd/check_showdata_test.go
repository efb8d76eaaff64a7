package cmd

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// TestCheckLiveHealthyShowData: `check` on the healthy scenario over the
// wire exits 0 and shows the changelog size per table (S5) — as an ADMIN
// user, and as one without ADMIN on a build whose PROPERTIES form is refused
// (the per-table SHOW DATA FROM db.tbl still answers). Before, every
// collection sent SHOW DATA FROM `db`, which real Doris rejects with
// "No database selected", and check went red on every cluster.
func TestCheckLiveHealthyShowData(t *testing.T) {
	for _, opts := range []emulator.Options{{}, {NoAdmin: true, NoDataProperties: true}} {
		snap, err := scenario.Load("healthy")
		if err != nil {
			t.Fatal(err)
		}
		args := liveArgs(t, snap, opts)
		out, stderr, code := run(t, nil, "", append([]string{"check", "--no-metrics"}, args...)...)
		if code != cmdutil.ExitOK {
			t.Errorf("%+v: exit %d, want 0: %s\n%s", opts, code, stderr, out)
		}
		if !strings.Contains(out, "over 9/9 table(s) (largest demo.sales ~4.8 GiB") {
			t.Errorf("%+v: no per-table changelog size in:\n%s", opts, out)
		}
		if db := strings.Contains(out, "per database demo "); db == opts.NoAdmin {
			t.Errorf("%+v: per-database size shown=%v:\n%s", opts, db, out)
		}
	}
}
