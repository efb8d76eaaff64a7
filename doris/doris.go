// Package doris is the wire contract: a declarative description of every
// Doris source dorisdiag reads — each information_schema table, table-valued
// function, SHOW statement and HTTP endpoint — with its columns (name, Doris
// type, nullability), the sentinel texts it uses for "no value", the format
// of its values, which columns only some builds have, and the Doris source
// file it mirrors.
//
// It is the one place a Doris column name is spelled (a test keeps it so):
// the collector (scrape/) selects and reads columns through it, the emulator
// (fixtures/emulator) builds its tables and answers from it, and the source
// tables of docs/snapshot.md are generated from it. It is pure: no I/O.
package doris

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Type is a column type as the Doris FE declares it (SchemaTable,
// the TVF schemas, the SHOW result-set metadata).
type Type string

// Doris column types.
const (
	BIGINT   Type = "BIGINT"
	INT      Type = "INT"
	DOUBLE   Type = "DOUBLE"
	BOOLEAN  Type = "BOOLEAN"
	VARCHAR  Type = "VARCHAR"
	STRING   Type = "STRING"
	DATETIME Type = "DATETIME"
	// OPEN is a column of the monitoring design whose type the design does
	// not fix (a count or a list): both shapes are read.
	OPEN Type = "BIGINT or VARCHAR"
	// JSONField is a field of an HTTP endpoint's JSON body.
	JSONField Type = "JSON"
)

// Avail says which builds have a column (or a whole relation).
type Avail string

const (
	// AllBuilds: present in the Doris source the contract was checked
	// against (the commit in the relation's Mirrors).
	AllBuilds Avail = "all"
	// SomeBuilds: present in some versions only (named in the column's
	// Note); read when the capability probe finds it.
	SomeBuilds Avail = "some builds"
	// Design: added by the monitoring design apache/doris#69907, in no
	// released build yet; read when present.
	Design Avail = "apache/doris#69907"
)

// Format names how a value is written.
type Format string

// Value formats.
const (
	Text        Format = "text"
	Integer     Format = "integer"
	Decimal     Format = "decimal number"
	TSO         Format = "TSO (decimal)"
	TSOText     Format = "TSO as decimal text"
	UnixMs      Format = "Unix ms"
	Seconds     Format = "seconds"
	Datetime    Format = "datetime text 'yyyy-MM-dd HH:mm:ss', session time zone"
	Bool01      Format = "BOOLEAN, sent as 1/0"
	BoolText    Format = "'true'/'false'"
	YesNo       Format = "'Yes'/'No'"
	JavaMap     Format = "Java Map.toString(): {k=v, k2=v2}"
	JSONText    Format = "JSON text"
	HumanSize   Format = "human size text, e.g. '1.500 MB'"
	Bytes       Format = "bytes"
	Enum        Format = "enumeration"
	CountOrList Format = "a count, or a list of names"
	RefreshText Format = "refresh clause text, e.g. 'BUILD DEFERRED REFRESH INCREMENTAL ON COMMIT'"
	LagText     Format = "TSO difference as decimal text (older builds: a version count)"
)

// Column is one column of a relation (or one field of an HTTP JSON body).
type Column struct {
	Name     string
	Type     Type
	Nullable bool
	Avail    Avail
	// Sentinels are the values Doris writes for "no value" in this column
	// (`\N`, `N/A`, `-1`, `0`, NULL).
	Sentinels []string
	Format    Format
	// Read marks the columns dorisdiag selects and interprets; the others
	// are listed for completeness (the emulator serves them too).
	Read bool
	// Constant is the value real Doris always writes in this column, when it
	// always writes the same one (partitions.CREATE_TIME is always 0).
	Constant string
	Note     string
}

// Kind is the kind of a relation.
type Kind string

// Relation kinds.
const (
	InfoSchema Kind = "information_schema table"
	TVF        Kind = "table-valued function"
	Show       Kind = "SHOW statement"
	Session    Kind = "session variables"
	HTTP       Kind = "HTTP endpoint"
	// UserTable is a table of the user's own (an external consumer's
	// offset table), named in the config file.
	UserTable Kind = "user table"
)

// Statement is one statement (or request) dorisdiag sends for a relation,
// as a template: {columns} is the list of selected columns (backquoted),
// {db}, {table} a backquoted identifier, {literal} a quoted string literal,
// {in} a parenthesised list of literals, {n} an integer, {host}/{port} the
// HTTP target. A test checks every statement the collector sends against
// these templates (Match).
type Statement struct {
	Template string
	// When says in which case it is sent.
	When string
}

// Relation is one Doris source.
type Relation struct {
	// Source is the capability and ReadGap name (snapshot.Source*).
	Source string
	Kind   Kind
	// Name is the table, function or endpoint name as sent
	// ("table_streams", "mv_infos", "/api/tso").
	Name       string
	Avail      Avail
	Statements []Statement
	// Mirrors names the Doris source file(s) (and commit) the description
	// was checked against.
	Mirrors string
	Note    string
}

// Columns lists the relation's columns in the order Doris serves them.
func (r *Relation) Columns() []Column { return columnLists()[r] }

// ReadColumns lists the columns dorisdiag selects.
func (r *Relation) ReadColumns() []Column {
	var out []Column
	for _, c := range r.Columns() {
		if c.Read {
			out = append(out, c)
		}
	}
	return out
}

// Column returns the column called name (case-insensitive).
func (r *Relation) Column(name string) (Column, bool) {
	for _, c := range r.Columns() {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// def is implemented by every relation struct of this package: a Relation
// embedded first, then one Column field per column, in Doris's order.
type def interface{ rel() *Relation }

func (r *Relation) rel() *Relation { return r }

var colType = reflect.TypeFor[Column]()

// columnLists is the columns of every registered relation, from the Column
// fields of the struct that embeds it, in declaration order (the one list of
// columns is the struct itself), each column that declares no availability
// given the relation's (AllBuilds when it has none either). Built once, at
// the first use, not at every start: it was 231 KB and 800 allocations of
// each dorisdiag start, and writing the availability into the structs in
// place made the kernel copy every page of them (docs/performance.md
// "Start-up and binary size").
var columnLists = sync.OnceValue(func() map[*Relation][]Column {
	m := make(map[*Relation][]Column, len(all))
	for _, d := range all {
		v := reflect.ValueOf(d).Elem()
		r := d.rel()
		var cols []Column
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.Type() != colType {
				continue
			}
			c := *f.Addr().Interface().(*Column)
			if c.Name == "" {
				panic(fmt.Sprintf("doris: %s.%s has no name", r.Name, v.Type().Field(i).Name))
			}
			if c.Avail == "" {
				c.Avail = r.Avail
				if c.Avail == "" {
					c.Avail = AllBuilds
				}
			}
			cols = append(cols, c)
		}
		m[r] = cols
	}
	return m
})

// All lists every relation, in the order the collector reads them.
func All() []*Relation {
	out := make([]*Relation, len(all))
	for i, d := range all {
		out[i] = d.rel()
	}
	return out
}

var all []def

func register(ds ...def) {
	all = append(all, ds...)
}

// Rel returns the embedded Relation (so a *XRel is usable where a
// *Relation is wanted).
func (r *Relation) Rel() *Relation { return r }
