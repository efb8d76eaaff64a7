package collect_test

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// showDataStatements returns the SHOW DATA statements the emulator received.
func showDataStatements(e *emulator.Emulator) []string {
	var out []string
	for _, q := range e.Queries() {
		if strings.HasPrefix(strings.ToUpper(q), "SHOW DATA") {
			out = append(out, q)
		}
	}
	return out
}

// assertNoFromDB: the statement real Doris rejects ("No database selected":
// a single name after FROM is a table) is never sent.
func assertNoFromDB(t *testing.T, stmts []string) {
	t.Helper()
	for _, q := range stmts {
		if i := strings.Index(strings.ToUpper(q), " FROM "); i >= 0 && !strings.Contains(q[i:], "`.`") {
			t.Errorf("sent %q: FROM takes [db.]table, and the session has no current database", q)
		}
	}
}

// TestShowDataHealthyLive: the healthy scenario collected live reads every
// changelog size, per table and per database, with no SHOW DATA gap.
func TestShowDataHealthyLive(t *testing.T) {
	want, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	e, cfg := startEmulator(t, want, emulator.Options{QueryLog: true})
	got := collectLive(t, cfg)
	for _, g := range got.CouldNotRead {
		t.Errorf("could not read %s: %s (%s)", g.Source, g.Error, g.Query)
	}
	for _, tb := range got.Tables {
		if tb.ChangelogSizeBytes == nil {
			t.Errorf("%s.%s: no changelog size", tb.DB, tb.Name)
		}
	}
	if len(got.Databases) == 0 || got.Databases[0].BinlogSizeBytes == nil || got.Databases[0].Statement != "SHOW DATA PROPERTIES" {
		t.Errorf("per-database sizes: %+v", got.Databases)
	}
	stmts := showDataStatements(e)
	if len(stmts) == 0 || !strings.HasPrefix(stmts[0], "SHOW DATA PROPERTIES ('entire_warehouse' = 'true', 'db_names' = ") {
		t.Errorf("first SHOW DATA statement: %v", stmts)
	}
	assertNoFromDB(t, stmts)
	if c := got.Capabilities.Sources[snapshot.SourceShowData]; !c.Present || c.Note != "" {
		t.Errorf("capability %+v", c)
	}
}

// TestShowDataNoAdmin: a user without ADMIN on a build whose PROPERTIES form
// is refused still gets per-table sizes; the refused forms are a fallback
// noted on the capability, not a gap.
func TestShowDataNoAdmin(t *testing.T) {
	want := emulator.Sample()
	e, cfg := startEmulator(t, want, emulator.Options{QueryLog: true, NoAdmin: true, NoDataProperties: true})
	got := collectLive(t, cfg)
	for _, g := range got.CouldNotRead {
		// Without ADMIN, SHOW FRONTENDS/BACKENDS are refused too (a warning
		// of their own); SHOW DATA must not be a gap.
		if g.Source == snapshot.SourceShowData {
			t.Errorf("could not read %s: %s", g.Source, g.Error)
		}
	}
	sizes := map[string]*int64{}
	texts := map[string]string{}
	for _, tb := range got.Tables {
		sizes[tb.Name], texts[tb.Name] = tb.ChangelogSizeBytes, tb.ChangelogSizeText
	}
	// 123456789 B is served as "117.738 MB"; 1536 as "1.500 KB"; 0 as "0.000 ".
	if p := sizes["orders"]; p == nil || *p != 123457241 || texts["orders"] != "117.738 MB" {
		t.Errorf("orders: %v %q", p, texts["orders"])
	}
	if p := sizes["t`1"]; p == nil || *p != 1536 {
		t.Errorf("t`1: %v", p)
	}
	if p := sizes["events"]; p == nil || *p != 0 {
		t.Errorf("events: %v", p)
	}
	if len(got.Databases) != 0 {
		t.Errorf("per-database sizes without a per-database form: %+v", got.Databases)
	}
	c := got.Capabilities.Sources[snapshot.SourceShowData]
	if !c.Present || !strings.Contains(c.Note, "needs the ADMIN privilege") || !strings.Contains(c.Note, "PROPERTIES") {
		t.Errorf("capability %+v", c)
	}
	stmts := showDataStatements(e)
	assertNoFromDB(t, stmts)
	// PROPERTIES (refused), SHOW DATA with no database (needs ADMIN), then
	// SHOW DATA in each of the two databases (SHOW on each table suffices).
	if len(stmts) != 2+2 || stmts[1] != "SHOW DATA" {
		t.Errorf("statements: %v", stmts)
	}
}

// TestShowDataZeroDatabaseSkipsTables: a database whose BinlogSize is 0 holds
// no changelog data in any table: no per-table statement is sent for it.
func TestShowDataZeroDatabaseSkipsTables(t *testing.T) {
	s := emulator.Sample()
	for i := range s.Tables {
		s.Tables[i].ChangelogSizeBytes = new(int64)
	}
	e, cfg := startEmulator(t, s, emulator.Options{QueryLog: true})
	got := collectLive(t, cfg)
	if stmts := showDataStatements(e); len(stmts) != 1 {
		t.Errorf("statements: %v, want only the PROPERTIES form", stmts)
	}
	for _, tb := range got.Tables {
		if tb.ChangelogSizeBytes == nil || *tb.ChangelogSizeBytes != 0 || tb.ChangelogSizeText != "" {
			t.Errorf("%s: %v %q, want exactly 0", tb.Name, tb.ChangelogSizeBytes, tb.ChangelogSizeText)
		}
	}
}

// TestShowDataLegacy: a build without BinlogSize (ShowDataCommand @64e8c92b)
// is "not on this build": no gap, no malformed value, no per-table statement.
func TestShowDataLegacy(t *testing.T) {
	e, cfg := startEmulator(t, emulator.Sample(), emulator.Options{QueryLog: true, Legacy: true})
	got := collectLive(t, cfg)
	if len(got.CouldNotRead) != 0 || len(got.Malformed) != 0 {
		t.Errorf("gaps %+v, malformed %+v", got.CouldNotRead, got.Malformed)
	}
	for _, tb := range got.Tables {
		if tb.ChangelogSizeBytes != nil {
			t.Errorf("%s: size %d on a build without BinlogSize", tb.Name, *tb.ChangelogSizeBytes)
		}
	}
	c := got.Capabilities.Sources[snapshot.SourceShowData]
	if !c.Present || strings.Contains(strings.Join(c.Columns, ","), "Binlog") || !strings.Contains(c.Note, "not on this build") {
		t.Errorf("capability %+v", c)
	}
	if stmts := showDataStatements(e); len(stmts) != 1 {
		t.Errorf("statements: %v", stmts)
	}
}
