package doctor

import (
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// What the config rules read: one key of one node's reading, and the
// objects of the snapshot that need the features those keys gate.

// setting is one key as one node printed it, or why it is not there.
type setting struct {
	reading *snapshot.ConfigReading
	entry   *snapshot.ConfigEntry
	// absent: the node listed its keys and this one is not among them —
	// not on this build.
	absent bool
}

// known reports whether the node printed the key with a readable value.
func (s setting) known() bool { return s.entry != nil && !s.entry.Masked }

func (s setting) value() string {
	if s.entry == nil {
		return ""
	}
	return strings.TrimSpace(s.entry.Value)
}

// name is the key as the node printed it (experimental_… included).
func (s setting) name(key string) string {
	if s.entry != nil && s.entry.Name != "" {
		return s.entry.Name
	}
	return key
}

// bool reads a boolean the way ConfigBase and configbase print it (true,
// false; older BEs 1, 0). ok false when the text is neither.
func (s setting) bool() (v, ok bool) {
	switch strings.ToLower(s.value()) {
	case "true", "1":
		return true, s.known()
	case "false", "0":
		return false, s.known()
	}
	return false, false
}

func (s setting) int() (int64, bool) {
	if !s.known() {
		return 0, false
	}
	n, err := strconv.ParseInt(s.value(), 10, 64)
	return n, err == nil
}

// lookup finds key in one reading.
func lookup(c *snapshot.ConfigReading, key string) setting {
	s := setting{reading: c}
	for i := range c.Entries {
		if c.Entries[i].Key == key {
			s.entry = &c.Entries[i]
			return s
		}
	}
	for _, m := range c.Missing {
		if m == key {
			s.absent = true
		}
	}
	return s
}

// readings returns the readings of one kind of node, one per node (the SQL
// reading of a node preferred over its HTTP one).
func (r *run) readings(node doris.NodeKind) []*snapshot.ConfigReading {
	var out []*snapshot.ConfigReading
	seen := map[string]int{}
	for i := range r.d.Config {
		c := &r.d.Config[i]
		if c.Node != string(node) {
			continue
		}
		id := c.ID + "|" + c.Host
		if node == doris.FE && c.ID == "" {
			id = "|" + c.Host
		}
		if j, ok := seen[id]; ok {
			if strings.HasPrefix(out[j].Source, "GET") && !strings.HasPrefix(c.Source, "GET") {
				out[j] = c
			}
			continue
		}
		seen[id] = len(out)
		out = append(out, c)
	}
	return out
}

// master is the reading of a master-only key: the Master's own, else the
// session FE's when the session is on the Master. note says whose value it
// is when it may not be the Master's ("" when it is).
func (r *run) master() (c *snapshot.ConfigReading, note string) {
	fes := r.readings(doris.FE)
	for _, c := range fes {
		if c.IsMaster {
			return c, ""
		}
	}
	if len(fes) == 0 {
		return nil, ""
	}
	if r.d.Session.Known && r.d.Session.IsMaster {
		return fes[0], ""
	}
	return fes[0], " (read on " + group(fes[0]) + ", which may not be the Master: master-only keys apply as the Master has them)"
}

// masterSetting is key as the Master has it.
func (r *run) masterSetting(key string) (setting, string) {
	c, note := r.master()
	if c == nil {
		return setting{}, ""
	}
	return lookup(c, key), note
}

// group names a reading's node in the report, as the network lines name
// it: "FE <name>", "BE <id>".
func group(c *snapshot.ConfigReading) string {
	if c.Node == string(doris.BE) {
		return "BE " + firstNonEmpty(c.ID, c.Host)
	}
	return "FE " + firstNonEmpty(c.ID, c.Host)
}

func nodeObject(c *snapshot.ConfigReading) diag.Object {
	return diag.Object{Kind: "node", Name: group(c)}
}

var clusterObject = diag.Object{Kind: "cluster"}

const groupCluster = "cluster"

// keyDefault is the contract's declared default of a key.
func keyDefault(node doris.NodeKind, key string) string {
	k, _ := doris.ConfigKeyNamed(node, key)
	return k.Default
}

// ---- the objects that need the features ----

// facts are what the snapshot holds that the configuration must serve.
type facts struct {
	// known: the snapshot holds the cluster's objects (it was collected,
	// not only the doctor's readings): "nothing needs it" is a finding of
	// fact only then, else unknown.
	known           bool
	changelogTables []snapshot.Table // changelog (binlog) enabled
	userStreams     []snapshot.Stream
	ivmStreams      []snapshot.Stream
	ivmMVs          []snapshot.MVInfo
	// ivmMinTTL is the smallest positive TTL (s) of an IVM MV's base table,
	// and ivmMinTTLTable the table; 0 when none is known.
	ivmMinTTL      int64
	ivmMinTTLTable string
	// mvTTL is, per MV id, the smallest positive TTL of its base tables.
	mvTTL map[int64]int64
}

func (r *run) facts() facts {
	s := r.s
	f := facts{mvTTL: map[int64]int64{}, known: len(s.Capabilities.Sources) > 0}
	ttl := map[string]int64{}
	for _, t := range s.Tables {
		if t.ChangelogEnabled != nil && *t.ChangelogEnabled {
			f.changelogTables = append(f.changelogTables, t)
		}
		if t.TTLSeconds != nil && *t.TTLSeconds > 0 {
			ttl[t.DB+"."+t.Name] = *t.TTLSeconds
		}
	}
	ivm := map[int64]bool{}
	for _, m := range s.MVs {
		if m.Refresh.IsIncremental() {
			f.ivmMVs = append(f.ivmMVs, m)
			ivm[m.ID] = true
		}
	}
	for _, st := range s.Streams {
		if !st.IsInternal() {
			f.userStreams = append(f.userStreams, st)
			continue
		}
		f.ivmStreams = append(f.ivmStreams, st)
		mvID := int64(0)
		if st.IvmMVID != nil {
			mvID = *st.IvmMVID
		} else if _, id, _, ok := doris.ParseIvmStreamName(st.Name); ok {
			mvID = id
		}
		t, ok := ttl[st.BaseTableDB+"."+st.BaseTableName]
		if !ok {
			continue
		}
		if cur, ok := f.mvTTL[mvID]; !ok || t < cur {
			f.mvTTL[mvID] = t
		}
		if f.ivmMinTTL == 0 || t < f.ivmMinTTL {
			f.ivmMinTTL, f.ivmMinTTLTable = t, st.BaseTableDB+"."+st.BaseTableName
		}
	}
	return f
}

// notRead is the summary of a rule that needs the cluster's objects when
// they were not read.
const notRead = "the cluster's tables, streams and MVs were not read: whether anything needs it is unknown"

// needsChangelog says what needs the binlog feature ("" when nothing does).
func (f facts) needsChangelog() string {
	var parts []string
	if n := len(f.changelogTables); n > 0 {
		parts = append(parts, plural(n, "changelog table"))
	}
	if n := len(f.userStreams) + len(f.ivmStreams); n > 0 {
		parts = append(parts, plural(n, "stream"))
	}
	if n := len(f.ivmMVs); n > 0 {
		parts = append(parts, plural(n, "IVM MV"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// duration prints seconds as Doris users read them: "43200 s (12h0m0s)".
func duration(sec int64) string {
	return strconv.FormatInt(sec, 10) + " s (" + fmtDur(sec) + ")"
}

func fmtDur(sec int64) string {
	neg := sec < 0
	if neg {
		sec = -sec
	}
	d, h, m, s := sec/86400, sec%86400/3600, sec%3600/60, sec%60
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if d > 0 {
		b.WriteString(strconv.FormatInt(d, 10) + "d")
	}
	if h > 0 {
		b.WriteString(strconv.FormatInt(h, 10) + "h")
	}
	if m > 0 {
		b.WriteString(strconv.FormatInt(m, 10) + "m")
	}
	if s > 0 || b.Len() == 0 || b.String() == "-" {
		b.WriteString(strconv.FormatInt(s, 10) + "s")
	}
	return b.String()
}
