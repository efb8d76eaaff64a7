package scrape

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

const hopTimeout = 200 * time.Millisecond

// lateTimer is a context whose deadline has passed but whose timer has not
// run yet: context.WithTimeout sets Err() from a time.AfterFunc goroutine,
// which a loaded machine can schedule after the driver's read deadline has
// already woken the reader. This is the state TestHopQueryStall hit
// occasionally under CPU load; here it is made deterministic.
type lateTimer struct {
	context.Context
	deadline time.Time
}

func (c lateTimer) Deadline() (time.Time, bool) { return c.deadline, true }

// TestNetErrLateTimer: once the hop's bound has elapsed, the text is the
// timeout's whatever the driver returned and whether or not the context's
// timer has run: the driver's bare "invalid connection" after its own read
// deadline (set above the hop's bound) is not "closed by the server".
func TestNetErrLateTimer(t *testing.T) {
	const host = "127.0.0.1:9030"
	hop := QueryHop("SHOW FRONTENDS")
	late := lateTimer{context.Background(), time.Now().Add(-time.Millisecond)}
	for _, driverErr := range []error{mysql.ErrInvalidConn, driver.ErrBadConn, io.EOF, os.ErrDeadlineExceeded} {
		got := netErr(context.Background(), late, host, hop, hopTimeout, driverErr)
		want := host + `: query "SHOW FRONTENDS": no answer within 200ms`
		if got.Error() != want {
			t.Errorf("%v after the hop's deadline:\n got %s\nwant %s", driverErr, got, want)
		}
	}
	// Before the deadline the driver's error still decides: a real close
	// inside the bound is a close.
	early := lateTimer{context.Background(), time.Now().Add(time.Hour)}
	if got, want := netErr(context.Background(), early, host, hop, hopTimeout, mysql.ErrInvalidConn).Error(), host+`: query "SHOW FRONTENDS": connection closed by the server`; got != want {
		t.Errorf("close inside the bound:\n got %s\nwant %s", got, want)
	}
	// The caller's own deadline, passed but its timer not yet run, is the
	// caller's, not the hop's timeout.
	var ne *NetError
	if err := netErr(late, late, host, hop, hopTimeout, mysql.ErrInvalidConn); !errors.As(err, &ne) || ne.Kind != KindOther || !errors.Is(ne.Err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline passed: %#v", err)
	}
}

// TestQueryHopWords: a statement is named by at most six words or 60
// characters, quoted (control characters escaped).
func TestQueryHopWords(t *testing.T) {
	for q, want := range map[string]string{
		"SHOW FRONTENDS":                    `query "SHOW FRONTENDS"`,
		"SHOW  DATA\n FROM `d`.`t`":         "query \"SHOW DATA FROM `d`.`t`\"",
		"SELECT a, b, c, d, e, f, g FROM x": `query "SELECT a, b, c, d, e, …"`,
		"SELECT '\x1b[31m' AS x":            `query "SELECT '\x1b[31m' AS x"`,
		"SELECT " + strings.Repeat("x", 80): `query "SELECT ` + strings.Repeat("x", 53) + ` …"`,
	} {
		if got := QueryHop(q); got != want {
			t.Errorf("QueryHop(%q) = %s, want %s", q, got, want)
		}
	}
}
