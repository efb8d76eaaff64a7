package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/tso"
)

// DefaultMaxBytes bounds a snapshot file read (design.md "Bounded reads"): a
// 2,000-MV, 50,000-partition snapshot is about 60 MB of JSON.
const DefaultMaxBytes = 512 << 20

// Load decodes a snapshot, refusing more than maxBytes (<= 0: DefaultMaxBytes),
// a schema_version newer than this build reads, and trailing garbage. It
// never panics on bad input. The stream is decoded in one pass, never read
// whole into a buffer first: a stream that is not JSON (a piped /dev/zero)
// is refused after its first bytes.
func Load(r io.Reader, maxBytes int64) (*Snapshot, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	// The decoder reads 512 bytes at a time: 110,000 read calls for the
	// scale snapshot without a buffer in between.
	lr := &limitReader{r: bufio.NewReaderSize(r, 64<<10), left: maxBytes}
	var pos func(int64) (int, int, bool)
	if ra, ok := r.(io.ReaderAt); ok {
		// Only on the error path: re-read the prefix of the file for the
		// line and column.
		pos = func(off int64) (int, int, bool) { return lineCol(io.NewSectionReader(ra, 0, off)) }
	}
	s, err := decode(lr, pos)
	if lr.over {
		return nil, fmt.Errorf("snapshot is larger than the %d-byte limit", maxBytes)
	}
	if lr.err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", lr.err)
	}
	return s, err
}

// Decode parses snapshot JSON already in memory: exactly one JSON object
// (anything after it is refused as trailing data), with a schema_version
// this build reads. TSOs and other integers never pass through float64.
func Decode(data []byte) (*Snapshot, error) {
	return decode(bytes.NewReader(data), func(off int64) (int, int, bool) {
		if off > int64(len(data)) {
			return 0, 0, false
		}
		return lineCol(bytes.NewReader(data[:off]))
	})
}

// limitReader fails the read after left bytes; over says the limit did it,
// err is any other read error (both kept apart from JSON errors).
type limitReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

var errOverLimit = errors.New("snapshot over the size limit")

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more than the limit proves the stream is longer.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			l.over = true
			return 0, errOverLimit
		}
		if err != nil && err != io.EOF {
			l.err = err
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

// snapshotFields maps each top-level JSON key of Snapshot to its field, so
// that the object is decoded key by key from the stream.
var snapshotFields = sync.OnceValue(func() map[string]int {
	t := reflect.TypeFor[Snapshot]()
	m := make(map[string]int, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = i
	}
	return m
})

// field returns the field the key names, matched as encoding/json does:
// the exact name first, then case-insensitively.
func field(v reflect.Value, key string) (any, bool) {
	fields := snapshotFields()
	i, ok := fields[key]
	if !ok {
		for name, j := range fields {
			if strings.EqualFold(name, key) {
				i, ok = j, true
				break
			}
		}
	}
	if !ok {
		return nil, false
	}
	return v.Field(i).Addr().Interface(), true
}

// decode reads one snapshot object from r in a single pass: the top-level
// object key by key, schema_version checked as soon as it is read (before
// any other value is decoded, so a newer schema is refused as such and not
// as a type error), each other value decoded straight into its field. A
// value that comes before schema_version is held raw until the version is
// known (the writer puts schema_version first, so this is rare and small).
// pos maps a byte offset to a line and column for errors, when it can.
func decode(r io.Reader, pos func(int64) (int, int, bool)) (*Snapshot, error) {
	dec := gojson.NewDecoder(r)
	dec.UseNumber()
	at := func(base int64, err error) error { return jsonErrAt(pos, base, err) }
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a dorisdiag snapshot: %w", at(0, err))
	}
	if d, ok := tok.(gojson.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a dorisdiag snapshot: the top level is %s, not a JSON object", tokenKind(tok))
	}
	var s Snapshot
	sv := reflect.ValueOf(&s).Elem()
	var version *int
	type held struct {
		key  string
		raw  json.RawMessage
		base int64
	}
	var early []held
	// Elements of the top-level arrays that are no object (null, 42):
	// reported once the object is read (a "malformed" key later in the
	// file must not overwrite them).
	var bad []Malformed
	into := func(key string, base int64, d *gojson.Decoder) error {
		ptr, ok := field(sv, key)
		if !ok {
			var skip json.RawMessage
			ptr = &skip
		}
		var err error
		if rv := reflect.ValueOf(ptr).Elem(); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Struct {
			err = decodeObjects(d, rv, key, &bad)
		} else {
			err = d.Decode(ptr)
		}
		if err != nil {
			if se := (*gojson.SyntaxError)(nil); errors.As(err, &se) {
				return fmt.Errorf("not a dorisdiag snapshot: %w", at(base, err))
			}
			return fmt.Errorf("decoding snapshot: %w", at(base, err))
		}
		return nil
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a dorisdiag snapshot: %w", at(0, err))
		}
		key, _ := kt.(string)
		// The value starts after the key and its colon.
		base := dec.InputOffset() + 1
		if strings.EqualFold(key, "schema_version") {
			if err := dec.Decode(&version); err != nil {
				return nil, fmt.Errorf("not a dorisdiag snapshot: %w", at(base, err))
			}
			if err := checkVersion(version); err != nil {
				return nil, err
			}
			s.SchemaVersion = *version
			for _, h := range early {
				d := gojson.NewDecoder(bytes.NewReader(h.raw))
				d.UseNumber()
				err := into(h.key, h.base, d)
				if err != nil {
					return nil, err
				}
			}
			early = nil
			continue
		}
		if strings.EqualFold(key, "kind") {
			// Files written before "kind" existed have none and are read;
			// any other kind is another dorisdiag document (a check report).
			var kind *string
			if err := dec.Decode(&kind); err != nil {
				return nil, fmt.Errorf("not a dorisdiag snapshot: kind: %w", at(base, err))
			}
			if kind == nil || *kind != Kind {
				got := "null"
				if kind != nil {
					got = strconv.Quote(*kind)
				}
				return nil, fmt.Errorf("not a dorisdiag snapshot: kind is %s, want %q (docs/snapshot.md)", got, Kind)
			}
			// Not kept in s: the kind belongs to the file, and Write adds it.
			continue
		}
		if version == nil {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("not a dorisdiag snapshot: %w", at(base, err))
			}
			early = append(early, held{key, raw, base})
			continue
		}
		if err := into(key, base, dec); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("not a dorisdiag snapshot: %w", at(0, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("decoding snapshot: trailing data after the JSON object (at byte %d)", dec.InputOffset())
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	for _, m := range bad {
		s.malformed(m)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// decodeObjects decodes a top-level array of objects (streams, mvs, …) in
// one pass, through pointers, so that a null element is seen as such: it is
// reported with its JSON path ($.streams[0]) in malformed and left out,
// never turned into an object (`"streams":[null]` used to become a stream
// with id 0 and no name, and a STREAM_DISABLED finding about it, issue 14).
// An element that is no object ("streams":[42]) or a wrongly typed field in
// one refuses the file, naming the element's path: the decoder completes the
// array "as best it can", so the other elements of such an array cannot be
// trusted. (Decoding element by element could go on past it, but took 1.5x
// as long over the 50,000 rows of the scale snapshot: the decoder's 512-byte
// window rescans every element that straddles it.)
func decodeObjects(d *gojson.Decoder, slice reflect.Value, key string, bad *[]Malformed) error {
	ptrs := reflect.New(reflect.SliceOf(reflect.PointerTo(slice.Type().Elem())))
	if err := d.Decode(ptrs.Interface()); err != nil {
		var te *gojson.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			idx, rest, _ := strings.Cut(te.Field, ".")
			if _, nerr := strconv.Atoi(idx); nerr == nil {
				if rest == "" {
					a := "a "
					if strings.ContainsAny(te.Value[:1], "aeiou") {
						a = "an "
					}
					return fmt.Errorf("$.%s[%s]: %s%s where an object belongs: %w", key, idx, a, te.Value, err)
				}
				return fmt.Errorf("$.%s[%s].%s: %w", key, idx, rest, err)
			}
		}
		return err
	}
	ps := ptrs.Elem()
	if ps.IsNil() { // "streams": null — no list, as before
		slice.SetZero()
		return nil
	}
	n := 0
	for i := 0; i < ps.Len(); i++ {
		if ps.Index(i).IsNil() {
			*bad = append(*bad, Malformed{Source: "snapshot", Row: fmt.Sprintf("$.%s[%d]", key, i), Column: key, Value: "null",
				Error: "a null element where an object belongs: left out"})
			continue
		}
		n++
	}
	out := reflect.MakeSlice(slice.Type(), n, n)
	for i, j := 0, 0; i < ps.Len(); i++ {
		if p := ps.Index(i); !p.IsNil() {
			out.Index(j).Set(p.Elem())
			p.SetZero() // the element may be collected as soon as it is copied
			j++
		}
	}
	slice.Set(out)
	return nil
}

func checkVersion(v *int) error {
	switch {
	case v == nil:
		return errors.New("not a dorisdiag snapshot: no schema_version field")
	case *v > SchemaVersion:
		return fmt.Errorf("snapshot schema_version %d is newer than this dorisdiag reads (%d): upgrade dorisdiag", *v, SchemaVersion)
	case *v < 1:
		return fmt.Errorf("snapshot schema_version %d is invalid", *v)
	}
	return nil
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case gojson.Delim:
		if t == '[' {
			return "an array"
		}
	case nil:
		return "null"
	case string:
		return "a string"
	case gojson.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%v", tok)
}

// LoadFile loads a snapshot file and records its path in Source.File. The
// file must be a regular file (fileio.OpenInput): a FIFO used to block the
// open forever, a device (--snapshot /dev/zero) was read to the limit; both
// are refused before a byte is read. Standard input is Load's.
func LoadFile(path string, maxBytes int64) (*Snapshot, error) {
	f, fi, err := fileio.OpenInput(path)
	if err != nil {
		return nil, fmt.Errorf("opening snapshot: %w", err)
	}
	defer f.Close()
	// A regular file already over the limit is refused before reading.
	limit := maxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && IsGzip(magic[:]) {
		// A `dorisdiag bundle` archive: its snapshot.json (bundle.go).
		s, err := loadBundle(f, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s.Source.File = path
		return s, nil
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: snapshot is larger than the %d-byte limit (%d bytes)", path, limit, fi.Size())
	}
	s, err := Load(f, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Source.File = path
	return s, nil
}

// Validate checks what every diagnosis relies on: a real current TSO whose
// physical time is a plausible cluster clock; Now is always derived from it
// (model.go: Now is physical(CurrentTSO), the only "now" diag may use).
// Values no diagnosis can interpret (a TTL whose ttl*1000 overflows, seconds
// or Unix-ms times outside any real range, a negative count, a duplicate STREAM_ID) are set to
// nil or dropped and counted in Malformed, never used as if real and never
// silently dropped (design.md "Bad input"). It runs Normalize, which parses
// the raw Doris text into the typed fields diag reads. Validate is idempotent.
func (s *Snapshot) Validate() error {
	if !realTSO(s.Cluster.CurrentTSO) {
		return fmt.Errorf("snapshot cluster.current_tso %d is not a real TSO", int64(s.Cluster.CurrentTSO))
	}
	nowMs := s.Cluster.CurrentTSO.Physical()
	if nowMs < minClockMs || nowMs > maxClockMs {
		return fmt.Errorf("snapshot cluster.current_tso %d is not a plausible cluster clock: its physical time %s is outside %s..%s",
			int64(s.Cluster.CurrentTSO), time.UnixMilli(nowMs).UTC().Format(time.RFC3339),
			time.UnixMilli(minClockMs).UTC().Format("2006"), time.UnixMilli(maxClockMs).UTC().Format("2006"))
	}
	now := time.UnixMilli(nowMs).UTC()
	if !s.Cluster.Now.IsZero() && !s.Cluster.Now.Truncate(time.Millisecond).Equal(now) {
		// Two clocks would mix: ages against one, retention against the other.
		s.malformed(Malformed{Source: "snapshot", Row: "cluster", Column: "now", Value: s.Cluster.Now.Format(time.RFC3339Nano),
			Error: "disagrees with physical(current_tso) " + now.Format(time.RFC3339Nano) + "; the TSO's time is used"})
	}
	s.Cluster.Now = now
	if s.Capabilities.Sources == nil {
		s.Capabilities.Sources = map[string]SourceCapability{}
	}
	s.Normalize()
	s.validateValues(nowMs)
	s.validateDoctor()
	return nil
}

const (
	// minClockMs..maxClockMs bound a cluster clock: TSO physical time before
	// 2000 or after 2200 is not a clock any Doris with a changelog ran on,
	// and ages against it would overflow time.Duration (±292 years).
	minClockMs = 946684800000  // 2000-01-01T00:00:00Z
	maxClockMs = 7258118400000 // 2200-01-01T00:00:00Z
	// maxSeconds bounds a seconds value (a pending age, delay or headroom):
	// beyond it no duration can represent it (time.Duration is ±292 years).
	maxSeconds = float64(math.MaxInt64 / int64(time.Second))
	// maxFutureMs is how far after the cluster clock a Unix-ms time may lie
	// (FE clocks skew by seconds, never by a day).
	maxFutureMs = 24 * 3600 * 1000
)

// AfterClock reports whether t lies more than a day after the cluster clock:
// an offset or partition end the cluster cannot have allocated yet.
func (s *Snapshot) AfterClock(t tso.TSO) bool {
	return t.Physical() > s.Cluster.CurrentTSO.Physical()+maxFutureMs
}

// minCreateTimeMs is 2000-01-01T00:00:00Z: no Doris partition was created
// before it, so an earlier CREATE_TIME is a sentinel or a unit mistake.
const minCreateTimeMs = 946684800000

// PlausibleCreateTimeMs reports whether v can be a real partition creation
// time (Unix ms). information_schema.partitions CREATE_TIME is always 0 on
// real Doris: SchemaTable/MetadataGenerator write setStringVal("NULL") into
// the BIGINT column and the BE's insert_block_column stores the unset
// longVal 0 (schema_scanner.cpp) — 0 means unknown, not 1970-01-01.
func PlausibleCreateTimeMs(v int64) bool { return v >= minCreateTimeMs }

// malformed appends m once (Validate may run again on a loaded snapshot).
func (s *Snapshot) malformed(m Malformed) {
	for _, x := range s.Malformed {
		if x == m {
			return
		}
	}
	s.Malformed = append(s.Malformed, m)
}

// validateValues nils out, and counts, the values no diagnosis can use.
func (s *Snapshot) validateValues(nowMs int64) {
	secs := func(src, row, col string, p **float64) {
		if *p == nil {
			return
		}
		if v := **p; math.IsNaN(v) || math.Abs(v) > maxSeconds {
			s.malformed(Malformed{Source: src, Row: row, Column: col, Value: strconv.FormatFloat(v, 'g', -1, 64),
				Error: "seconds out of any real range"})
			*p = nil
		}
	}
	ms := func(src, row, col string, p **int64) {
		if *p == nil {
			return
		}
		if v := **p; v < 0 || v > nowMs+maxFutureMs {
			s.malformed(Malformed{Source: src, Row: row, Column: col, Value: strconv.FormatInt(v, 10),
				Error: "Unix-ms time before 1970 or more than a day after the cluster clock"})
			*p = nil
		}
	}
	count := func(src, row, col string, p **int64) {
		if *p != nil && **p < 0 {
			s.malformed(Malformed{Source: src, Row: row, Column: col, Value: strconv.FormatInt(**p, 10), Error: "negative count"})
			*p = nil
		}
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		if t.TTLSeconds != nil && *t.TTLSeconds > math.MaxInt64/1000 {
			s.malformed(Malformed{Source: SourceTableProperties, Row: t.DB + "." + t.Name, Column: "ttl_seconds",
				Value: strconv.FormatInt(*t.TTLSeconds, 10), Error: "ttl_seconds*1000 overflows int64: TTL unknown"})
			t.TTLSeconds = nil
		}
	}
	for i := range s.Partitions {
		p := &s.Partitions[i]
		row := p.DB + "." + p.Table + " " + p.Name
		ms(SourcePartitions, row, "visible_time_ms", &p.VisibleTimeMs)
		if p.CreateTimeMs != nil && *p.CreateTimeMs == 0 {
			// Doris's "not available" (see PlausibleCreateTimeMs): unknown,
			// not 1970-01-01, and not malformed.
			p.CreateTimeMs = nil
		}
		ms(SourcePartitions, row, "create_time_ms", &p.CreateTimeMs)
		if p.CreateTimeMs != nil && !PlausibleCreateTimeMs(*p.CreateTimeMs) {
			s.malformed(Malformed{Source: SourcePartitions, Row: row, Column: "create_time_ms", Value: strconv.FormatInt(*p.CreateTimeMs, 10),
				Error: "a partition creation time before 2000-01-01 is no real one (seconds instead of ms?): unknown"})
			p.CreateTimeMs = nil
		}
	}
	seen := make(map[int64]bool, len(s.Streams))
	kept := s.Streams[:0]
	for _, st := range s.Streams {
		row := st.DB + "." + st.Name
		if seen[st.ID] {
			// Two rows with one STREAM_ID would both claim every partition
			// of it: keep the first, count the other.
			s.malformed(Malformed{Source: SourceTableStreams, Row: row, Column: doris.TableStreams.StreamID.Name, Value: strconv.FormatInt(st.ID, 10),
				Error: "duplicate STREAM_ID: this row was left out"})
			continue
		}
		seen[st.ID] = true
		count(SourceTableStreams, row, doris.TableStreams.PendingPartitions.Name, &st.PendingPartitions)
		count(SourceTableStreams, row, doris.TableStreams.GapEvents.Name, &st.GapEvents)
		secs(SourceTableStreams, row, doris.TableStreams.MaxPendingAgeSeconds.Name, &st.MaxPendingAgeSeconds)
		secs(SourceTableStreams, row, doris.TableStreams.MinRetentionHeadroomSeconds.Name, &st.MinRetentionHeadroomSeconds)
		ms(SourceTableStreams, row, doris.TableStreams.LastGapTime.Name, &st.LastGapTimeMs)
		ms(SourceTableStreams, row, doris.TableStreams.MonitorSampleTime.Name, &st.MonitorSampleTimeMs)
		kept = append(kept, st)
	}
	if s.Streams != nil {
		s.Streams = kept
	}
	type unit struct {
		id   int64
		name string
	}
	seenUnit := make(map[unit]bool, len(s.Consumption))
	keptCons := s.Consumption[:0]
	for i := range s.Consumption {
		c := &s.Consumption[i]
		row := c.DB + "." + c.StreamName + " " + c.Unit
		if k := (unit{c.StreamID, c.Unit}); seenUnit[k] {
			// One partition listed twice would count twice (pending
			// partitions, lost rows): keep the first, count the other.
			s.malformed(Malformed{Source: SourceTableStreamConsumption, Row: row, Column: doris.TableStreamConsumption.Unit.Name, Value: c.Unit,
				Error: "duplicate (STREAM_ID, UNIT) row: left out"})
			continue
		}
		seenUnit[unit{c.StreamID, c.Unit}] = true
		secs(SourceTableStreamConsumption, row, doris.TableStreamConsumption.PositionGapSeconds.Name, &c.PositionGapSeconds)
		secs(SourceTableStreamConsumption, row, doris.TableStreamConsumption.PendingAgeSeconds.Name, &c.PendingAgeSeconds)
		secs(SourceTableStreamConsumption, row, doris.TableStreamConsumption.RetentionHeadroomSeconds.Name, &c.RetentionHeadroomSeconds)
		// diag reads such an offset as unknown (streams_partition.go); the
		// value is kept as read, counted here.
		for _, v := range []struct {
			col string
			t   *tso.TSO
		}{{doris.TableStreamConsumption.ConsumptionStatus.Name, c.Offset}, {doris.TableStreamConsumption.ConsumedTSO.Name, c.ConsumedTSO}, {doris.TableStreamConsumption.SourceEndTSO.Name, c.SourceEndTSO}} {
			if v.t != nil && s.AfterClock(*v.t) {
				s.malformed(Malformed{Source: SourceTableStreamConsumption, Row: row, Column: v.col, Value: v.t.String(),
					Error: "TSO more than a day after the cluster's current TSO " + s.Cluster.CurrentTSO.String()})
			}
		}
		ms(SourceTableStreamConsumption, row, doris.TableStreamConsumption.LastConsumptionTime.Name, &c.LastConsumptionTimeMs)
		ms(SourceTableStreamConsumption, row, doris.TableStreamConsumption.LastGapTime.Name, &c.LastGapTimeMs)
		keptCons = append(keptCons, *c)
	}
	if s.Consumption != nil {
		s.Consumption = keptCons
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		ms(SourceJobs, j.MVDatabaseName+"."+j.MVName, doris.Jobs.CreateTime.Name, &j.CreateTimeMs)
	}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		row := t.MVDatabaseName + "." + t.MVName + " task " + strconv.FormatInt(t.TaskID, 10)
		ms(SourceTasks, row, doris.Tasks.CreateTime.Name, &t.CreateTimeMs)
		ms(SourceTasks, row, doris.Tasks.StartTime.Name, &t.StartTimeMs)
		ms(SourceTasks, row, doris.Tasks.FinishTime.Name, &t.FinishTimeMs)
		count(SourceTasks, row, doris.Tasks.IvmRebuiltPartitions.Name, &t.IvmRebuiltPartitions)
		if t.DurationMs != nil && *t.DurationMs < 0 {
			s.malformed(Malformed{Source: SourceTasks, Row: row, Column: doris.Tasks.DurationMs.Name, Value: strconv.FormatInt(*t.DurationMs, 10),
				Error: "negative duration"})
			t.DurationMs = nil
		}
	}
	for i := range s.MVStatus {
		m := &s.MVStatus[i]
		row := m.DB + "." + m.MVName
		count(SourceIVMMVStatus, row, doris.IVMMVStatus.ConsecutiveFailures.Name, &m.ConsecutiveFailures)
		count(SourceIVMMVStatus, row, doris.IVMMVStatus.FallbackCount.Name, &m.FallbackCount)
		count(SourceIVMMVStatus, row, doris.IVMMVStatus.PendingPublishTxns.Name, &m.PendingPublishTxns)
		secs(SourceIVMMVStatus, row, doris.IVMMVStatus.DataDelaySeconds.Name, &m.DataDelaySeconds)
		secs(SourceIVMMVStatus, row, doris.IVMMVStatus.MaxExcludedDelaySeconds.Name, &m.MaxExcludedDelaySeconds)
		secs(SourceIVMMVStatus, row, doris.IVMMVStatus.MinRetentionHeadroomSeconds.Name, &m.MinRetentionHeadroomSeconds)
		secs(SourceIVMMVStatus, row, doris.IVMMVStatus.CurrentTaskAgeSeconds.Name, &m.CurrentTaskAgeSeconds)
		ms(SourceIVMMVStatus, row, doris.IVMMVStatus.LastSuccessTime.Name, &m.LastSuccessTimeMs)
		ms(SourceIVMMVStatus, row, doris.IVMMVStatus.LastFailureTime.Name, &m.LastFailureTimeMs)
		ms(SourceIVMMVStatus, row, doris.IVMMVStatus.LastFallbackTime.Name, &m.LastFallbackTimeMs)
		ms(SourceIVMMVStatus, row, doris.IVMMVStatus.SampleTime.Name, &m.SampleTimeMs)
	}
	for i := range s.Dependencies {
		d := &s.Dependencies[i]
		row := d.DB + "." + d.MVName + " " + d.BaseTableDB + "." + d.BaseTableName
		secs(SourceIVMDependencies, row, doris.IVMDependencies.DelaySeconds.Name, &d.DelaySeconds)
		secs(SourceIVMDependencies, row, doris.IVMDependencies.MinRetentionHeadroomSeconds.Name, &d.MinRetentionHeadroomSeconds)
		ms(SourceIVMDependencies, row, doris.IVMDependencies.SampleTime.Name, &d.SampleTimeMs)
	}
}

func realTSO(t tso.TSO) bool { return t > 0 && t < 1<<63-1 }

// Write encodes a snapshot as indented JSON with a final newline.
func Write(w io.Writer, s *Snapshot) error {
	if s.SchemaVersion == 0 {
		s.SchemaVersion = SchemaVersion
	}
	// A copy carries the kind, so that the caller's in-memory snapshot (and
	// every comparison of two of them) does not change by being written.
	c := *s
	c.Kind = Kind
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	// The error as it is (the write's, naming the file): the caller says
	// what was being written, once (a doubled "writing snapshot:" was
	// issue 25's).
	return enc.Encode(&c)
}

// jsonErrAt adds the line and column (or the byte offset) to a JSON syntax
// or type error. A syntax error's offset counts from the start of the stream;
// a type error's from the start of the value, which begins at base.
func jsonErrAt(pos func(int64) (int, int, bool), base int64, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var gse *gojson.SyntaxError
	var gte *gojson.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = base + te.Offset
	case errors.As(err, &gse):
		off = gse.Offset
	case errors.As(err, &gte):
		off = base + gte.Offset
	}
	if off < 0 {
		return err
	}
	if pos != nil {
		if line, col, ok := pos(off); ok {
			return fmt.Errorf("line %d, column %d: %w", line, col, err)
		}
	}
	return fmt.Errorf("at byte %d: %w", off, err)
}

// lineCol counts the line and column at the end of r.
func lineCol(r io.Reader) (int, int, bool) {
	line, col := 1, 1
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if c == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		if err == io.EOF {
			return line, col, true
		}
		if err != nil {
			return 0, 0, false
		}
	}
}
