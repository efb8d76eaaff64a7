package collect_test

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// TestLiveExcludedTriggerTablesFromMapForm: real Doris writes
// mv_infos().MvProperties as Java Map.toString()
// ("{excluded_trigger_tables=products, partition_sync_limit=100}",
// MetadataGenerator.mtmvMetadataResult), and the emulator serves that form. On
// a build without ivm_dependencies only MvProperties names an excluded
// trigger table: the live path must find it, read the table's properties and
// partitions, and parse it into the typed field diag reads. (The parser this
// replaced read JSON or a double-quoted value only: it found nothing here.)
func TestLiveExcludedTriggerTablesFromMapForm(t *testing.T) {
	want, err := scenario.Load("legacy")
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	for _, m := range want.MVs {
		if m.Name == "mv_product_sales" {
			raw = m.MvProperties
		}
	}
	if !strings.HasPrefix(raw, "{excluded_trigger_tables=") || strings.Contains(raw, `"`) {
		t.Fatalf("the scenario must serve the Java map form, got %q", raw)
	}
	_, cfg := startEmulator(t, want, emulator.Options{Legacy: true})
	got := collectLive(t, cfg)
	if len(got.Dependencies) != 0 {
		t.Fatal("legacy build: ivm_dependencies must not be read")
	}
	var mv *snapshot.MVInfo
	for i := range got.MVs {
		if got.MVs[i].Name == "mv_product_sales" {
			mv = &got.MVs[i]
		}
	}
	if mv == nil {
		t.Fatal("mv_product_sales not collected")
	}
	if mv.MvProperties != raw {
		t.Errorf("raw MvProperties not kept: %q, served %q", mv.MvProperties, raw)
	}
	if mv.Properties.Shape != "map" || !mv.Properties.IsExcluded("demo", "products") || len(mv.Properties.ExcludedTriggerTables) != 1 {
		t.Errorf("typed MvProperties %+v: want demo.products excluded, shape map", mv.Properties)
	}
	var table *snapshot.Table
	for i := range got.Tables {
		if got.Tables[i].DB == "demo" && got.Tables[i].Name == "products" {
			table = &got.Tables[i]
		}
	}
	if table == nil {
		t.Fatal("the excluded trigger table demo.products was not collected as a base table")
	}
	parts := 0
	for _, p := range got.Partitions {
		if p.DB == "demo" && p.Table == "products" && p.VisibleTimeMs != nil {
			parts++
		}
	}
	if parts == 0 {
		t.Error("no partition of demo.products with a visible time: the legacy coverage check has no evidence")
	}
	for _, m := range got.Malformed {
		t.Errorf("malformed %s %s %s=%q: %s", m.Source, m.Row, m.Column, m.Value, m.Error)
	}
}
