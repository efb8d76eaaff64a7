package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"
	"sync"

	"context"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/dorisdiag/dorisdiag/doris"
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
	// snapshot.ParseMvProperties is the one parser of MvProperties (Java
	// Map.toString, JSON fallback); Normalize records what it cannot read.
	//
	// A name written without its database matches a base table of that
	// name in any database (MTMVPartitionUtil.isTableNamelike), not only
	// the MV's. The collector cannot tell which: it looks in the MV's
	// database, the likeliest, and keeps that guess only if the build knows
	// such a table there (guessed, pruned below) — never a SHOW CREATE
	// TABLE for a table that may not exist.
	guessed := map[tableKey]bool{}
	for _, m := range col.snap.MVs {
		props, _ := snapshot.ParseMvProperties(m.MvProperties, m.DB)
		for _, ref := range props.ExcludedAsWritten {
			if ref.DB != "" {
				add(ref.Catalog, ref.DB, ref.Name)
				continue
			}
			if k := (tableKey{m.DB, ref.Name}); byKey[k] == nil {
				add("", m.DB, ref.Name)
				guessed[k] = true
			}
		}
	}
	// The source tables of the declared external consumers: their TTL is
	// read as a stream's base table's is.
	for _, ec := range col.cfg.Consumers {
		if db, name, ok := ec.SourceTableParts(); ok {
			add("", db, name)
		}
	}
	for _, name := range col.cfg.Tables {
		if db, tbl, ok := (snapshot.ExternalConsumer{SourceTable: name}).SourceTableParts(); ok {
			add("", db, tbl)
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
	for k := range guessed {
		if t := byKey[k]; t.ID == nil && t.KeyModel == "" && len(t.Properties) == 0 {
			delete(byKey, k) // not a table of the MV's database: the guess was wrong
		}
	}
	// SHOW CREATE TABLE first: it fills the changelog properties that tell
	// showData which tables have a changelog worth a per-table statement.
	gapsBefore := countGaps(col.snap, snapshot.SourceShowCreateTable)
	col.showCreate(ctx, byKey)
	// SHOW CREATE TABLE is the fallback for table_properties: when it read
	// every table that lacked properties, the changelog properties are all
	// known and the table_properties gap costs nothing.
	if countGaps(col.snap, snapshot.SourceShowCreateTable) == gapsBefore {
		col.snap.Supersede(snapshot.SourceTableProperties, snapshot.SourceShowCreateTable)
	}
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
	// ChangelogEnabled, TTLSeconds and PropertyNaming are derived from the
	// properties by snapshot.Normalize (a malformed TTL is unknown, never the
	// 86400 default).
	for _, k := range keys {
		col.snap.Tables = append(col.snap.Tables, *byKey[k])
	}
}

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

func countGaps(s *snapshot.Snapshot, source string) int {
	n := 0
	for _, g := range s.CouldNotRead {
		if g.Source == source {
			n++
		}
	}
	return n
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
	tp := doris.TableProperties
	where := doris.QuoteIdent(tp.TableSchema.Name) + " IN " + in + " AND (" + doris.QuoteIdent(tp.PropertyName.Name) + " LIKE 'changelog.%' OR " +
		doris.QuoteIdent(tp.PropertyName.Name) + " LIKE 'binlog.%')"
	t, ok := col.selectInfo(ctx, &doris.TableProperties.Relation, where, false)
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceTableProperties, "")
		tb := byKey[tableKey{rr.raw(doris.TableProperties.TableSchema), rr.raw(doris.TableProperties.TableName)}]
		if tb == nil || !isChangelogProperty(rr.raw(doris.TableProperties.PropertyName)) {
			continue
		}
		setProperty(tb, rr.raw(doris.TableProperties.PropertyName), rr.raw(doris.TableProperties.PropertyValue))
		tb.TTLSource = "table_properties"
		if tb.Catalog == "" {
			tb.Catalog = rr.raw(doris.TableProperties.TableCatalog)
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
	t, ok := col.selectInfo(ctx, &doris.TableOptions.Relation, doris.QuoteIdent(doris.TableOptions.TableSchema.Name)+" IN "+in, false)
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceTableOptions, "")
		tb := byKey[tableKey{rr.raw(doris.TableOptions.TableSchema), rr.raw(doris.TableOptions.TableName)}]
		if tb == nil {
			continue
		}
		if m := rr.raw(doris.TableOptions.TableModel); m != "" {
			if km := keyModel(m); km != "" {
				tb.KeyModel = km
			} else {
				rr.row = tb.DB + "." + tb.Name
				rr.bad(doris.TableOptions.TableModel, m, "unknown key model (want DUP, UNI or AGG)")
			}
		}
		if tb.Catalog == "" {
			tb.Catalog = rr.raw(doris.TableOptions.TableCatalog)
		}
	}
}

func (col *collector) tableIDs(ctx context.Context, in string, byKey map[tableKey]*snapshot.Table) {
	t, ok := col.selectInfo(ctx, &doris.MetadataNameIDs.Relation, doris.QuoteIdent(doris.MetadataNameIDs.DatabaseName.Name)+" IN "+in, false)
	if !ok {
		return
	}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceMetadataNameIDs, "")
		tb := byKey[tableKey{rr.raw(doris.MetadataNameIDs.DatabaseName), rr.raw(doris.MetadataNameIDs.TableName)}]
		if tb == nil {
			continue
		}
		if cat := rr.raw(doris.MetadataNameIDs.CatalogName); tb.Catalog != "" && cat != "" && cat != tb.Catalog {
			continue
		}
		rr.row = tb.DB + "." + tb.Name
		tb.ID = rr.optInt(doris.MetadataNameIDs.TableID, true)
	}
}

// partitions reads information_schema.partitions for the base tables'
// databases: PARTITION_ID, VISIBLE_VERSION, and UPDATE_TIME, the
// visible-version time in the session time zone. CREATE_TIME is always 0
// on real Doris; the contract's sentinel makes it unknown.
func (col *collector) partitions(ctx context.Context, in string, byKey map[tableKey]*snapshot.Table) {
	t, ok := col.selectInfo(ctx, &doris.Partitions.Relation, doris.QuoteIdent(doris.Partitions.TableSchema.Name)+" IN "+in, false)
	if !ok {
		return
	}
	col.snap.Partitions = slices.Grow(col.snap.Partitions, len(t.Rows)) // one allocation instead of regrowing per power of two
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourcePartitions, "")
		k := tableKey{rr.raw(doris.Partitions.TableSchema), rr.raw(doris.Partitions.TableName)}
		if byKey[k] == nil {
			continue
		}
		rr.row = k.db + "." + k.name + " " + rr.raw(doris.Partitions.PartitionName)
		// CREATE_TIME is always 0 on real Doris (the contract's sentinel:
		// unknown, never 1970-01-01); another implausible value is malformed.
		created := rr.optTimeMs(doris.Partitions.CreateTime)
		if created != nil && !snapshot.PlausibleCreateTimeMs(*created) {
			rr.bad(doris.Partitions.CreateTime, rr.raw(doris.Partitions.CreateTime), "not a plausible creation time (before 2000-01-01): unknown")
			created = nil
		}
		col.snap.Partitions = append(col.snap.Partitions, snapshot.Partition{
			DB: k.db, Table: k.name, Name: rr.raw(doris.Partitions.PartitionName), ID: rr.optInt(doris.Partitions.PartitionID, true),
			VisibleVersion: rr.optInt(doris.Partitions.VisibleVersion, true),
			Rows:           rr.optInt(doris.Partitions.TableRows, true), DataBytes: rr.optInt(doris.Partitions.DataLength, true),
			CreateTimeMs: created, VisibleTimeMs: rr.optTimeMs(doris.Partitions.UpdateTime),
		})
	}
}

var propRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"((?:changelog|binlog)\.[A-Za-z0-9_.]+)"\s*=\s*"([^"]*)"`)
})

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
	present := false
	keys = col.boundTables(keys, col.cfg.MaxShowCreate, snapshot.SourceShowCreateTable,
		"%d base tables without changelog properties in table_properties were not read (limit %d SHOW CREATE TABLE), e.g. %s")
	for _, k := range keys {
		q := doris.ShowCreateTable.Statements[0].Build(doris.QuoteIdent(k.db), doris.QuoteIdent(k.name))
		t, err := col.c.Query(ctx, q)
		if err != nil {
			col.gap(snapshot.SourceShowCreateTable, q, err)
			continue
		}
		present = true
		if len(t.Rows) == 0 {
			continue
		}
		rr := col.reader(t, t.Rows[0], snapshot.SourceShowCreateTable, k.db+"."+k.name)
		ddl := rr.raw(doris.ShowCreateTable.CreateTable)
		tb := byKey[k]
		for _, m := range propRe().FindAllStringSubmatch(ddl, -1) {
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

// boundTables sorts the tables a per-table statement is sent for and keeps
// at most limit of them; the rest are one gap of source (format: how many,
// the limit, the first few names), never silently left out.
func (col *collector) boundTables(keys []tableKey, limit int, source, format string) []tableKey {
	sort.Slice(keys, func(i, j int) bool { return keys[i].db+"\x00"+keys[i].name < keys[j].db+"\x00"+keys[j].name })
	if len(keys) <= limit {
		return keys
	}
	skipped := keys[limit:]
	names := make([]string, 0, 5)
	for _, k := range skipped[:min(5, len(skipped))] {
		names = append(names, k.db+"."+k.name)
	}
	col.gap(source, "", scrape.Errorf(format, len(skipped), limit, strings.Join(names, ", ")))
	return keys[:limit]
}
