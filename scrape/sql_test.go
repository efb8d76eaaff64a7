package scrape

import (
	"strconv"

	"github.com/dorisdiag/dorisdiag/doris"

	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
)

func TestCheckReadOnly(t *testing.T) {
	for _, tc := range []struct {
		q  string
		ok bool
	}{
		{"SELECT 1", true},
		{"  select * from information_schema.table_streams", true},
		{"SHOW FRONTENDS", true},
		{"show data from `demo`", true},
		{"SELECT 'a;b', `c;d` FROM t", true},
		{"SELECT * FROM mv_infos('database' = 'x\\';DROP')", true},
		{"SELECT 1;", true},
		{"SELECT 'it''s'", true},
		{"DROP TABLE t", false},
		{"INSERT INTO t VALUES (1)", false},
		{"UPDATE t SET a = 1", false},
		{"DELETE FROM t", false},
		{"SET GLOBAL x = 1", false},
		{"ADMIN SET FRONTEND CONFIG ('a' = 'b')", false},
		{"CALL p()", false},
		{"SELECT 1; DROP TABLE t", false},
		{"SELECT 1;DROP TABLE t", false},
		{"/*!50000 DROP TABLE t */ SELECT 1", false},
		{"SELECT 1 /* x */", false},
		{"SELECT 1 -- x", false},
		{"SELECT 1 # x", false},
		{"SELECT 'unterminated", false},
		{"SELECTX 1", false},
		{"WITH x AS (SELECT 1) DELETE FROM t", false},
		{"", false},
		{"EXPLAIN SELECT 1", false},
	} {
		err := CheckReadOnly(tc.q)
		if (err == nil) != tc.ok {
			t.Errorf("CheckReadOnly(%q) = %v, want ok=%v", tc.q, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrNotReadOnly) {
			t.Errorf("CheckReadOnly(%q): error %v does not wrap ErrNotReadOnly", tc.q, err)
		}
	}
}

// hostile names for identifiers and literals.
var hostile = []string{"demo", "", "a`b", "``", "a'b", `a"b`, `a\b`, `\`, `\'`, "a;DROP TABLE t", "a\x00b", "a\nb", "a\rb",
	"a\x1ab", "日本語", "' OR '1'='1", "`; DROP DATABASE x; --", "/*!50000 DROP */", "%_", "N/A", `\N`}

// unquoteLiteral is a MySQL-lexer reading of a single-quoted literal: the
// inverse QuoteLiteral must satisfy.
func unquoteLiteral(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	var b strings.Builder
	in := s[1 : len(s)-1]
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '\\':
			if i+1 >= len(in) {
				return "", false
			}
			i++
			switch in[i] {
			case '0':
				b.WriteByte(0)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'Z':
				b.WriteByte(0x1a)
			default:
				b.WriteByte(in[i])
			}
		case c == '\'':
			return "", false // an unescaped quote would end the literal early
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func unquoteIdent(s string) (string, bool) {
	if len(s) < 2 || s[0] != '`' || s[len(s)-1] != '`' {
		return "", false
	}
	in := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		if in[i] == '`' {
			if i+1 >= len(in) || in[i+1] != '`' {
				return "", false
			}
			i++
		}
		b.WriteByte(in[i])
	}
	return b.String(), true
}

func TestQuoteHostileNames(t *testing.T) {
	for _, name := range hostile {
		lit := doris.QuoteLiteral(name)
		if got, ok := unquoteLiteral(lit); !ok || got != name {
			t.Errorf("doris.QuoteLiteral(%q) = %s, reads back as %q (ok=%v)", name, lit, got, ok)
		}
		id := doris.QuoteIdent(name)
		if got, ok := unquoteIdent(id); !ok || got != name {
			t.Errorf("doris.QuoteIdent(%q) = %s, reads back as %q (ok=%v)", name, id, got, ok)
		}
		q := "SELECT * FROM mv_infos('database' = " + lit + ") WHERE " + id + " = 1"
		if err := CheckReadOnly(q); err != nil {
			t.Errorf("a quoted hostile name broke the statement: %v", err)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, name string) {
		lit := doris.QuoteLiteral(name)
		if got, ok := unquoteLiteral(lit); !ok || got != name {
			t.Fatalf("doris.QuoteLiteral(%q) = %s reads back as %q", name, lit, got)
		}
		if got, ok := unquoteIdent(doris.QuoteIdent(name)); !ok || got != name {
			t.Fatalf("doris.QuoteIdent(%q) reads back as %q", name, got)
		}
		if err := CheckReadOnly("SELECT " + lit + ", " + doris.QuoteIdent(name)); err != nil {
			t.Fatalf("quoted %q: %v", name, err)
		}
	})
}

func FuzzCheckReadOnly(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SHOW FRONTENDS", "SELECT 1; DROP t", "DROP t", "SELECT '", "SELECT `a;b`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if CheckReadOnly(q) != nil {
			return
		}
		v := strings.ToUpper(strings.TrimLeft(q, " \t\r\n"))
		if !strings.HasPrefix(v, "SELECT") && !strings.HasPrefix(v, "SHOW") {
			t.Fatalf("accepted %q", q)
		}
	})
}

// TestClientRefusesWritesBeforeTheWire sends write statements through the
// real client to the emulator: each is refused, and the emulator receives
// nothing.
func TestClientRefusesWritesBeforeTheWire(t *testing.T) {
	e, err := emulator.New(emulator.Sample(), emulator.Options{QueryLog: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	host, port := splitAddr(t, e.Addr())
	cfg := Config{Host: host, Port: port, User: "root", Timeout: 5 * time.Second}
	db, err := OpenDB(cfg, e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := &SQLClient{DB: db, Timeout: cfg.Timeout, Host: e.Addr()}
	for _, q := range []string{"DROP DATABASE demo", "CREATE TABLE x (a int)", "SELECT 1; DROP DATABASE demo", "KILL 1", "SET @@time_zone = '+01:00'"} {
		if _, err := c.Query(context.Background(), q); !errors.Is(err, ErrNotReadOnly) {
			t.Errorf("%q: err %v, want ErrNotReadOnly", q, err)
		}
	}
	if n := len(e.Queries()); n != 0 {
		t.Errorf("the emulator received %d statements: %q", n, e.Queries())
	}
	if _, err := c.Query(context.Background(), "SHOW FRONTENDS"); err != nil {
		t.Errorf("SHOW FRONTENDS: %v", err)
	}
}

// TestClientKeepsNullEmptyAndTextApart: cells are scanned as the driver's
// raw bytes and cut out of one string per row, so a NULL, an empty string
// and the texts next to them must still come back as nil, "" and each
// cell's own text, on every row (several rows: a later row must not see an
// earlier row's bytes).
func TestClientKeepsNullEmptyAndTextApart(t *testing.T) {
	e, err := emulator.New(emulator.Sample(), emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	host, port := splitAddr(t, e.Addr())
	cfg := Config{Host: host, Port: port, User: "root", Timeout: 5 * time.Second}
	db, err := OpenDB(cfg, e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := &SQLClient{DB: db, Timeout: cfg.Timeout, Host: e.Addr()}
	tb, err := c.Query(context.Background(), "SELECT NULL AS a, '' AS b, 'xy' AS c, 42 AS d, 'z' AS e UNION ALL SELECT 'first', NULL, '', 7, NULL UNION ALL SELECT '', 'q', NULL, NULL, 'last'")
	if err != nil {
		t.Fatal(err)
	}
	show := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return strconv.Quote(*p)
	}
	want := [][]string{
		{"<nil>", `""`, `"xy"`, `"42"`, `"z"`},
		{`"first"`, "<nil>", `""`, `"7"`, "<nil>"},
		{`""`, `"q"`, "<nil>", "<nil>", `"last"`},
	}
	if len(tb.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(tb.Rows), len(want))
	}
	for i, r := range tb.Rows {
		for j, col := range []string{"A", "B", "C", "D", "E"} {
			if got := show(tb.Get(r, col)); got != want[i][j] {
				t.Errorf("row %d column %s: %s, want %s", i, col, got, want[i][j])
			}
		}
	}
}
