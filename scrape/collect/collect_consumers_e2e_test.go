package collect_test

import (
	"encoding/json"
	"testing"

	"github.com/dorisdiag/dorisdiag/doris/doristest"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestRoundTripConsumers: the emulator serves the offset tables a
// scenario's external consumers name (a DUPLICATE history per consumer);
// a live collection given the same declarations reads back exactly the
// scenario's reads — the statement, MAX(offset_timestamp) and
// MAX(update_time) as text, in the connector's zone — and the source
// tables' TTL; a consumer whose offset table does not exist is recorded
// with the server's error, never dropped.
func TestRoundTripConsumers(t *testing.T) {
	snap, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.ExternalConsumers) == 0 {
		t.Fatal("incident has no external consumers")
	}
	e, cfg := startEmulator(t, snap, emulator.Options{QueryLog: true})
	var decls []snapshot.ExternalConsumer
	for _, c := range snap.ExternalConsumers {
		decls = append(decls, snapshot.ExternalConsumer{Name: c.Name, OffsetTable: c.OffsetTable, ConsumerID: c.ConsumerID,
			SourceTable: c.SourceTable, IncrementType: c.IncrementType, TimeZone: c.TimeZone, MaxPublishAgeSeconds: c.MaxPublishAgeSeconds})
	}
	decls = append(decls, snapshot.ExternalConsumer{Name: "gone", OffsetTable: "ops.no_such_table", ConsumerID: "x", SourceTable: "demo.orders", IncrementType: "detail"})
	cfg.Consumers = decls
	got := collectLive(t, cfg)
	if len(got.ExternalConsumers) != len(decls) {
		t.Fatalf("%d consumers read, want %d", len(got.ExternalConsumers), len(decls))
	}
	want, _ := json.MarshalIndent(snap.ExternalConsumers, "", " ")
	have, _ := json.MarshalIndent(got.ExternalConsumers[:len(decls)-1], "", " ")
	if string(want) != string(have) {
		t.Errorf("consumers read live:\n%s\nwant the scenario's:\n%s", have, want)
	}
	gone := got.ExternalConsumers[len(decls)-1]
	if gone.Read || gone.Error == "" || gone.Query == "" {
		t.Errorf("missing offset table: %+v, want read=false with the error and the statement", gone)
	}
	for _, c := range got.ExternalConsumers {
		db, tbl, _ := c.SourceTableParts()
		found := false
		for _, t := range got.Tables {
			found = found || (t.DB == db && t.Name == tbl && t.TTLSeconds != nil)
		}
		if !found {
			t.Errorf("%s: source table %s has no TTL in the snapshot", c.Name, c.SourceTable)
		}
	}
	for _, q := range e.Queries() {
		if _, _, ok := doristest.Match(q); !ok {
			t.Errorf("statement not in the wire contract: %s", q)
		}
	}
}
