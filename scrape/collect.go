// Package scrape is everything that talks to a cluster. Collect takes one
// read-only snapshot of a live Doris cluster over the MySQL protocol
// (github.com/go-sql-driver/mysql) and, for the clock fallback and /metrics,
// HTTP GET (docs/snapshot.md "How a live snapshot is taken").
package scrape

import (
	"context"
	"crypto/tls"
	"database/sql"
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

// Config configures a live collection.
type Config struct {
	Host     string
	Port     int
	HTTPPort int
	User     string
	Password string // from the environment only; never printed
	TLS      bool
	TLSCA    string
	// HTTPScheme is "http" or "https" for the FE's and BEs' HTTP ports;
	// "" is https with TLS or TLSCA, else http (docs/security.md "Network").
	HTTPScheme string
	// AllowHTTPCredentials answers a Basic challenge over plain HTTP even
	// with TLS (--allow-http-credentials); otherwise such a challenge is
	// refused, the credentials unsent.
	AllowHTTPCredentials bool
	// FEHTTPSPort, with HTTPS, is every FE's HTTP(S) port in place of
	// HTTPPort and SHOW FRONTENDS' HttpPort (--fe-https-port: the older
	// enable_https serves HTTPS on Config.https_port).
	FEHTTPSPort int
	Timeout     time.Duration // per network hop (connect, each query, each HTTP request)
	TasksPerMV  int           // tasks() window per MV; 0 = DefaultTasksPerMV

	// WithMetrics also fetches GET /metrics of the FE at Host:HTTPPort into
	// snap.Metrics (default off: a Master FE payload can be 50 MB).
	WithMetrics bool
	// MetricsMaxBytes bounds that body; 0 = DefaultMetricsMaxBytes.
	MetricsMaxBytes int64
	// MaxShowCreate bounds the SHOW CREATE TABLE fallback, used only when
	// information_schema.table_properties cannot be read; 0 = 50.
	MaxShowCreate int
	// MaxShowData bounds the per-table SHOW DATA FROM db.tbl statements,
	// sent only for changelog tables whose database's BinlogSize is not 0
	// (docs/snapshot.md "SHOW DATA"); 0 = 50.
	MaxShowData int

	// DialContext replaces the TCP dialer of the MySQL connection (tests:
	// a black hole for the connect hop); nil dials with net.Dialer.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DefaultTasksPerMV is the tasks() window per MV (design.md "Bounded reads").
const DefaultTasksPerMV = 20

func (cfg *Config) defaults() {
	if cfg.Port == 0 {
		cfg.Port = 9030
	}
	if cfg.HTTPPort == 0 {
		cfg.HTTPPort = 8030
	}
	if cfg.User == "" {
		cfg.User = "root"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.TasksPerMV <= 0 {
		cfg.TasksPerMV = DefaultTasksPerMV
	}
	if cfg.MetricsMaxBytes <= 0 {
		cfg.MetricsMaxBytes = DefaultMetricsMaxBytes
	}
	if cfg.MaxShowCreate <= 0 {
		cfg.MaxShowCreate = 50
	}
	if cfg.MaxShowData <= 0 {
		cfg.MaxShowData = 50
	}
}

// Collect takes one snapshot of a live cluster. It fails only when the FE
// cannot be reached or no clock can be read (a snapshot without a current
// TSO cannot be analysed); every other source that fails becomes an entry
// of snap.CouldNotRead and the others still land.
func Collect(ctx context.Context, cfg Config) (*snapshot.Snapshot, error) {
	cfg.defaults()
	if cfg.Host == "" {
		return nil, errors.New("live collection: no --host")
	}
	started := time.Now()
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	if err := reservedName(addr); err != nil {
		return nil, fmt.Errorf("connecting to %w", err)
	}
	db, err := openDB(cfg, addr)
	if err != nil {
		return nil, cfg.secret().redact(fmt.Errorf("connecting to %s: %w", addr, err))
	}
	defer db.Close()
	c := &client{db: db, timeout: cfg.Timeout, host: addr, secret: cfg.secret()}
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
	col.snap.Source.Queries = len(c.statements())
	col.snap.Source.DurationMs = time.Since(started).Milliseconds()
	if err := col.snap.Validate(); err != nil {
		return nil, err
	}
	return col.snap, nil
}

func openDB(cfg Config, addr string) (*sql.DB, error) { return openDBIn(cfg, addr, "") }

// openDBIn opens a session whose current database is db ("" for none): the
// driver selects it in the handshake, so no USE statement is ever sent.
func openDBIn(cfg Config, addr, dbName string) (*sql.DB, error) {
	mc := mysql.NewConfig()
	mc.Net = "tcp"
	mc.Addr = addr
	mc.DBName = dbName
	mc.User = cfg.User
	mc.Passwd = cfg.Password
	// One bound per hop, and one mechanism: the hop's context (connect and
	// handshake in hopConnector, each statement in client.query). The
	// driver's socket deadlines are only a backstop, set above that bound
	// so they can never fire first: when they raced the context, the same
	// silent FE gave one of three texts at random, one of them a bare
	// "invalid connection" (docs/snapshot.md "Network errors").
	mc.Timeout = cfg.Timeout
	mc.ReadTimeout = cfg.Timeout + cfg.Timeout/2
	mc.WriteTimeout = cfg.Timeout + cfg.Timeout/2
	mc.DialFunc = preDialed
	// Doris accepts the native password plugin; no DSN string is ever built,
	// so the password cannot leak through one.
	mc.AllowNativePasswords = true
	// The driver's default logger writes "[mysql] 2026/.. packets.go:68
	// [warn] ..." to stderr when an FE answers garbage: the contract is
	// one error line, and the returned error already names the host.
	mc.Logger = &mysql.NopLogger{}
	if cfg.TLS || cfg.TLSCA != "" {
		tc := &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12}
		if cfg.TLSCA != "" {
			pool, err := LoadCA(cfg.TLSCA)
			if err != nil {
				return nil, err
			}
			tc.RootCAs = pool
		}
		mc.TLS = tc
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, err
	}
	dial := cfg.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	db := sql.OpenDB(&hopConnector{inner: conn, host: addr, timeout: cfg.Timeout, dial: guarded(dial)})
	// One session, statements in sequence: the load on the FE stays that of
	// one interactive user, and the query count is exact.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	return db, nil
}

// collector holds one collection's state.
type collector struct {
	cfg  Config
	c    *client
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
	t, err := col.c.query(ctx, doris.SessionVars.Statements[0].Build())
	if err != nil {
		return err
	}
	if len(t.rows) == 0 {
		return nil
	}
	rr := col.reader(t, t.rows[0], "session", "")
	tz := rr.raw(doris.SessionVars.TimeZone)
	if strings.EqualFold(tz, "SYSTEM") {
		if st, err := col.c.query(ctx, doris.SessionVars.Statements[1].Build()); err == nil && len(st.rows) > 0 {
			tz = col.reader(st, st.rows[0], "session", "").raw(doris.SessionVars.SystemTimeZone)
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

func (col *collector) reader(t *table, r []*string, source, row string) *rowReader {
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
	t, err := col.c.query(ctx, q)
	if err != nil {
		col.gap(snapshot.SourceColumns, q, err)
		// Each table is then read with SELECT * (selectInfo): the probe
		// costs nothing, and each source's own failure is its own gap.
		col.snap.Supersede(snapshot.SourceColumns, "SELECT * of each information_schema table")
		col.capability(snapshot.SourceColumns, false, nil)
		return
	}
	col.capability(snapshot.SourceColumns, true, t.cols)
	col.present = map[string][]string{}
	for _, r := range t.rows {
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
func (col *collector) selectInfo(ctx context.Context, rel *doris.Relation, where string, required bool) (*table, bool) {
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
	t, err := col.c.query(ctx, q)
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
	serverCols := t.cols
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
