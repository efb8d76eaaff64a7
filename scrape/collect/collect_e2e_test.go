package collect_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/emutest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator/roundtrip"
	"github.com/dorisdiag/dorisdiag/scrape"
	"github.com/dorisdiag/dorisdiag/scrape/collect"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// startEmulator serves snap on 127.0.0.1:0 and returns the collector config
// that points at it.
func startEmulator(t testing.TB, snap *snapshot.Snapshot, opts emulator.Options) (*emulator.Emulator, scrape.Config) {
	t.Helper()
	return emutest.Start(t, snap, opts)
}

func collectLive(t testing.TB, cfg scrape.Config) *snapshot.Snapshot {
	t.Helper()
	s, err := collect.Collect(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return s
}

// diffJSON compares two snapshots field by field through their JSON and
// reports the first differing lines.
func diffJSON(t *testing.T, name string, want, got *snapshot.Snapshot) {
	t.Helper()
	wb, _ := json.MarshalIndent(want, "", " ")
	gb, _ := json.MarshalIndent(got, "", " ")
	if string(wb) == string(gb) {
		return
	}
	wl, gl := strings.Split(string(wb), "\n"), strings.Split(string(gb), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			lo := max(0, i-8)
			t.Errorf("%s: round trip differs at line %d:\n--- want ---\n%s\n--- got ---\n%s", name, i+1,
				strings.Join(wl[lo:min(len(wl), i+4)], "\n"), strings.Join(gl[lo:min(len(gl), i+4)], "\n"))
			return
		}
	}
}

func TestRoundTripSample(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		want := emulator.Sample()
		_, cfg := startEmulator(t, want, emulator.Options{Legacy: legacy})
		got := collectLive(t, cfg)
		if len(got.CouldNotRead) != 0 {
			t.Errorf("legacy=%v: could not read: %+v", legacy, got.CouldNotRead)
		}
		if len(got.Malformed) != 0 {
			t.Errorf("legacy=%v: malformed: %+v", legacy, got.Malformed)
		}
		diffJSON(t, "sample legacy="+strconv.FormatBool(legacy), roundtrip.Comparable(want, legacy), roundtrip.Comparable(got, legacy))
		if got.Cluster.ClockSource != snapshot.SourceTSOStatus {
			t.Errorf("clock source %q", got.Cluster.ClockSource)
		}
		caps := got.Capabilities.Sources
		if legacy == caps[snapshot.SourceIVMMVStatus].Present {
			t.Errorf("legacy=%v: ivm_mv_status present=%v", legacy, caps[snapshot.SourceIVMMVStatus].Present)
		}
	}
}

func TestCollectCountsAndQueries(t *testing.T) {
	e, cfg := startEmulator(t, emulator.Sample(), emulator.Options{QueryLog: true})
	got := collectLive(t, cfg)
	counts := map[string]int{"streams": len(got.Streams), "consumption": len(got.Consumption), "mvs": len(got.MVs),
		"jobs": len(got.Jobs), "tasks": len(got.Tasks), "tables": len(got.Tables), "partitions": len(got.Partitions),
		"mv_status": len(got.MVStatus), "deps": len(got.Dependencies), "fe": len(got.Frontends), "be": len(got.Backends)}
	want := map[string]int{"streams": 4, "consumption": 4, "mvs": 2, "jobs": 2, "tasks": 2, "tables": 3, "partitions": 2,
		"mv_status": 1, "deps": 1, "fe": 2, "be": 1}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d", k, counts[k], v)
		}
	}
	if got.Source.Queries != len(e.Queries()) {
		t.Errorf("collector counted %d statements, emulator received %d:\n%s", got.Source.Queries, len(e.Queries()), strings.Join(e.Queries(), "\n"))
	}
	t.Logf("%d statements:\n%s", len(e.Queries()), strings.Join(e.Queries(), "\n"))
}
