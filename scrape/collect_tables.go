package scrape

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

type tableKey struct{ db, name string }

// tables builds snap.Tables: every base table of a stream or an IVM MV, with
// its key model, changelog properties and TTL, ID, partitions and changelog
// size — in a fixed number of statements filtered by database, plus the
// bounded SHOW DATA and SHOW CREATE TABLE fallbacks (docs/snapshot.md).
func (col *collector) tables(ctx context.Context) {
	byKey := map[tableKey]*snapshot.Table{}
	add := func(ctl, db, name string) {
		if db == "" || name == "" {
			return
		}
		k := tableKey{db, name}
		if _, ok := byKey[k]; !ok {
			byKey[k] = &snapshot.Table{Catalog: ctl, DB: db, Name: name}
		}
	}
	for _, s := range col.snap.Streams {
		if !s.BaseTableDropped {
			add(s.BaseTableCtl, s.BaseTableDB, s.BaseTableName)
		}
	}
	for _, d := range col.snap.Dependencies {
		add(d.BaseTableCtl, d.BaseTableDB, d.BaseTableName)
	}
	// Excluded trigger tables have no internal stream; on builds without
	// ivm_dependencies only the MV's properties name them.
	for _, m := range col.snap.MVs {
		for _, ref := range excludedTriggerTables(m.MvProperties) {
			parts := strings.Split(ref, ".")
			switch len(parts) {
			case 1:
				add("", m.DB, parts[0])
			case 2:
				add("", parts[0], parts[1])
			case 3:
				add(parts[0], parts[1], parts[2])
			}
		}
	}
	if len(byKey) == 0 {
		return
	}
	var dbs []string
	for k := range byKey {
		dbs = append(dbs, k.db)
	}
	in := inList(dbs)
	dbs = uniqueSorted(dbs)

	col.tableProperties(ctx, in, byKey)
	col.tableOptions(ctx, in, byKey)
	col.tableIDs(ctx, in, byKey)
	col.partitions(ctx, in, byKey)
	// SHOW CREATE TABLE first: it fills the changelog properties that tell
	// showData which tables have a changelog worth a per-table statement.
	col.showCreate(ctx, byKey)
	col.showData(ctx, dbs, byKey)

	keys := make([]tableKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].db != keys[j].db {
			return keys[i].db < keys[j].db
		}
		return keys[i].name < keys[j].name
	})
	for _, k := range keys {
		t := byKey[k]
		deriveTTL(t)
		col.snap.Tables = append(col.snap.Tables, *t)
	}
}

// excludedTriggerTables reads excluded_trigger_tables out of mv_infos()
// MvProperties (a JSON object in the builds read; a regexp otherwise).
func excludedTriggerTables(props string) []string {
	var v string
	var m map[string]any
	if err := json.Unmarshal([]byte(props), &m); err == nil {
		v, _ = m["excluded_trigger_tables"].(string)
	} else if sm := excludedRe.FindStringSubmatch(props); sm != nil {
		v = sm[1]
	}
	var out []string
	for _, ref := range strings.Split(v, ",") {
		ref = strings.Trim(strings.TrimSpace(ref), "`")
		if ref != "" {
			out = append(out, ref)
		}
	}
	return out
}

var excludedRe = regexp.MustCompile(`excluded_trigger_tables"?\s*[:=]\s*"([^"]*)"`)

func uniqueSorted(v []string) []string {
	sort.Strings(v)
	out := v[:0]
	for i, s := range v {
		if i == 0 || s != v[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func hasGap(s *snapshot.Snapshot, source string) bool {
	for _, g := range s.CouldNotRead {
		if g.Source == source {
			return true
		}
	}
	return false
}

// isChangelogProperty recognises both spellings (doris.md §0).
func isChangelogProperty(k string) bool {
	return strings.HasPrefix(k, "changelog.") || strings.HasPrefix(k, "binlog.")
}

func setProperty(t *snapshot.Table, k, v string) {
	if t.Properties == nil {
		t.Properties = map[string]string{}
	}
	t.Properties[k] = v
}

func (col *collector) tableProperties(ctx context.Context, in string, byKey map[tableKey]*snapshot.Table) {
	where := "TABLE_SCHEMA IN " + in + " AND (PROPERTY_NAME LIKE 'changelog.%' OR PROPERTY_NAME LIKE 'binlog.%')"
	t, ok := col.selectInfo(ctx, "table_properties", []string{"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "PROPERTY_NAME", "PROPERTY_VALUE"}, where, false)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceTableProperties, "")
		tb := byKey[tableKey{rr.raw("TABLE_SCHEMA"), rr.raw("TABLE_NAME")}]
		if tb == nil || !isChangelogProperty(rr.raw("PROPERTY_NAME")) {
			continue
		}
		setProperty(tb, rr.raw("PROPERTY_NAME"), rr.raw("PROPERTY_VALUE"))
		tb.TTLSource = "table_properties"
		if tb.Catalog == "" {
			tb.Catalog = rr.raw("TABLE_CATALOG")
		}
	}
}

// keyModel maps table_options.TABLE_MODEL (KeysType.toMetadata(): DUP, UNI,
// AGG) and the long names to the snapshot's spelling.
func keyModel(s string) string {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "DUP", "DUP_KEYS", "DUPLICATE", "DUPLICATE_KEYS":
		return "DUP_KEYS"
	case "UNI", "UNIQUE", "UNIQUE_KEYS", "UNQ_KEYS":
		return "UNIQUE_KEYS"
	case "AGG", "AGG_KEYS", "AGGREGATE", "AGGREGATE_KEYS":
		return "AGG_KEYS"
	}
	return ""
}

func (col *collector) tableOptions(ctx context.Context, in string, byKey map[tableKey]*snapshot.Table) {
	t, ok := col.selectInfo(ctx, "table_options", []string{"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_MODEL"}, "TABLE_SCHEMA IN "+in, false)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceTableOptions, "")
		tb := byKey[tableKey{rr.raw("TABLE_SCHEMA"), rr.raw("TABLE_NAME")}]
		if tb == nil {
			continue
		}
		if m := rr.raw("TABLE_MODEL"); m != "" {
			if km := keyModel(m); km != "" {
				tb.KeyModel = km
			} else {
				rr.row = tb.DB + "." + tb.Name
				rr.bad("TABLE_MODEL", m, "unknown key model (want DUP, UNI or AGG)")
			}
		}
		if tb.Catalog == "" {
			tb.Catalog = rr.raw("TABLE_CATALOG")
		}
	}
}

func (col *collector) tableIDs(ctx context.Context, in string, byKey map[tableKey]*snapshot.Table) {
	t, ok := col.selectInfo(ctx, "metadata_name_ids", []string{"CATALOG_NAME", "DATABASE_NAME", "TABLE_NAME", "TABLE_ID"}, "DATABASE_NAME IN "+in, false)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourceMetadataNameIDs, "")
		tb := byKey[tableKey{rr.raw("DATABASE_NAME"), rr.raw("TABLE_NAME")}]
		if tb == nil {
			continue
		}
		if cat := rr.raw("CATALOG_NAME"); tb.Catalog != "" && cat != "" && cat != tb.Catalog {
			continue
		}
		rr.row = tb.DB + "." + tb.Name
		tb.ID = rr.optInt("TABLE_ID", true)
	}
}

// partitions reads information_schema.partitions for the base tables'
// databases. It is the MySQL-compatible table: no partition ID or visible
// version; UPDATE_TIME is read as the visible-version time (docs/snapshot.md).
func (col *collector) partitions(ctx context.Context, in string, byKey map[tableKey]*snapshot.Table) {
	t, ok := col.selectInfo(ctx, "partitions", []string{"TABLE_SCHEMA", "TABLE_NAME", "PARTITION_NAME", "PARTITION_ID",
		"VISIBLE_VERSION", "VISIBLE_VERSION_TIME", "TABLE_ROWS", "DATA_LENGTH", "CREATE_TIME", "UPDATE_TIME"}, "TABLE_SCHEMA IN "+in, false)
	if !ok {
		return
	}
	for _, r := range t.rows {
		rr := col.reader(t, r, snapshot.SourcePartitions, "")
		k := tableKey{rr.raw("TABLE_SCHEMA"), rr.raw("TABLE_NAME")}
		if byKey[k] == nil {
			continue
		}
		rr.row = k.db + "." + k.name + " " + rr.raw("PARTITION_NAME")
		visible := "UPDATE_TIME"
		if t.has("VISIBLE_VERSION_TIME") {
			visible = "VISIBLE_VERSION_TIME"
		}
		col.snap.Partitions = append(col.snap.Partitions, snapshot.Partition{
			DB: k.db, Table: k.name, Name: rr.raw("PARTITION_NAME"), ID: rr.optInt("PARTITION_ID", true),
			VisibleVersion: rr.optInt("VISIBLE_VERSION", true),
			Rows:           rr.optInt("TABLE_ROWS", true), DataBytes: rr.optInt("DATA_LENGTH", true),
			CreateTimeMs: rr.optTimeMs("CREATE_TIME"), VisibleTimeMs: rr.optTimeMs(visible),
		})
	}
}

var propRe = regexp.MustCompile(`"((?:changelog|binlog)\.[A-Za-z0-9_.]+)"\s*=\s*"([^"]*)"`)

// showCreate is the fallback for base tables whose changelog properties
// information_schema.table_properties did not list (or could not be read):
// one SHOW CREATE TABLE per such table, bounded by MaxShowCreate (the rest
// are recorded as not read). It is the only per-object statement, and a
// build whose table_properties lists the keys never sends it.
func (col *collector) showCreate(ctx context.Context, byKey map[tableKey]*snapshot.Table) {
	keys := make([]tableKey, 0, len(byKey))
	for k, t := range byKey {
		if len(t.Properties) == 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].db+"\x00"+keys[i].name < keys[j].db+"\x00"+keys[j].name })
	present := false
	if len(keys) > col.cfg.MaxShowCreate {
		skipped := keys[col.cfg.MaxShowCreate:]
		names := make([]string, 0, 5)
		for _, k := range skipped[:min(5, len(skipped))] {
			names = append(names, k.db+"."+k.name)
		}
		col.gap(snapshot.SourceShowCreateTable, "", errorsf("%d base tables without changelog properties in table_properties were not read (limit %d SHOW CREATE TABLE), e.g. %s",
			len(skipped), col.cfg.MaxShowCreate, strings.Join(names, ", ")))
		keys = keys[:col.cfg.MaxShowCreate]
	}
	for _, k := range keys {
		q := "SHOW CREATE TABLE " + QuoteIdent(k.db) + "." + QuoteIdent(k.name)
		t, err := col.c.query(ctx, q)
		if err != nil {
			col.gap(snapshot.SourceShowCreateTable, q, err)
			continue
		}
		present = true
		if len(t.rows) == 0 {
			continue
		}
		rr := col.reader(t, t.rows[0], snapshot.SourceShowCreateTable, k.db+"."+k.name)
		ddl := rr.raw("Create Table")
		tb := byKey[k]
		for _, m := range propRe.FindAllStringSubmatch(ddl, -1) {
			setProperty(tb, m[1], m[2])
			tb.TTLSource = "SHOW CREATE TABLE"
		}
		if tb.KeyModel == "" {
			switch {
			case strings.Contains(ddl, "UNIQUE KEY("):
				tb.KeyModel = "UNIQUE_KEYS"
			case strings.Contains(ddl, "AGGREGATE KEY("):
				tb.KeyModel = "AGG_KEYS"
			case strings.Contains(ddl, "DUPLICATE KEY("):
				tb.KeyModel = "DUP_KEYS"
			}
		}
	}
	col.capability(snapshot.SourceShowCreateTable, present, nil)
}

// deriveTTL fills ChangelogEnabled, TTLSeconds and PropertyNaming from the
// properties read. A table whose changelog is on but whose TTL property is
// absent gets Doris's default 86400 s with TTLSource "default" (doris.md §2:
// report what was assumed).
func deriveTTL(t *snapshot.Table) {
	for _, prefix := range []string{"changelog.", "binlog."} {
		en, hasEn := t.Properties[prefix+"enable"]
		ttl, hasTTL := t.Properties[prefix+"ttl_seconds"]
		if !hasEn && !hasTTL {
			continue
		}
		t.PropertyNaming = strings.TrimSuffix(prefix, ".")
		if hasEn {
			v := strings.EqualFold(strings.TrimSpace(en), "true")
			t.ChangelogEnabled = &v
		}
		if hasTTL {
			if v, err := strconv.ParseInt(strings.TrimSpace(ttl), 10, 64); err == nil {
				t.TTLSeconds = &v
			}
		}
		break
	}
	if t.TTLSeconds == nil && t.ChangelogEnabled != nil && *t.ChangelogEnabled {
		v := int64(86400)
		t.TTLSeconds = &v
		t.TTLSource = "default"
	}
	if t.TTLSeconds == nil && t.ChangelogEnabled == nil {
		t.TTLSource = ""
	}
}
