// Package scrape is everything that talks to a cluster, and the one place
// that dials: Config, the SQL client and its read-only allowlist, HTTP GET
// with its credential rules, /metrics and /api/tso, the hop errors, the
// redaction of the password, and the dial guard every connection asks
// first. The readers stand on it: scrape/collect (a snapshot) and
// scrape/doctor (the doctor's reads); it imports neither
// (docs/architecture.md "Inside scrape").
package scrape

import (
	"context"
	"crypto/tls"
	"database/sql"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"

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

	// Consumers are the external consumers declared in the config file
	// (consumers:): the collection reads each one's offset table and its
	// source table's TTL into snap.ExternalConsumers (docs/consumers.md).
	Consumers []snapshot.ExternalConsumer
	// Tables are more tables ("db.tbl") whose changelog properties and TTL
	// to read into snap.Tables (`tso headroom --table`).
	Tables []string

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

// DefaultMetricsMaxBytes bounds a /metrics body: the seed's worst Master FE
// payload is about 50 MB (design.md "Bounded reads").
const DefaultMetricsMaxBytes = 64 << 20

// DefaultTasksPerMV is the tasks() window per MV (design.md "Bounded reads").
const DefaultTasksPerMV = 20

func (cfg *Config) Defaults() {
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

func OpenDB(cfg Config, addr string) (*sql.DB, error) { return OpenDBIn(cfg, addr, "") }

// OpenDBIn opens a session whose current database is db ("" for none): the
// driver selects it in the handshake, so no USE statement is ever sent.
func OpenDBIn(cfg Config, addr, dbName string) (*sql.DB, error) {
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
