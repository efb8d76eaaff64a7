package diag

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// RefreshInfo is mv_infos().RefreshInfo parsed: MTMVRefreshInfo.toString(),
// "BUILD <mode> REFRESH <method> [FALLBACK] ON <trigger> [EVERY n UNIT [STARTS t]]"
// (doris.md §5). Words the parser does not know are kept in Unrecognized
// rather than rejected: newer builds may add clauses.
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

// ParseRefreshInfo reads the RefreshInfo text. It never fails: `\N` or empty
// text gives a zero RefreshInfo with Raw kept; unknown words are collected.
func ParseRefreshInfo(s string) RefreshInfo {
	r := RefreshInfo{Raw: s}
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
		case `\N`:
			// an unset value: nothing to read
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
	return r
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

// parseTableRef reads "name", "db.name" or "ctl.db.name" (backquotes allowed).
func parseTableRef(s, defaultDB string) (TableRef, bool) {
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

// MvProperties is mv_infos().MvProperties parsed. The server writes a Java
// Map.toString() ("{k=v, k2=v2}"); some builds and tools write JSON. Values
// are kept as text; ExcludedTriggerTables is the one property diag reads.
type MvProperties struct {
	Raw        string            `json:"raw,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	// ExcludedTriggerTables is excluded_trigger_tables, comma-separated
	// "[db.]table" names (seed §1 S1: changes to them trigger no refresh).
	ExcludedTriggerTables []TableRef `json:"excluded_trigger_tables,omitempty"`
	// Unparsed is text no rule could read, kept so nothing is silently dropped.
	Unparsed string `json:"unparsed,omitempty"`
}

// isPropertyKey tells a comma that separates entries ("k=v, k2=v2") from a
// comma inside a value ("excluded_trigger_tables=a, b"): a fragment whose text
// before "=" is not a plain property name continues the value before it.
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

// ParseMvProperties reads the MvProperties text for an MV in database db.
// It never fails; what it cannot read is kept in Unparsed.
func ParseMvProperties(s, db string) MvProperties {
	p := MvProperties{Raw: s, Properties: map[string]string{}}
	t := strings.TrimSpace(s)
	if t == "" || t == `\N` || strings.EqualFold(t, "NULL") || t == "{}" {
		return p
	}
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(t), &m); err == nil {
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
			return p
		}
	}
	body := t
	if strings.HasPrefix(body, "{") && strings.HasSuffix(body, "}") {
		body = body[1 : len(body)-1]
	}
	var key string
	var unparsed []string
	for _, frag := range strings.Split(body, ",") {
		if eq := strings.IndexByte(frag, '='); eq >= 0 && isPropertyKey(strings.TrimSpace(frag[:eq])) {
			key = strings.TrimSpace(frag[:eq])
			p.Properties[key] = strings.TrimSpace(frag[eq+1:])
			continue
		}
		if key == "" {
			if strings.TrimSpace(frag) != "" {
				unparsed = append(unparsed, strings.TrimSpace(frag))
			}
			continue
		}
		// A comma inside a value: "excluded_trigger_tables=a, b".
		p.Properties[key] += "," + strings.TrimSpace(frag)
	}
	p.Unparsed = strings.Join(unparsed, ",")
	p.fillExcluded(db)
	return p
}

func (p *MvProperties) fillExcluded(db string) {
	v, ok := p.Properties["excluded_trigger_tables"]
	if !ok {
		return
	}
	v = strings.Trim(strings.TrimSpace(v), `"'[]`)
	seen := map[TableRef]bool{}
	for _, part := range strings.Split(v, ",") {
		if ref, ok := parseTableRef(strings.Trim(strings.TrimSpace(part), `"'`), db); ok && !seen[ref] {
			seen[ref] = true
			p.ExcludedTriggerTables = append(p.ExcludedTriggerTables, ref)
		}
	}
	sort.Slice(p.ExcludedTriggerTables, func(i, j int) bool {
		return p.ExcludedTriggerTables[i].String() < p.ExcludedTriggerTables[j].String()
	})
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

// BaseTableStream is one entry of mv_infos().IvmBaseTableStreams: a base table
// and the internal stream that follows it.
type BaseTableStream struct {
	BaseTable TableRef `json:"base_table"`
	Stream    string   `json:"stream,omitempty"`
	StreamID  *int64   `json:"stream_id,omitempty"`
}

// ParseIvmBaseTableStreams reads mv_infos().IvmBaseTableStreams, whose format
// doris.md §5 calls undocumented. It accepts, in order: a JSON object
// {"db.table": "stream"} or {"db.table": {"streamName":..., "streamId":...}},
// a JSON array of such objects, a Java map "{db.table=stream, ...}", and
// "db.table:stream" or "db.table->stream" pairs separated by commas or
// semicolons. ok is false when the text is not empty and none of them fits
// (the caller counts it as malformed and derives the mapping from streams).
func ParseIvmBaseTableStreams(s, db string) (out []BaseTableStream, ok bool) {
	t := strings.TrimSpace(s)
	if t == "" || t == `\N` || strings.EqualFold(t, "NULL") || t == "{}" || t == "[]" {
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
		ref, rok := parseTableRef(k, db)
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
			ref, ok := parseTableRef(k, db)
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
	ref, ok := parseTableRef(ts, db)
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
