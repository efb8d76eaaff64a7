package scrape

import (
	"context"
	"net"
	"strconv"
	"time"
)

// TableRead is one statement's result as read, for a support bundle: the
// rows as the server printed them (every cell text, NULL as nil), or the
// error that stopped it (redacted of the password).
type TableRead struct {
	Statement string
	StartedAt time.Time
	Elapsed   time.Duration
	Table     *Table
	Err       error
}

// ReadTables runs each statement (every one through CheckReadOnly, each
// under cfg.Timeout) on one session to the FE of cfg, in order; one that
// fails is its own result, never the others'. `dorisdiag bundle` reads the
// configuration and the topology as the server printed them with it.
func ReadTables(ctx context.Context, cfg Config, statements []string) []TableRead {
	cfg.Defaults()
	out := make([]TableRead, len(statements))
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	db, err := OpenDB(cfg, addr)
	if err != nil {
		err = cfg.Secret().Redact(err)
		for i, q := range statements {
			out[i] = TableRead{Statement: q, StartedAt: time.Now(), Err: err}
		}
		return out
	}
	defer db.Close()
	c := &SQLClient{DB: db, Timeout: cfg.Timeout, Host: addr, Secret: cfg.Secret()}
	for i, q := range statements {
		start := time.Now()
		t, err := c.Query(ctx, q)
		out[i] = TableRead{Statement: q, StartedAt: start, Elapsed: time.Since(start), Table: t, Err: err}
	}
	return out
}
