package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"strconv"
	"strings"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// rowReader converts one row of text cells into typed snapshot values,
// normalising Doris's spellings of "no value" (docs/snapshot.md "Doris sources": SQL NULL,
// `\N` in TVFs, N/A in table_streams/table_stream_consumption, -1 for "never"
// times and offsets) and recording every value it cannot interpret in
// snap.Malformed — never dropping one silently.
type rowReader struct {
	t      *scrape.Table
	r      []*string
	source string
	row    string // identifies the row in Malformed entries
	snap   *snapshot.Snapshot
	loc    *time.Location
}

// isNullText reports the textual "no value" spellings: snapshot.IsNullText
// and N/A (table_streams, table_stream_consumption).
func isNullText(s string) bool {
	return s == "N/A" || snapshot.IsNullText(s)
}

func (rr *rowReader) bad(c doris.Column, val, why string) {
	rr.snap.Malformed = append(rr.snap.Malformed, snapshot.Malformed{Source: rr.source, Row: rr.row, Column: c.Name, Value: val, Error: why})
}

// cell is the cell text for a typed read: nil for NULL, an absent column,
// or one of the column's sentinel texts in the wire contract (the value
// Doris writes for "no value": partitions.CREATE_TIME's 0, -1 for "never").
func (rr *rowReader) cell(c doris.Column) *string {
	p := rr.t.Get(rr.r, c.Name)
	if p == nil {
		return nil
	}
	for _, s := range c.Sentinels {
		if strings.TrimSpace(*p) == s {
			return nil
		}
	}
	return p
}

// raw is the cell text exactly as sent; "" for NULL or an absent column.
func (rr *rowReader) raw(c doris.Column) string {
	if p := rr.t.Get(rr.r, c.Name); p != nil {
		return *p
	}
	return ""
}

// str is a text value with `\N` and NULL read as "" (TVF columns).
func (rr *rowReader) str(c doris.Column) string {
	s := rr.raw(c)
	if s == `\N` {
		return ""
	}
	return s
}

// naStr is str with N/A also read as "" (table_streams STALE_REASON).
func (rr *rowReader) naStr(c doris.Column) string {
	s := rr.str(c)
	if s == "N/A" {
		return ""
	}
	return s
}

// optStr is a nullable text value: nil for NULL, `\N`, or a missing column.
func (rr *rowReader) optStr(c doris.Column) *string {
	p := rr.t.Get(rr.r, c.Name)
	if p == nil || *p == `\N` {
		return nil
	}
	s := *p
	return &s
}

// optInt reads an integer; minusOneNull says whether -1 (or any negative)
// means "none" for this column.
func (rr *rowReader) optInt(c doris.Column, minusOneNull bool) *int64 {
	p := rr.cell(c)
	if p == nil || isNullText(strings.TrimSpace(*p)) {
		return nil
	}
	v, err := strconv.ParseInt(strings.TrimSpace(*p), 10, 64)
	if err != nil {
		// DOUBLE-typed counts arrive as "3.0" on some builds.
		f, ferr := strconv.ParseFloat(strings.TrimSpace(*p), 64)
		if ferr != nil || f != float64(int64(f)) {
			rr.bad(c, *p, "not an integer")
			return nil
		}
		v = int64(f)
	}
	if minusOneNull && v < 0 {
		return nil
	}
	return &v
}

// int is a required integer (IDs); 0 when missing or malformed (recorded).
func (rr *rowReader) int(c doris.Column) int64 {
	if p := rr.optInt(c, false); p != nil {
		return *p
	}
	if rr.t.Has(c.Name) && rr.t.Get(rr.r, c.Name) == nil {
		rr.bad(c, "NULL", "required value is NULL")
	}
	return 0
}

func (rr *rowReader) optFloat(c doris.Column) *float64 {
	p := rr.cell(c)
	if p == nil || isNullText(strings.TrimSpace(*p)) {
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(*p), 64)
	if err != nil {
		rr.bad(c, *p, "not a number")
		return nil
	}
	return &v
}

// optBool reads Doris BOOLEAN (TINYINT 1/0 on the wire) and the true/false
// text of SHOW statements.
func (rr *rowReader) optBool(c doris.Column) *bool {
	p := rr.cell(c)
	if p == nil || isNullText(strings.TrimSpace(*p)) {
		return nil
	}
	v, err := snapshot.ParseBool(*p)
	if err != nil {
		rr.bad(c, *p, err.Error())
		return nil
	}
	return v
}

func (rr *rowReader) bool(c doris.Column) bool {
	p := rr.optBool(c)
	return p != nil && *p
}

// optTSO reads a BIGINT TSO column; negative values and the null spellings
// mean "none" (docs/tso.md).
func (rr *rowReader) optTSO(c doris.Column) *tso.TSO {
	p := rr.cell(c)
	if p == nil {
		return nil
	}
	parsed, err := tso.Parse(*p)
	if err != nil {
		rr.bad(c, *p, err.Error())
		return nil
	}
	if parsed.Kind != tso.KindTSO {
		return nil
	}
	v := parsed.TSO
	return &v
}

// optTimeMs reads a time as Unix ms from either an integer (ms, as
// LAST_CONSUMPTION_TIME) or datetime text in the session time zone (as the
// TVFs write CreateTime). -1 and the null spellings are nil.
func (rr *rowReader) optTimeMs(c doris.Column) *int64 {
	p := rr.cell(c)
	if p == nil {
		return nil
	}
	s := strings.TrimSpace(*p)
	if isNullText(s) {
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v < 0 {
			return nil
		}
		return &v
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, rr.loc); err == nil {
			v := t.UnixMilli()
			return &v
		}
	}
	rr.bad(c, *p, "not a time (want Unix ms or yyyy-MM-dd HH:mm:ss)")
	return nil
}

// location resolves a MySQL time_zone value: an IANA name, UTC/GMT, or an
// offset such as +08:00. ok=false for anything else (e.g. CST, ambiguous).
func location(tz string) (*time.Location, bool) { return snapshot.ParseTimeZone(tz) }
