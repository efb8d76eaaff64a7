package scrape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dorisdiag/dorisdiag/doris"
)

// ErrNotReadOnly is returned for any statement other than one SELECT or SHOW:
// dorisdiag never writes to a cluster (design.md "Reliability and security
// rules: Read-only"), and this check is the one place that enforces it.
var ErrNotReadOnly = errors.New("refused: dorisdiag only sends SELECT and SHOW statements")

// CheckReadOnly accepts exactly one SELECT or SHOW statement and refuses
// everything else before it reaches the wire: other verbs, a second statement
// after a semicolon, and leading comments (which MySQL-dialect servers may
// execute as hints, e.g. /*!50000 DROP ...*/). Semicolons inside quoted
// strings and backquoted identifiers are data, not separators.
func CheckReadOnly(query string) error {
	q := strings.TrimLeft(query, " \t\r\n")
	verb := q
	if i := strings.IndexFunc(q, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') }); i >= 0 {
		verb = q[:i]
	}
	switch strings.ToUpper(verb) {
	case "SELECT", "SHOW":
	default:
		return fmt.Errorf("%w: %.60q", ErrNotReadOnly, query)
	}
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++ // skip the escaped character
			} else if c == quote {
				if i+1 < len(q) && q[i+1] == quote {
					i++ // doubled quote inside the string
				} else {
					quote = 0
				}
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ';':
			if strings.TrimSpace(q[i+1:]) != "" {
				return fmt.Errorf("%w: more than one statement in %.60q", ErrNotReadOnly, query)
			}
		case c == '#' || (c == '-' && i+1 < len(q) && q[i+1] == '-') || (c == '/' && i+1 < len(q) && q[i+1] == '*'):
			return fmt.Errorf("%w: comments are not sent (%.60q)", ErrNotReadOnly, query)
		}
	}
	if quote != 0 {
		return fmt.Errorf("%w: unterminated quote in %.60q", ErrNotReadOnly, query)
	}
	return nil
}

// Table is a query result with every cell kept as text (NULL = nil), the
// columns named as the server named them. Scanning everything as text is
// deliberate: Doris serves the same concept as BIGINT in one build and
// VARCHAR in another, and `\N`, `N/A` and -1 must be normalised with the
// raw text kept (doris.md §4, §5).
type Table struct {
	Cols  []string
	Index map[string]int // upper-cased column name → position
	Rows  [][]*string
}

func (t *Table) Has(col string) bool { _, ok := t.column(col); return ok }

// column is col's position. The wire contract names columns in upper case,
// so the exact key is tried first: upper-casing every lookup (once per cell,
// a million times for 50,000 consumption rows) was the collector's largest
// cost after the driver's own (docs/performance.md "dorisdiag exporter").
func (t *Table) column(col string) (int, bool) {
	if i, ok := t.Index[col]; ok {
		return i, true
	}
	i, ok := t.Index[strings.ToUpper(col)]
	return i, ok
}

// Get returns the cell of row r in column col, nil when NULL or absent.
func (t *Table) Get(r []*string, col string) *string {
	i, ok := t.column(col)
	if !ok || i >= len(r) {
		return nil
	}
	return r[i]
}

// SQLClient runs read-only statements, each under its own timeout, and counts
// and optionally logs them.
type SQLClient struct {
	DB      *sql.DB
	Timeout time.Duration
	Host    string // host:port, named in every error
	Secret  Secret // redacted from every error

	mu      sync.Mutex
	queries []string
}

// Query runs one statement. The read-only check happens here, before the
// driver sees the text.
func (c *SQLClient) Query(ctx context.Context, q string) (*Table, error) {
	if err := CheckReadOnly(q); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.queries = append(c.queries, q)
	c.mu.Unlock()
	// The connection first, outside the statement's bound: when the pool
	// has none (the first statement, or after a statement's timeout closed
	// it), hopConnector dials and handshakes, each hop under its own bound
	// and named in its error.
	conn, err := c.DB.Conn(ctx)
	if err != nil {
		var ne *NetError
		if !errors.As(err, &ne) {
			err = netErr(ctx, ctx, c.Host, HopMySQLConnect, c.Timeout, err)
		}
		return nil, c.Secret.Redact(err)
	}
	defer conn.Close()
	qctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	fail := func(err error) error {
		return c.Secret.Redact(netErr(ctx, qctx, c.Host, QueryHop(q), c.Timeout, err))
	}
	rows, err := conn.QueryContext(qctx, q)
	if err != nil {
		return nil, fail(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fail(err)
	}
	t := &Table{Cols: cols, Index: make(map[string]int, len(cols))}
	for i, name := range cols {
		if _, dup := t.Index[strings.ToUpper(name)]; !dup {
			t.Index[strings.ToUpper(name)] = i
		}
	}
	// One scan buffer for all rows, scanned as sql.RawBytes (the driver's
	// own bytes, valid until the next Next: no per-cell conversion or
	// copy), then per row ONE string holding every cell's text and the
	// cells as substrings of it. Pointer and string slabs are cut from
	// blocks shared by many rows. Scanning into NullString made one string
	// per cell — 1.25 million for the scale scenario's 50,000 consumption
	// rows — and was with the GC it caused the largest client-side cost of
	// a live round (docs/performance.md "dorisdiag exporter").
	cells := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	const blockRows = 256
	var rowBlock []*string
	var valBlock []string
	var text []byte
	n := len(cols)
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fail(err)
		}
		if len(rowBlock) < n {
			rowBlock = make([]*string, n*blockRows)
			valBlock = make([]string, n*blockRows)
		}
		row, vals := rowBlock[:n:n], valBlock[:n:n]
		rowBlock, valBlock = rowBlock[n:], valBlock[n:]
		text = text[:0]
		for i := range cells {
			text = append(text, cells[i]...)
		}
		all := string(text)
		off := 0
		for i := range cells {
			if cells[i] != nil { // nil is SQL NULL; an empty cell is non-nil
				vals[i] = all[off : off+len(cells[i])]
				row[i] = &vals[i]
				off += len(cells[i])
			}
			cells[i] = nil // never let Scan append into the driver's buffer
		}
		t.Rows = append(t.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	return t, nil
}

func (c *SQLClient) Statements() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.queries...)
}

// Count adds statements another session sent (SHOW DATA in a database's
// own session) to this client's, so the query count stays exact.
func (c *SQLClient) Count(statements []string) {
	c.mu.Lock()
	c.queries = append(c.queries, statements...)
	c.mu.Unlock()
}

func Errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

func FirstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func Atoi(s string) int {
	var n int
	_, err := fmt.Sscan(strings.TrimSpace(s), &n)
	if err != nil {
		return 0
	}
	return n
}

func Cell(t *Table, row []*string, c doris.Column) string {
	if p := t.Get(row, c.Name); p != nil {
		return *p
	}
	return ""
}
