package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// This file holds the one parser of each Doris text the tool interprets
// (issue 10 "Raw text parsed once"). Normalize (normalize.go) runs them when a
// snapshot is built — at the end of a live collection and when a file or
// scenario is loaded — and diag reads only the typed fields they fill.

// IsNullText reports the TVF and SQL spellings of "no value": empty text,
// `\N` (what tasks()/jobs()/mv_infos() write for null, doris.md §5) and NULL.
func IsNullText(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || t == `\N` || strings.EqualFold(t, "NULL")
}

// ParseBool reads a Doris BOOLEAN (TINYINT 1/0 on the wire) or the
// true/false text of SHOW statements and table properties. nil, nil for the
// null spellings; an error for anything else.
func ParseBool(s string) (*bool, error) {
	if IsNullText(s) {
		return nil, nil
	}
	var v bool
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		v = true
	case "0", "false", "no":
		v = false
	default:
		return nil, errors.New("not a boolean")
	}
	return &v, nil
}

// TableRef names a table as "[ctl.][db.]name"; DB is filled from the MV's
// database when the text leaves it out.
type TableRef struct {
	Catalog string `json:"catalog,omitempty"`
	DB      string `json:"db"`
	Name    string `json:"name"`
}

func (t TableRef) String() string {
	if t.DB == "" {
		return t.Name
	}
	return t.DB + "." + t.Name
}

// ParseTableRef reads "name", "db.name" or "ctl.db.name" (backquotes allowed).
func ParseTableRef(s, defaultDB string) (TableRef, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return TableRef{}, false
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), "`\"'")
		if parts[i] == "" {
			return TableRef{}, false
		}
	}
	switch len(parts) {
	case 1:
		return TableRef{DB: defaultDB, Name: parts[0]}, true
	case 2:
		return TableRef{DB: parts[0], Name: parts[1]}, true
	case 3:
		return TableRef{Catalog: parts[0], DB: parts[1], Name: parts[2]}, true
	}
	return TableRef{}, false
}

// RefreshInfo is mv_infos().RefreshInfo parsed: MTMVRefreshInfo.toString(),
// "BUILD <mode> REFRESH <method> [FALLBACK] ON <trigger> [EVERY n UNIT [STARTS t]]"
// (doris.md §5). Words the parser does not know are kept in Unrecognized
// (and counted in Malformed): newer builds may add clauses.
type RefreshInfo struct {
	Raw       string `json:"raw"`
	BuildMode string `json:"build_mode,omitempty"` // IMMEDIATE | DEFERRED
	// Method is the requested refresh method: AUTO | COMPLETE | INCREMENTAL | ...
	Method string `json:"method,omitempty"`
	// Fallback is "INCREMENTAL FALLBACK": the refresh may fall back to
	// PARTITIONS then COMPLETE when the delta cannot be applied (doris.md §5
	// attempt chain). AUTO falls back too (FallbackAllowed).
	Fallback bool `json:"fallback,omitempty"`
	// Trigger is MANUAL | COMMIT | SCHEDULE; "" when absent.
	Trigger string `json:"trigger,omitempty"`
	// Interval and IntervalUnit are the schedule of ON SCHEDULE EVERY n UNIT.
	Interval     int64  `json:"interval,omitempty"`
	IntervalUnit string `json:"interval_unit,omitempty"`
	Starts       string `json:"starts,omitempty"`
	// Unrecognized holds the words no rule consumed, in order.
	Unrecognized []string `json:"unrecognized,omitempty"`
}

// IsIncremental says the MV is maintained by IVM (REFRESH INCREMENTAL, with or
// without FALLBACK).
func (r RefreshInfo) IsIncremental() bool { return r.Method == "INCREMENTAL" }

// FallbackAllowed reports whether a refresh may move from the delta to a
// rebuild: AUTO and INCREMENTAL FALLBACK may, INCREMENTAL alone may not
// (doris.md §5 "Refresh attempt chain").
func (r RefreshInfo) FallbackAllowed() bool {
	return r.Fallback || r.Method == "AUTO"
}

// IntervalSeconds is the schedule interval in seconds, 0 when unknown.
func (r RefreshInfo) IntervalSeconds() int64 {
	mult := map[string]int64{"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 7 * 86400}
	m, ok := mult[strings.TrimSuffix(r.IntervalUnit, "S")]
	if !ok || r.Interval <= 0 {
		return 0
	}
	return r.Interval * m
}

// ParseRefreshInfo reads the RefreshInfo text. `\N` or empty text gives a
// zero RefreshInfo with Raw kept. What it reads is always returned; the
// error names the words it could not place (Unrecognized).
func ParseRefreshInfo(s string) (RefreshInfo, error) {
	r := RefreshInfo{Raw: s}
	if IsNullText(s) {
		return r, nil
	}
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		w := strings.ToUpper(words[i])
		next := func() (string, bool) {
			if i+1 < len(words) {
				i++
				return strings.ToUpper(words[i]), true
			}
			return "", false
		}
		switch w {
		case "BUILD":
			if v, ok := next(); ok {
				r.BuildMode = v
			}
		case "REFRESH":
			if v, ok := next(); ok {
				r.Method = v
			}
		case "FALLBACK":
			r.Fallback = true
		case "ON":
			if v, ok := next(); ok {
				r.Trigger = v
			}
		case "EVERY":
			if i+1 < len(words) {
				if n, err := strconv.ParseInt(words[i+1], 10, 64); err == nil {
					i++
					r.Interval = n
					if u, ok := next(); ok {
						r.IntervalUnit = u
					}
					continue
				}
			}
			r.Unrecognized = append(r.Unrecognized, words[i])
		case "STARTS":
			// The start time is the rest of the text ("2026-11-30 10:00:00").
			r.Starts = strings.Trim(strings.Join(words[i+1:], " "), `"'`)
			i = len(words)
		default:
			r.Unrecognized = append(r.Unrecognized, words[i])
		}
	}
	if len(r.Unrecognized) > 0 {
		return r, fmt.Errorf("unrecognized words in RefreshInfo: %s", strings.Join(r.Unrecognized, " "))
	}
	return r, nil
}

// MvProperties is mv_infos().MvProperties parsed.
//
// Real Doris writes mv.getMvProperties().toString(), a Java Map.toString():
// "{k=v, k2=v2}" or "{}" (MetadataGenerator.mtmvMetadataResult in
// fe/fe-core/.../tablefunction/MetadataGenerator.java; the mv_infos docs show
// "{partition_sync_limit=100, partition_sync_time_unit=YEAR}"). Entries are
// separated by ", " (comma and space); a value may itself hold commas
// (excluded_trigger_tables=db.t1,db.t2). A JSON object is accepted as a
// fallback (older dorisdiag fixtures, hand-written snapshots).
type MvProperties struct {
	// Shape is how the text was written: "" (null or empty), "map" (Java
	// Map.toString, the real form) or "json".
	Shape      string            `json:"shape,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	// ExcludedTriggerTables is excluded_trigger_tables, comma-separated
	// "[db.]table" names (apache/doris#69907 §1 S1: changes to them trigger no refresh),
	// a bare name bound to the MV's database.
	//
	// Doris does not bind it so: MTMVPartitionUtil.isTableNamelike matches a
	// bare name against a base table of that name in any database (and
	// "db.t" in any catalog). ExcludedAsWritten and MatchesExcluded follow
	// Doris; this field and IsExcluded are kept for the analyses that still
	// read them.
	ExcludedTriggerTables []TableRef `json:"excluded_trigger_tables,omitempty"`
	// ExcludedAsWritten is excluded_trigger_tables as written: DB and
	// Catalog empty where the name leaves them out.
	ExcludedAsWritten []TableRef `json:"excluded_as_written,omitempty"`
	// Unparsed is text no rule could read, kept so nothing is silently dropped.
	Unparsed string `json:"unparsed,omitempty"`
}

// IsExcluded reports whether base table db.name is in excluded_trigger_tables.
func (p MvProperties) IsExcluded(db, name string) bool {
	for _, t := range p.ExcludedTriggerTables {
		if strings.EqualFold(t.DB, db) && strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// MatchesExcluded reports whether the base table ctl.db.name is excluded as
// Doris decides it (MTMVPartitionUtil.isTableNamelike, the rule its unit test
// MTMVPartitionUtilTest.testIsTableNamelike pins): the table names are equal,
// and the database and catalog are equal where the excluded name gives them
// ("t1" matches any database's t1, "db1.t1" any catalog's, "ctl1.t1" is
// database ctl1). Doris compares names exactly; an empty ctl here (a base
// table whose catalog is unknown) matches any catalog.
func (p MvProperties) MatchesExcluded(ctl, db, name string) bool {
	for _, t := range p.ExcludedAsWritten {
		if t.Name != name {
			continue
		}
		if t.DB != "" && t.DB != db {
			continue
		}
		if t.Catalog != "" && ctl != "" && t.Catalog != ctl {
			continue
		}
		return true
	}
	return false
}

// isPropertyKey says whether k can be a property name: the text before "="
// at the start of a ", "-separated fragment. A fragment whose text before
// "=" is not one continues the value before it.
func isPropertyKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ParseMvProperties reads the MvProperties text of an MV in database db. It
// returns what it could read; the error says what it could not (the text is
// then counted in Malformed by Normalize).
func ParseMvProperties(s, db string) (MvProperties, error) {
	p := MvProperties{}
	t := strings.TrimSpace(s)
	if IsNullText(t) {
		return p, nil
	}
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		p.Unparsed = t
		return p, errors.New("not a Java map {k=v, ...} nor a JSON object")
	}
	p.Properties = map[string]string{}
	if strings.TrimSpace(t[1:len(t)-1]) == "" {
		p.Shape = "map" // "{}": Java's empty map (and JSON's)
		return p, nil
	}
	if json.Valid([]byte(t)) {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(t))
		d.UseNumber()
		if err := d.Decode(&m); err == nil {
			p.Shape = "json"
			for k, v := range m {
				switch x := v.(type) {
				case string:
					p.Properties[k] = x
				default:
					b, _ := json.Marshal(x)
					p.Properties[k] = string(b)
				}
			}
			p.fillExcluded(db)
			return p, nil
		}
	}
	p.Shape = "map"
	body := strings.TrimSpace(t[1 : len(t)-1])
	if body == "" {
		return p, nil
	}
	var key string
	var unparsed []string
	for _, frag := range strings.Split(body, ", ") {
		if eq := strings.IndexByte(frag, '='); eq >= 0 && isPropertyKey(strings.TrimSpace(frag[:eq])) {
			key = strings.TrimSpace(frag[:eq])
			p.Properties[key] = frag[eq+1:]
			continue
		}
		if key == "" {
			unparsed = append(unparsed, frag)
			continue
		}
		// ", " inside a value (a value the user wrote as "a, b").
		p.Properties[key] += ", " + frag
	}
	p.fillExcluded(db)
	if len(unparsed) > 0 {
		p.Unparsed = strings.Join(unparsed, ", ")
		return p, fmt.Errorf("text before the first k=v entry: %q", p.Unparsed)
	}
	return p, nil
}

func (p *MvProperties) fillExcluded(db string) {
	v, ok := p.Properties["excluded_trigger_tables"]
	if !ok {
		return
	}
	v = strings.Trim(strings.TrimSpace(v), `"'[]`)
	seen, seenW := map[TableRef]bool{}, map[TableRef]bool{}
	for _, part := range strings.Split(v, ",") {
		name := strings.Trim(strings.TrimSpace(part), `"'`)
		if ref, ok := ParseTableRef(name, db); ok && !seen[ref] {
			seen[ref] = true
			p.ExcludedTriggerTables = append(p.ExcludedTriggerTables, ref)
		}
		if ref, ok := ParseTableRef(name, ""); ok && !seenW[ref] {
			seenW[ref] = true
			p.ExcludedAsWritten = append(p.ExcludedAsWritten, ref)
		}
	}
	for _, l := range [][]TableRef{p.ExcludedTriggerTables, p.ExcludedAsWritten} {
		sort.Slice(l, func(i, j int) bool { return l[i].String() < l[j].String() })
	}
}

// BaseTableStream is one entry of mv_infos().IvmBaseTableStreams: a base table
// and the internal stream that follows it.
type BaseTableStream struct {
	BaseTable TableRef `json:"base_table"`
	Stream    string   `json:"stream,omitempty"`
	StreamID  *int64   `json:"stream_id,omitempty"`
}

// BaseTableStreams is mv_infos().IvmBaseTableStreams parsed.
type BaseTableStreams struct {
	// Present: the build wrote a value (not empty, not `\N`).
	Present bool `json:"present,omitempty"`
	// Readable: the text parsed (true for an absent value too).
	Readable bool              `json:"readable,omitempty"`
	Entries  []BaseTableStream `json:"entries,omitempty"`
	// Raw is the text as read, for display.
	Raw string `json:"raw,omitempty"`
}

// ParseIvmBaseTableStreams reads mv_infos().IvmBaseTableStreams, whose format
// is documented only (the IVM doc; in no indexed Doris code version:
// UNVERIFIED). It accepts, in order: a JSON object {"db.table": "stream"} or
// {"db.table": {"streamName":..., "streamId":...}}, a JSON array of such
// objects, a Java map "{db.table=stream, ...}", and "db.table:stream" or
// "db.table->stream" pairs separated by commas or semicolons. ok is false
// when the text is not empty and none of them fits.
func ParseIvmBaseTableStreams(s, db string) (out []BaseTableStream, ok bool) {
	t := strings.TrimSpace(s)
	if IsNullText(t) || t == "{}" || t == "[]" {
		return nil, true
	}
	if json.Valid([]byte(t)) {
		var v any
		d := json.NewDecoder(strings.NewReader(t))
		d.UseNumber()
		if err := d.Decode(&v); err == nil {
			out, ok = baseStreamsFromJSON(v, db)
			sortBaseStreams(out)
			return out, ok
		}
	}
	body := t
	if strings.HasPrefix(body, "{") && strings.HasSuffix(body, "}") {
		body = body[1 : len(body)-1]
	}
	for _, part := range strings.FieldsFunc(body, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		var k, v string
		for _, sep := range []string{"->", "=", ":"} {
			if i := strings.Index(part, sep); i > 0 {
				k, v = part[:i], part[i+len(sep):]
				break
			}
		}
		ref, rok := ParseTableRef(k, db)
		if !rok {
			return nil, false
		}
		out = append(out, BaseTableStream{BaseTable: ref, Stream: strings.Trim(strings.TrimSpace(v), "`\"'")})
	}
	sortBaseStreams(out)
	return out, len(out) > 0
}

func baseStreamsFromJSON(v any, db string) ([]BaseTableStream, bool) {
	var out []BaseTableStream
	switch x := v.(type) {
	case map[string]any:
		// Either {"db.table": stream...} or one object describing one entry.
		if e, ok := baseStreamEntry(x, db); ok {
			return []BaseTableStream{e}, true
		}
		for k, val := range x {
			ref, ok := ParseTableRef(k, db)
			if !ok {
				return nil, false
			}
			e := BaseTableStream{BaseTable: ref}
			switch y := val.(type) {
			case string:
				e.Stream = y
			case map[string]any:
				if d, ok := baseStreamEntry(y, db); ok {
					e.Stream, e.StreamID = d.Stream, d.StreamID
				}
			case json.Number:
				if id, err := y.Int64(); err == nil {
					e.StreamID = &id
				}
			}
			out = append(out, e)
		}
		return out, true
	case []any:
		for _, item := range x {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, false
			}
			e, ok := baseStreamEntry(m, db)
			if !ok {
				sub, ok := baseStreamsFromJSON(m, db)
				if !ok {
					return nil, false
				}
				out = append(out, sub...)
				continue
			}
			out = append(out, e)
		}
		return out, true
	}
	return nil, false
}

// baseStreamEntry reads {"baseTable"|"base_table"|"table": "db.t", "stream"|"streamName": s, "streamId": n}.
func baseStreamEntry(m map[string]any, db string) (BaseTableStream, bool) {
	get := func(keys ...string) (any, bool) {
		for k, v := range m {
			for _, want := range keys {
				if strings.EqualFold(k, want) {
					return v, true
				}
			}
		}
		return nil, false
	}
	tv, ok := get("baseTable", "base_table", "table", "baseTableName", "base_table_name")
	if !ok {
		return BaseTableStream{}, false
	}
	ts, _ := tv.(string)
	if dbv, ok := get("baseTableDb", "base_table_db", "db"); ok {
		if d, _ := dbv.(string); d != "" && !strings.Contains(ts, ".") {
			ts = d + "." + ts
		}
	}
	ref, ok := ParseTableRef(ts, db)
	if !ok {
		return BaseTableStream{}, false
	}
	e := BaseTableStream{BaseTable: ref}
	if sv, ok := get("stream", "streamName", "stream_name"); ok {
		e.Stream, _ = sv.(string)
	}
	if iv, ok := get("streamId", "stream_id"); ok {
		switch n := iv.(type) {
		case json.Number:
			if id, err := n.Int64(); err == nil {
				e.StreamID = &id
			}
		case string:
			if id, err := strconv.ParseInt(n, 10, 64); err == nil {
				e.StreamID = &id
			}
		}
	}
	return e, true
}

func sortBaseStreams(out []BaseTableStream) {
	sort.Slice(out, func(i, j int) bool { return out[i].BaseTable.String() < out[j].BaseTable.String() })
}

// TaskContext is the part of tasks().TaskContext (MTMVTaskContext as JSON,
// e.g. {"triggerMode":"COMMIT","isComplete":false,"partitions":[]},
// doris.md §5) diag reads.
type TaskContext struct {
	// TriggerMode is MANUAL | COMMIT | SYSTEM | SCHEDULE, upper-cased; "" when absent.
	TriggerMode string `json:"triggerMode"`
	// Partitions are the partitions an explicit REFRESH ... PARTITIONS asked for.
	Partitions []string `json:"partitions"`
	// IsComplete is an explicit REFRESH ... COMPLETE.
	IsComplete  bool   `json:"isComplete"`
	RefreshMode string `json:"refreshMode"`
}

// ParseTaskContext reads the TaskContext text; `\N` or empty is a zero
// context. An error (the zero context returned) when it is not that JSON.
func ParseTaskContext(s string) (TaskContext, error) {
	var c TaskContext
	if IsNullText(s) {
		return c, nil
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &c); err != nil {
		return TaskContext{}, fmt.Errorf("not the MTMVTaskContext JSON object: %v", err)
	}
	c.TriggerMode = strings.ToUpper(strings.TrimSpace(c.TriggerMode))
	return c, nil
}

// Shapes of a seed column of open type (CountOrList.Shape).
const (
	ShapeNone  = ""      // NULL, `\N` or empty
	ShapeCount = "count" // an integer: how many
	ShapeList  = "list"  // names, comma-separated or a JSON array
)

// CountOrList is a seed column whose type the seed does not fix
// (ivm_mv_status LAGGING_DEPENDENCIES, EXCLUDED_OUTDATED_DEPENDENCIES,
// DIRTY_PARTITIONS, PENDING_PUBLISH_TXNS; seed 000 names them only): a
// count, or a list of names. A count of 0 and an empty list are none.
type CountOrList struct {
	Shape string   `json:"shape,omitempty"`
	Count *int64   `json:"count,omitempty"` // ShapeCount only
	Names []string `json:"names,omitempty"` // ShapeList only
}

// N is how many: the count, or the number of names.
func (c CountOrList) N() int64 {
	switch c.Shape {
	case ShapeCount:
		if c.Count != nil {
			return *c.Count
		}
	case ShapeList:
		return int64(len(c.Names))
	}
	return 0
}

// None says there is nothing: null, a count of 0 or an empty list.
func (c CountOrList) None() bool { return c.N() == 0 }

// Text renders the value for people: the names, or "N <noun>".
func (c CountOrList) Text(noun string) string {
	if c.Shape == ShapeList {
		return strings.Join(c.Names, ", ")
	}
	return strconv.FormatInt(c.N(), 10) + " " + noun
}

// ParseCountOrList reads a count ("3", "3.0" from a DOUBLE column) or a list
// ("a,b", "[a, b]", `["a","b"]`). A negative or out-of-range count is an
// error; any other text is a list of names.
func ParseCountOrList(s string) (CountOrList, error) {
	t := strings.TrimSpace(s)
	if IsNullText(t) {
		return CountOrList{}, nil
	}
	if isDigits(strings.TrimPrefix(t, "-")) || isWholeFloat(t) {
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(t, 64)
			if ferr != nil || f != float64(int64(f)) || f > 1<<62 || f < -(1<<62) {
				return CountOrList{}, errors.New("count out of range")
			}
			v = int64(f)
		}
		if v < 0 {
			return CountOrList{}, errors.New("negative count")
		}
		return CountOrList{Shape: ShapeCount, Count: &v}, nil
	}
	var names []string
	if strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
		var arr []any
		d := json.NewDecoder(strings.NewReader(t))
		d.UseNumber()
		if d.Decode(&arr) == nil {
			for _, v := range arr {
				var n string
				switch x := v.(type) {
				case string:
					n = x
				default:
					b, _ := json.Marshal(x)
					n = string(b)
				}
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, n)
				}
			}
			return CountOrList{Shape: ShapeList, Names: names}, nil
		}
	}
	for _, p := range strings.Split(strings.Trim(t, "[]"), ",") {
		if p = strings.Trim(strings.TrimSpace(p), "\"'`"); p != "" {
			names = append(names, p)
		}
	}
	return CountOrList{Shape: ShapeList, Names: names}, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isWholeFloat accepts "3.0", "-1.0" (DOUBLE-typed counts).
func isWholeFloat(s string) bool {
	i := strings.IndexByte(s, '.')
	return i > 0 && isDigits(strings.TrimPrefix(s[:i], "-")) && isDigits(s[i+1:])
}

// ChangelogConfig is what a base table's changelog properties say
// (changelog.* on 5.0 and the seeds, binlog.* on every indexed Doris build:
// TableProperty.setBinlogConfig / BinlogConfig, doris.md §6).
type ChangelogConfig struct {
	Naming  string // "changelog" | "binlog"; "" when no key of either was set
	Enabled *bool  // <naming>.enable; nil when absent or malformed
	// TTLSeconds is <naming>.ttl_seconds; nil when absent or malformed.
	// The Doris default is applied by Normalize, never for a malformed value.
	TTLSeconds *int64
	// TTLMissing: the changelog is on and ttl_seconds is absent (Doris's
	// default 86400 applies, doris.md §2).
	TTLMissing bool
}

// ParseChangelogConfig reads the enable and ttl_seconds properties. Each
// error names the property and the value that does not parse ("7d" is not
// a number of seconds); such a value is unknown, never the default.
// Each returned Malformed has Column (the property) and Value filled.
func ParseChangelogConfig(props map[string]string) (ChangelogConfig, []Malformed) {
	var c ChangelogConfig
	var errs []Malformed
	for _, prefix := range []string{"changelog.", "binlog."} {
		en, hasEn := props[prefix+"enable"]
		ttl, hasTTL := props[prefix+"ttl_seconds"]
		if !hasEn && !hasTTL {
			continue
		}
		c.Naming = strings.TrimSuffix(prefix, ".")
		if hasEn {
			v, err := ParseBool(en)
			if err != nil || v == nil {
				errs = append(errs, Malformed{Column: prefix + "enable", Value: en, Error: "not true or false: changelog state unknown"})
			} else {
				c.Enabled = v
			}
		}
		if hasTTL {
			v, err := strconv.ParseInt(strings.TrimSpace(ttl), 10, 64)
			if err != nil {
				errs = append(errs, Malformed{Column: prefix + "ttl_seconds", Value: ttl, Error: "not a whole number of seconds: TTL unknown (the default 86400 is not assumed)"})
			} else {
				c.TTLSeconds = &v
			}
		}
		c.TTLMissing = !hasTTL && c.Enabled != nil && *c.Enabled
		break
	}
	return c, errs
}
