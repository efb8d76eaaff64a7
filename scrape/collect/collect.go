// Package collect is the MySQL collector. Collect takes one
// read-only snapshot of a live Doris cluster over the MySQL protocol
// (github.com/go-sql-driver/mysql) and, for the clock fallback and /metrics,
// HTTP GET (docs/snapshot.md "How a live snapshot is taken").
package collect

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Collect takes one snapshot of a live cluster. It fails only when the FE
// cannot be reached or no clock can be read (a snapshot without a current
// TSO cannot be analysed); every other source that fails becomes an entry
// of snap.CouldNotRead and the others still land.
func Collect(ctx context.Context, cfg scrape.Config) (*snapshot.Snapshot, error) {
	cfg.Defaults()
	if cfg.Host == "" {
		return nil, errors.New("live collection: no --host")
	}
	started := time.Now()
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	if err := scrape.ReservedName(addr); err != nil {
		return nil, fmt.Errorf("connecting to %w", err)
	}
	db, err := scrape.OpenDB(cfg, addr)
	if err != nil {
		return nil, cfg.Secret().Redact(fmt.Errorf("connecting to %s: %w", addr, err))
	}
	defer db.Close()
	c := &scrape.SQLClient{DB: db, Timeout: cfg.Timeout, Host: addr, Secret: cfg.Secret()}
	col := &collector{cfg: cfg, c: c, snap: &snapshot.Snapshot{
		SchemaVersion: snapshot.SchemaVersion,
		TakenAt:       started.UTC(),
		Source:        snapshot.Source{Kind: "live", Host: cfg.Host, Port: cfg.Port, User: cfg.User, TasksPerMV: cfg.TasksPerMV},
		Capabilities:  snapshot.Capabilities{Sources: map[string]snapshot.SourceCapability{}},
		CouldNotRead:  []snapshot.ReadGap{},
		Streams:       []snapshot.Stream{},
		Consumption:   []snapshot.Consumption{},
		MVs:           []snapshot.MVInfo{},
		Jobs:          []snapshot.Job{},
		Tasks:         []snapshot.Task{},
		Tables:        []snapshot.Table{},
		Frontends:     []snapshot.Node{},
		Backends:      []snapshot.Node{},
	}, loc: time.UTC}
	if err := col.run(ctx); err != nil {
		return nil, err
	}
	col.snap.Source.Queries = len(c.Statements())
	col.snap.Source.DurationMs = time.Since(started).Milliseconds()
	if err := col.snap.Validate(); err != nil {
		return nil, err
	}
	return col.snap, nil
}

// collector holds one collection's state.
type collector struct {
	cfg  scrape.Config
	c    *scrape.SQLClient
	snap *snapshot.Snapshot
	loc  *time.Location
	// present maps an information_schema table (lower case) to its columns
	// as the server named them; nil when the probe could not be read.
	present map[string][]string
	// connectedMaster: the FE this session is on is the Master (SHOW
	// FRONTENDS CurrentConnected).
	connectedMaster bool
	// connectedKnown: some SHOW FRONTENDS row said CurrentConnected=Yes.
	connectedKnown bool
	// frontendsRead: SHOW FRONTENDS answered (snap.Frontends is the list).
	frontendsRead bool
}

func (col *collector) gap(source, query string, err error) {
	col.snap.CouldNotRead = append(col.snap.CouldNotRead, snapshot.ReadGap{Source: source, Query: query, Error: err.Error()})
}

func (col *collector) capability(source string, present bool, cols []string) {
	col.snap.Capabilities.Sources[source] = snapshot.SourceCapability{Present: present, Columns: cols}
}

func (col *collector) run(ctx context.Context) error {
	if err := col.session(ctx); err != nil {
		return err
	}
	col.probe(ctx)
	// SHOW FRONTENDS before the clock: GET /api/tso, the last clock
	// fallback, must go to the Master FE's HTTP port (tsoTargets).
	col.frontends(ctx)
	if err := col.clock(ctx); err != nil {
		return err
	}
	col.backends(ctx)
	col.streams(ctx)
	col.consumption(ctx)
	col.jobs(ctx)
	col.tasks(ctx)
	col.mvStatus(ctx)
	col.dependencies(ctx)
	col.mvInfos(ctx)
	col.tables(ctx)
	col.consumers(ctx)
	if col.cfg.WithMetrics {
		col.metrics(ctx)
	}
	col.finish()
	return nil
}

// session is the first statement: it proves the FE answers (a failure here
// fails the collection, naming the host) and reads the session time zone the
// TVFs write their datetime text in.
func (col *collector) session(ctx context.Context) error {
	t, err := col.c.Query(ctx, doris.SessionVars.Statements[0].Build())
	if err != nil {
		return err
	}
	if len(t.Rows) == 0 {
		return nil
	}
	rr := col.reader(t, t.Rows[0], "session", "")
	tz := rr.raw(doris.SessionVars.TimeZone)
	if strings.EqualFold(tz, "SYSTEM") {
		if st, err := col.c.Query(ctx, doris.SessionVars.Statements[1].Build()); err == nil && len(st.Rows) > 0 {
			tz = col.reader(st, st.Rows[0], "session", "").raw(doris.SessionVars.SystemTimeZone)
		}
	}
	col.snap.Cluster.TimeZone = tz
	if l, ok := location(tz); ok {
		col.loc = l
	} else {
		col.gap("@@time_zone", "", fmt.Errorf("time zone %q is not an IANA name or an offset: datetime text of tasks()/jobs() read as UTC", tz))
	}
	if v := rr.raw(doris.SessionVars.VersionComment); v != "" {
		col.snap.Cluster.DorisVersion = strings.TrimSpace(strings.TrimPrefix(v, "Doris version "))
	}
	return nil
}

func (col *collector) reader(t *scrape.Table, r []*string, source, row string) *rowReader {
	return &rowReader{t: t, r: r, source: source, row: row, snap: col.snap, loc: col.loc}
}

// infoTables are the information_schema tables the collector may read: every
// information_schema relation of the wire contract but the probe itself.
func infoTables() []string {
	var out []string
	for _, r := range doris.All() {
		if r.Kind == doris.InfoSchema && r != &doris.Columns.Relation {
			out = append(out, r.Name)
		}
	}
	return out
}

// probe finds which information_schema tables and columns exist, in one
// query (capability detection: a missing newer column is absent, never an
// error). When the probe itself fails, each source is read with SELECT *
// and its columns learnt from the result.
func (col *collector) probe(ctx context.Context) {
	c := doris.Columns
	q := c.Statements[0].Build(doris.QuoteIdent(c.TableName.Name)+", "+doris.QuoteIdent(c.ColumnName.Name), inList(infoTables()))
	t, err := col.c.Query(ctx, q)
	if err != nil {
		col.gap(snapshot.SourceColumns, q, err)
		// Each table is then read with SELECT * (selectInfo): the probe
		// costs nothing, and each source's own failure is its own gap.
		col.snap.Supersede(snapshot.SourceColumns, "SELECT * of each information_schema table")
		col.capability(snapshot.SourceColumns, false, nil)
		return
	}
	col.capability(snapshot.SourceColumns, true, t.Cols)
	col.present = map[string][]string{}
	for _, r := range t.Rows {
		rr := col.reader(t, r, snapshot.SourceColumns, "")
		name := strings.ToLower(rr.raw(doris.Columns.TableName))
		col.present[name] = append(col.present[name], rr.raw(doris.Columns.ColumnName))
	}
}

// selectInfo reads an information_schema table of the wire contract: the
// columns it reads that this build has, by name (LAG and every other
// identifier backquoted), plus where. ok=false when the table does not exist
// in this build (recorded as absent; required says whether that is also a
// gap).
func (col *collector) selectInfo(ctx context.Context, rel *doris.Relation, where string, required bool) (*scrape.Table, bool) {
	source, name := rel.Source, rel.Name
	var cols []string
	if col.present != nil {
		have, ok := col.present[name]
		if !ok {
			col.capability(source, false, nil)
			if required {
				col.gap(source, "", errors.New("not present in this Doris build"))
			}
			return nil, false
		}
		set := map[string]bool{}
		for _, h := range have {
			set[strings.ToUpper(h)] = true
		}
		for _, w := range rel.ReadColumns() {
			if set[strings.ToUpper(w.Name)] {
				cols = append(cols, doris.QuoteIdent(w.Name))
			}
		}
	}
	list := "*"
	if col.present != nil {
		if len(cols) == 0 {
			col.capability(source, true, col.present[name])
			col.gap(source, "", errors.New("none of the expected columns is present"))
			return nil, false
		}
		list = strings.Join(cols, ", ")
	}
	q := "SELECT " + list + " FROM information_schema." + doris.QuoteIdent(name)
	if where != "" {
		q += " WHERE " + where
	}
	t, err := col.c.Query(ctx, q)
	if err != nil {
		if col.present == nil && isUnknownTable(err) {
			col.capability(source, false, nil)
			if required {
				col.gap(source, q, err)
			}
			return nil, false
		}
		col.capability(source, true, nil)
		col.gap(source, q, err)
		return nil, false
	}
	serverCols := t.Cols
	if col.present != nil {
		serverCols = col.present[name]
	}
	col.capability(source, true, serverCols)
	return t, true
}

func isUnknownTable(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1146 || me.Number == 1109) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "unknown table") || strings.Contains(s, "table not found") || strings.Contains(s, "doesn't exist")
}

// inList renders a SQL IN list of string literals (sorted, deduplicated).
func inList(values []string) string {
	sort.Strings(values)
	var out []string
	for i, v := range values {
		if i > 0 && v == values[i-1] {
			continue
		}
		out = append(out, doris.QuoteLiteral(v))
	}
	return "(" + strings.Join(out, ", ") + ")"
}

// finish derives the cluster-level facts from what was read.
func (col *collector) finish() {
	s := col.snap
	s.Cluster.CloudMode = s.Cluster.CommittedTSO != nil
	// Cluster.Naming is derived from the tables' properties by
	// snapshot.Normalize (run by Validate).
	for _, fe := range s.Frontends {
		if fe.IsMaster && fe.Version != "" {
			s.Cluster.DorisVersion = fe.Version
		}
	}
}
