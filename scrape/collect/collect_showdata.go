package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"
	"sync"

	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// SHOW DATA, as real Doris answers it. Every fact below is from
// fe/fe-core/src/main/java/org/apache/doris/nereids/trees/plans/commands/
// ShowDataCommand.java @000c6bdb9a54 (the older @64e8c92b3068 is the same
// without any BinlogSize column), and docs/snapshot.md "SHOW DATA":
//
//   - Grammar: SHOW DATA (ALL)? (FROM tableName=multipartIdentifier)?
//     sortClause? propertyClause?. After FROM comes a TABLE: `FROM db` with
//     no current database fails with "No database selected"
//     (fe-catalog/.../catalog/info/TableNameInfo.java @3b487d18 analyze()).
//     The collector's session never selects a database.
//   - PROPERTIES ("entire_warehouse"="true"[, "db_names"="a,b"]):
//     getDbStatsByProperties runs before any other branch and checks no
//     privilege. Columns DBName, DataSize, RecycleSize, BinlogSize; raw byte
//     integers (String.valueOf); last row "total". db_names is split on ","
//     with no trimming and matched exactly; a name that is not a database
//     gives no row. The value must be exactly "true".
//   - No FROM, no current database (getAllDbStats): needs global ADMIN
//     (ERR_SPECIFIC_ACCESS_DENIED_ERROR otherwise). Columns DbId, DbName,
//     Size, RemoteSize, BinlogSize, RecycleSize, RecycleRemoteSize; raw bytes;
//     last row "Total" (DbName NULL); a dropped database still in the
//     recycle bin has DbName "NULL".
//   - FROM db.tbl (getSingleTableStats): needs SHOW on the table. Columns
//     TableName, IndexName, Size, ReplicaCount, RowCount, RemoteSize,
//     BinlogSize, one row per index (TableName only on the first), then
//     "", "Total", …: sizes in DebugUtil.printByteWithUnit's human form.
//     The ALL form names the column LocalBinlogSize.
var binlogCols = doris.BinlogSizeColumns() // ChangelogSize: alias only, in no Doris build

// binlogCol is the changelog size column t has; ok=false when the build has none.
func binlogCol(t *scrape.Table) (doris.Column, bool) {
	for _, c := range binlogCols {
		if t.Has(c.Name) {
			return c, true
		}
	}
	return doris.Column{}, false
}

// showData reads BinlogSize (S5) per database and per table in the fewest
// statements the build allows (docs/snapshot.md "SHOW DATA"):
//
//  1. SHOW DATA PROPERTIES ('entire_warehouse'='true', 'db_names'='…'): one
//     statement for every base-table database, no privilege needed.
//  2. Only if 1 failed: SHOW DATA with no FROM (per database, needs ADMIN).
//  3. One SHOW DATA per database that has changelog tables, on a session
//     whose current database is it (selected in the handshake): every
//     table's BinlogSize in one statement (getSingleDbStats; SHOW on each
//     table). The statement count stays O(databases).
//  4. Only for the tables 3 did not size: SHOW DATA FROM `db`.`tbl` (the
//     Total row), at most MaxShowData.
//
// A build without BinlogSize is "not on this build": the capability lists
// the columns it has, and nothing is a gap. A per-database form that failed
// when the per-table form then answered is a fallback, noted on the
// capability, not a gap.
func (col *collector) showData(ctx context.Context, dbs []string, byKey map[tableKey]*snapshot.Table) {
	perDB, cols, notes := col.showDataByDB(ctx, dbs)
	if cols != nil && !hasAny(cols, binlogCols) {
		col.snap.Capabilities.Sources[snapshot.SourceShowData] = snapshot.SourceCapability{Present: true, Columns: cols,
			Note: "this build has no BinlogSize: changelog size not on this build"}
		return
	}
	binlogOf := map[string]*int64{}
	for _, d := range perDB {
		binlogOf[d.DB] = d.BinlogSizeBytes
	}

	var targets []tableKey
	for k, t := range byKey {
		if !changelogOn(t) {
			continue
		}
		if b := binlogOf[k.db]; b != nil && *b == 0 {
			// A database's BinlogSize is the sum over its OLAP tables, each
			// ≥ 0: every table in it has none. Exact, no statement needed.
			t.ChangelogSizeBytes = new(int64)
			continue
		}
		targets = append(targets, k)
	}
	var dbCols []string
	targets, dbCols, notes = col.showDataPerDBSession(ctx, targets, byKey, notes)
	if cols == nil {
		cols = dbCols
	}
	targets = col.boundTables(targets, col.cfg.MaxShowData, snapshot.SourceShowData,
		"changelog size of %d base tables not read (limit %d SHOW DATA FROM db.tbl), e.g. %s")
	var firstErr error
	read := 0
	for _, k := range targets {
		q := doris.ShowDataTable.Statements[0].Build(doris.QuoteIdent(k.db), doris.QuoteIdent(k.name))
		t, err := col.c.Query(ctx, q)
		if err != nil {
			col.gap(snapshot.SourceShowData, q, err)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		read++
		if cols == nil {
			cols = t.Cols
		}
		bc, ok := binlogCol(t)
		if !ok {
			notes = append(notes, "this build has no BinlogSize: changelog size not on this build")
			break
		}
		tb := byKey[k]
		found := false
		for _, r := range t.Rows {
			rr := col.reader(t, r, snapshot.SourceShowData, k.db+"."+k.name)
			if strings.TrimSpace(rr.raw(doris.ShowDataTable.IndexName)) != "Total" {
				continue
			}
			found = true
			tb.ChangelogSizeBytes, tb.ChangelogSizeText = rr.size(bc)
		}
		if !found {
			rr := col.reader(t, nil, snapshot.SourceShowData, k.db+"."+k.name)
			rr.bad(doris.ShowDataTable.IndexName, "", "no Total row in SHOW DATA FROM db.tbl")
		}
	}
	col.snap.Databases = append(col.snap.Databases, perDB...)
	present := cols != nil
	if !present && len(notes) > 0 && len(targets) == 0 {
		// Neither per-database form answered and no table needed a
		// statement: the per-database sizes are what is lost.
		col.gap(snapshot.SourceShowData, "", errors.New(strings.Join(notes, "; ")))
		notes = nil
	}
	col.snap.Capabilities.Sources[snapshot.SourceShowData] = snapshot.SourceCapability{Present: present || read > 0, Columns: cols,
		Note: strings.Join(notes, "; ")}
}

// showDataByDB runs the per-database forms: PROPERTIES first, the
// ADMIN-only no-FROM form only when that failed. It returns the rows of
// dbs, the columns of the form that answered (nil when none did), and a
// note per form that failed.
func (col *collector) showDataByDB(ctx context.Context, dbs []string) ([]snapshot.DatabaseSize, []string, []string) {
	want := map[string]bool{}
	list := true
	for _, db := range dbs {
		want[db] = true
		// db_names is split on "," with no escape: a name holding one
		// cannot be listed, so ask for every database and filter here.
		list = list && !strings.Contains(db, ",")
	}
	sp := doris.ShowDataProperties
	q := sp.Statements[1].Build(doris.QuoteLiteral("entire_warehouse"), doris.QuoteLiteral("true"))
	if list {
		q = sp.Statements[0].Build(doris.QuoteLiteral("entire_warehouse"), doris.QuoteLiteral("true"),
			doris.QuoteLiteral("db_names"), doris.QuoteLiteral(strings.Join(dbs, ",")))
	}
	var notes []string
	t, err := col.c.Query(ctx, q)
	if err == nil && t.Has(sp.DBName.Name) {
		return col.dbRows(t, sp.DBName, sp.DataSize, "total", sp.Name, want), t.Cols, nil
	}
	if err == nil {
		err = fmt.Errorf("no DBName column in %v", t.Cols)
	}
	notes = append(notes, "SHOW DATA PROPERTIES (entire_warehouse) failed: "+err.Error())

	sa := doris.ShowDataAllDBs
	all := sa.Statements[0].Build()
	t, err = col.c.Query(ctx, all)
	if err == nil && t.Has(sa.DbName.Name) {
		return col.dbRows(t, sa.DbName, sa.Size, "Total", all, want), t.Cols, notes
	}
	switch {
	case err == nil:
		err = fmt.Errorf("no DbName column in %v (the session has a current database?)", t.Cols)
	case isAccessDenied(err):
		err = fmt.Errorf("needs the ADMIN privilege: %w", err)
	}
	return nil, nil, append(notes, "SHOW DATA (all databases) failed: "+err.Error())
}

// dbRows reads the per-database rows of want; the trailing total row
// ("total" or "Total", always last) and recycle-bin rows are skipped.
func (col *collector) dbRows(t *scrape.Table, nameCol, dataCol doris.Column, total, stmt string, want map[string]bool) []snapshot.DatabaseSize {
	bc, hasBinlog := binlogCol(t)
	var out []snapshot.DatabaseSize
	for i, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceShowData, "")
		name := rr.raw(nameCol)
		if i == len(t.Rows)-1 && name == total || !want[name] {
			continue
		}
		rr.row = name
		d := snapshot.DatabaseSize{DB: name, Statement: stmt}
		d.DataSizeBytes, _ = rr.size(dataCol)
		if hasBinlog {
			d.BinlogSizeBytes, _ = rr.size(bc)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].DB < out[j].DB })
	return out
}

// changelogOn: the table's changelog is on, or its properties were not read
// (a stream's base table has one by construction).
func changelogOn(t *snapshot.Table) bool {
	for _, k := range []string{"changelog.enable", "binlog.enable"} {
		if v, ok := t.Properties[k]; ok {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return true
}

func hasAny(cols []string, names []doris.Column) bool {
	for _, c := range cols {
		for _, n := range names {
			if strings.EqualFold(c, n.Name) {
				return true
			}
		}
	}
	return false
}

// isAccessDenied recognises Doris's privilege errors
// (ERR_SPECIFIC_ACCESS_DENIED_ERROR 1227, ERR_TABLEACCESS_DENIED_ERROR 1142,
// ERR_DBACCESS_DENIED_ERROR 1044; fe-core common/ErrorCode.java).
func isAccessDenied(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1142 || me.Number == 1044) {
		return true
	}
	return strings.Contains(err.Error(), "Access denied")
}

// size reads one SHOW DATA size cell: nil for NULL, recorded as malformed
// when it is not a size. The text is returned when it was the human form.
func (rr *rowReader) size(col doris.Column) (*int64, string) {
	p := rr.t.Get(rr.r, col.Name)
	if p == nil || isNullText(strings.TrimSpace(*p)) {
		return nil, ""
	}
	v, human, err := parseSize(*p)
	if err != nil {
		rr.bad(col, *p, err.Error())
		return nil, ""
	}
	if human {
		return &v, *p
	}
	return &v, ""
}

var sizeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+(?:[.,][0-9]+)?) ?(B|KB|MB|GB|TB|PB)?$`) })

var sizeUnit = map[string]float64{"": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "PB": 1 << 50}

// parseSize reads a SHOW DATA size: a raw byte count ("1024", the
// per-database forms) or DebugUtil.printByteWithUnit's human form ("0.000 ",
// "1024.000 B", "1.500 MB": DecimalFormat "0.000", a space, then "", B, KB,
// MB, GB or TB, 1024-based — fe-core common/util/DebugUtil.java @0979e5da).
// human reports the latter; its value is rounded as the server rounded it.
// PB and a decimal comma (a JVM with a non-English default locale) are
// accepted though not seen in the source.
func parseSize(s string) (v int64, human bool, err error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 {
			return 0, false, fmt.Errorf("negative byte count")
		}
		return n, false, nil
	}
	m := sizeRe().FindStringSubmatch(strings.ToUpper(t))
	if m == nil {
		return 0, false, fmt.Errorf("not a byte count (want 1024 or 1.500 MB)")
	}
	f, err := strconv.ParseFloat(strings.Replace(m[1], ",", ".", 1), 64)
	if err != nil {
		return 0, false, fmt.Errorf("not a byte count: %v", err)
	}
	b := math.Round(f * sizeUnit[m[2]])
	if b >= math.MaxInt64 {
		return 0, false, fmt.Errorf("byte count out of range")
	}
	return int64(b), true, nil
}

// showDataPerDBSession sizes the targets database by database: for each, a
// session with that current database and one SHOW DATA, read per table
// (human sizes; the Total, Quota and Left rows are skipped). It returns the
// targets it could not size, the columns of the form, and notes for the
// databases whose session or statement failed (the per-table form then
// tries those tables, so a failure here is a fallback, not a gap).
func (col *collector) showDataPerDBSession(ctx context.Context, targets []tableKey, byKey map[tableKey]*snapshot.Table, notes []string) ([]tableKey, []string, []string) {
	byDB := map[string][]tableKey{}
	var dbs []string
	for _, k := range targets {
		if _, ok := byDB[k.db]; !ok {
			dbs = append(dbs, k.db)
		}
		byDB[k.db] = append(byDB[k.db], k)
	}
	sort.Strings(dbs)
	sd := doris.ShowDataDB
	var cols []string
	var left []tableKey
	for _, db := range dbs {
		t, err := col.queryIn(ctx, db, sd.Statements[0].Build())
		if err == nil && !t.Has(sd.TableName.Name) {
			err = fmt.Errorf("no %s column in %v", sd.TableName.Name, t.Cols)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("SHOW DATA in database %s failed, reading its tables one by one: %v", db, err))
			left = append(left, byDB[db]...)
			continue
		}
		cols = t.Cols
		bc, ok := binlogCol(t)
		if !ok {
			notes = append(notes, "this build has no BinlogSize: changelog size not on this build")
			return nil, cols, notes
		}
		sized := map[string]bool{}
		for _, r := range t.Rows {
			rr := col.reader(t, r, snapshot.SourceShowData, db)
			name := rr.raw(sd.TableName)
			tb := byKey[tableKey{db, name}]
			if tb == nil || sized[name] {
				continue // Total, Quota, Left, or a table without a stream
			}
			rr.row = db + "." + name
			tb.ChangelogSizeBytes, tb.ChangelogSizeText = rr.size(bc)
			sized[name] = tb.ChangelogSizeBytes != nil
		}
		for _, k := range byDB[db] {
			if !sized[k.name] {
				left = append(left, k)
			}
		}
	}
	return left, cols, notes
}

// queryIn runs one statement on a session of its own whose current database
// is db, counted with the collection's statements. The session is closed
// at once: one extra connection at a time, never kept.
func (col *collector) queryIn(ctx context.Context, db, q string) (*scrape.Table, error) {
	addr := col.c.Host
	conn, err := scrape.OpenDBIn(col.cfg, addr, db)
	if err != nil {
		return nil, col.cfg.Secret().Redact(fmt.Errorf("connecting to %s (database %s): %w", addr, db, err))
	}
	defer conn.Close()
	c := &scrape.SQLClient{DB: conn, Timeout: col.cfg.Timeout, Host: addr, Secret: col.cfg.Secret()}
	t, err := c.Query(ctx, q)
	col.c.Count(c.Statements())
	return t, err
}
