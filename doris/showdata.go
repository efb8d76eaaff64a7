package doris

// SHOW DATA, one relation per result shape. Facts from
// fe/fe-core/.../nereids/trees/plans/commands/ShowDataCommand.java @000c6bdb
// (the older @64e8c92b has the same forms and no BinlogSize anywhere):
// after FROM comes a TABLE ([db.]tbl; a single name with no current database
// fails with "No database selected", TableNameInfo.java @3b487d18), and the
// human sizes are DebugUtil.printByteWithUnit @0979e5da ("0.000 ",
// "1.500 MB": 1024-based, no PB).

const showDataSrc = "fe/fe-core/.../nereids/trees/plans/commands/ShowDataCommand.java @000c6bdb"

func binlog(name string, f Format) Column {
	return Column{Name: name, Type: VARCHAR, Avail: SomeBuilds, Format: f, Read: true, Note: "BinlogSize is not in older builds (ShowDataCommand @64e8c92b): then the size is not on this build"}
}

// ShowDataPropertiesRel is SHOW DATA PROPERTIES ('entire_warehouse' = 'true', ...).
type ShowDataPropertiesRel struct {
	Relation
	DBName, DataSize, RecycleSize, BinlogSize Column
}

// ShowDataProperties gives every database's sizes in one statement and
// checks no privilege (getDbStatsByProperties runs first).
var ShowDataProperties = &ShowDataPropertiesRel{
	Relation: Relation{Source: SourceShowData, Kind: Show, Name: "SHOW DATA PROPERTIES", Mirrors: showDataSrc + " (getDbStatsByProperties)",
		Statements: []Statement{
			{Template: "SHOW DATA PROPERTIES ({literal} = {literal}, {literal} = {literal})", When: "first: 'entire_warehouse' = 'true', 'db_names' = the base tables' databases"},
			{Template: "SHOW DATA PROPERTIES ({literal} = {literal})", When: "the same when a database name holds a comma (db_names has no escape): every database, filtered here"},
		},
		Note: "raw byte integers; last row `total`; db_names is split on ',' with no trimming"},
	DBName:      Column{Name: "DBName", Type: VARCHAR, Format: Text, Read: true, Note: "the last row is `total`"},
	DataSize:    scol("DataSize", Bytes, true),
	RecycleSize: scol("RecycleSize", Bytes, false),
	BinlogSize:  binlog("BinlogSize", Bytes),
}

// ShowDataAllDBsRel is SHOW DATA with no FROM and no current database.
type ShowDataAllDBsRel struct {
	Relation
	DbID, DbName, Size, RemoteSize, BinlogSize, RecycleSize, RecycleRemoteSize Column
}

// ShowDataAllDBs is the per-database fallback; it needs global ADMIN.
var ShowDataAllDBs = &ShowDataAllDBsRel{
	Relation: Relation{Source: SourceShowData, Kind: Show, Name: "SHOW DATA (all databases)", Mirrors: showDataSrc + " (getAllDbStats)",
		Statements: []Statement{{Template: "SHOW DATA", When: "only when the PROPERTIES form failed; needs ADMIN (else error 1227)"}},
		Note:       "raw bytes; last row Total (DbName NULL); a dropped database in the recycle bin has DbName NULL"},
	DbID:              scol("DbId", Integer, false),
	DbName:            scol("DbName", Text, true),
	Size:              scol("Size", Bytes, true),
	RemoteSize:        scol("RemoteSize", Bytes, false),
	BinlogSize:        binlog("BinlogSize", Bytes),
	RecycleSize:       scol("RecycleSize", Bytes, false),
	RecycleRemoteSize: scol("RecycleRemoteSize", Bytes, false),
}

// ShowDataTableRel is SHOW DATA FROM db.tbl.
type ShowDataTableRel struct {
	Relation
	TableName, IndexName, Size, ReplicaCount, RowCount, RemoteSize, BinlogSize Column
}

// ShowDataTable gives one table's sizes (its Total row).
var ShowDataTable = &ShowDataTableRel{
	Relation: Relation{Source: SourceShowData, Kind: Show, Name: "SHOW DATA FROM db.tbl", Mirrors: showDataSrc + " (getSingleTableStats)",
		Statements: []Statement{{Template: "SHOW DATA FROM {db}.{table}",
			When: "only for a table the per-database SHOW DATA did not size, at most 50 (the rest one gap); needs SHOW on the table"}},
		Note: "one row per index (TableName only on the first), then '', Total; human sizes"},
	TableName:    scol("TableName", Text, false),
	IndexName:    Column{Name: "IndexName", Type: VARCHAR, Format: Text, Read: true, Note: "Total on the last row"},
	Size:         scol("Size", HumanSize, false),
	ReplicaCount: scol("ReplicaCount", Integer, false),
	RowCount:     scol("RowCount", Integer, false),
	RemoteSize:   scol("RemoteSize", HumanSize, false),
	BinlogSize:   binlog("BinlogSize", HumanSize),
}

// ShowDataDBRel is SHOW DATA with a current database (per table): sent once
// per database with changelog tables, on a session of its own whose current
// database the driver selects in the handshake.
type ShowDataDBRel struct {
	Relation
	TableName, Size, ReplicaCount, RemoteSize, BinlogSize Column
}

// ShowDataDB is getSingleDbStats.
var ShowDataDB = &ShowDataDBRel{
	Relation: Relation{Source: SourceShowData, Kind: Show, Name: "SHOW DATA (current database)", Mirrors: showDataSrc + " (getSingleDbStats)",
		Statements: []Statement{{Template: "SHOW DATA", When: "once per database with changelog tables whose BinlogSize is not 0, on a session whose current database is that one; needs SHOW on each table"}},
		Note:       "per table, human sizes, then Total, Quota, Left"},
	TableName:    Column{Name: "TableName", Type: VARCHAR, Format: Text, Read: true, Note: "then Total, Quota, Left"},
	Size:         scol("Size", HumanSize, false),
	ReplicaCount: scol("ReplicaCount", Integer, false),
	RemoteSize:   scol("RemoteSize", HumanSize, false),
	BinlogSize:   binlog("BinlogSize", HumanSize),
}

// ShowDataAllFormRel is SHOW DATA ALL (per table with a current database, or
// FROM db.tbl per index). Not sent; the emulator serves it.
type ShowDataAllFormRel struct {
	Relation
	TableName, IndexName, ReplicaCount, RowCount, LocalTotalSize, LocalDataSize, LocalIndexSize Column
	RemoteTotalSize, RemoteDataSize, RemoteIndexSize, LocalBinlogSize                           Column
}

// ShowDataAllForm names the changelog size LocalBinlogSize.
var ShowDataAllForm = &ShowDataAllFormRel{
	Relation: Relation{Source: SourceShowData, Kind: Show, Name: "SHOW DATA ALL", Mirrors: showDataSrc,
		Statements: []Statement{{Template: "SHOW DATA ALL", When: "not sent"}},
		Note:       "IndexName and RowCount only in the FROM db.tbl form"},
	TableName:       scol("TableName", Text, false),
	IndexName:       scol("IndexName", Text, false),
	ReplicaCount:    scol("ReplicaCount", Integer, false),
	RowCount:        scol("RowCount", Integer, false),
	LocalTotalSize:  scol("LocalTotalSize", HumanSize, false),
	LocalDataSize:   scol("LocalDataSize", HumanSize, false),
	LocalIndexSize:  scol("LocalIndexSize", HumanSize, false),
	RemoteTotalSize: scol("RemoteTotalSize", HumanSize, false),
	RemoteDataSize:  scol("RemoteDataSize", HumanSize, false),
	RemoteIndexSize: scol("RemoteIndexSize", HumanSize, false),
	LocalBinlogSize: binlog("LocalBinlogSize", HumanSize),
}

// ChangelogSizeAlias is the seed's name for BinlogSize, in no Doris build:
// read only as an alias.
var ChangelogSizeAlias = Column{Name: "ChangelogSize", Type: VARCHAR, Format: Bytes, Avail: Design}

// BinlogSizeColumns are the spellings of the changelog size, in the order
// they are looked for.
func BinlogSizeColumns() []Column {
	return []Column{ShowDataProperties.BinlogSize, ShowDataAllForm.LocalBinlogSize, ChangelogSizeAlias}
}

func init() {
	register(ShowDataProperties, ShowDataAllDBs, ShowDataTable, ShowDataDB, ShowDataAllForm)
}
