package budgets

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The HTTP side of issue 14's memory budgets ("a 64 MiB HTTP body uses
// 275 MB"; "check lints every node's /metrics, so one bad BE can get the
// on-call machine OOM-killed"): a whole dorisdiag process fetching 64 MiB
// bodies stays under 150 MB of resident memory, for one target and for
// several together — the bodies stream into the linter and none is held.
// Max RSS is the child's, from the kernel's rusage.

const rssBudget = 150 << 20

// payloadGen streams a /metrics body of size bytes without holding it.
// Shape "line": one line of duplicate labels (m{a="",a="",…, cut at size),
// the hostile payload; shape "series": lines of 200,000 distinct
// series repeated, a large but ordinary payload.
type payloadGen struct {
	shape   string
	size, n int
	line    []byte
	lineNo  int
	pos     int
}

func (g *payloadGen) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) && g.n < g.size {
		if g.pos == len(g.line) {
			g.nextLine()
		}
		c := copy(p[k:], g.line[g.pos:])
		if rest := g.size - g.n; c > rest {
			c = rest
		}
		k, g.pos, g.n = k+c, g.pos+c, g.n+c
	}
	if g.n >= g.size {
		return k, io.EOF
	}
	return k, nil
}

func (g *payloadGen) nextLine() {
	g.pos = 0
	if g.shape == "line" {
		if g.lineNo == 0 {
			g.line = []byte("m{")
		} else {
			g.line = []byte(`a="",`)
		}
	} else {
		g.line = []byte(fmt.Sprintf("doris_be_rss_test{node=\"n%06d\",kind=\"x\"} %d\n", g.lineNo%200000, g.lineNo))
	}
	g.lineNo++
}

func generator(t *testing.T, shape string, size int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = io.Copy(w, &payloadGen{shape: shape, size: size})
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// childMaxRSS runs `dorisdiag args...` as a grandchild under GNU time and
// returns its max RSS, exit code and stderr. Not a direct child: Go starts
// children with vfork semantics, and Linux carries the parent's high-water
// RSS (this test binary's, the emulator linked in) over into the child's.
func childMaxRSS(t *testing.T, bin string, args ...string) (int64, int, string) {
	t.Helper()
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("no /usr/bin/time to measure a process's max RSS")
	}
	kb := t.TempDir() + "/maxrss"
	cmd := exec.Command(timeBin, append([]string{"-f", "%M", "-o", kb, bin}, args...)...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(kb)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(raw)) // "Command exited with non-zero status 1\n12345"
	n, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil {
		t.Fatalf("GNU time wrote %q", raw)
	}
	return n * 1024, code, out.String()
}

func TestHTTPBodiesStayUnderRSSBudget(t *testing.T) {
	// Not parallel: a memory budget is measured one at a time (docs/performance.md, "Test suite").
	if testing.Short() {
		t.Skip("spawns child processes and streams 64 MiB bodies")
	}
	// Every child gets --timeout 5m: the budget is memory; a loaded machine
	// (64 MiB bodies served by this process) must not fail it on the
	// default 10 s whole-request timeout. Not t.Parallel: the budgets of
	// this package run one at a time (each child's max RSS is its own, but
	// two 64 MiB-body runs side by side starve each other on 2 cores).
	const size = 64 << 20
	bin := dorisdiagBinary(t)
	check := func(name string, rss int64, code int, stderr string, okCodes ...int) {
		t.Helper()
		t.Logf("%s: child max RSS %d MB, exit %d", name, rss>>20, code)
		good := false
		for _, c := range okCodes {
			good = good || c == code
		}
		if !good {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
		}
		if rss > rssBudget {
			t.Errorf("%s: max RSS %d MB, budget %d MB", name, rss>>20, rssBudget>>20)
		}
	}
	for _, shape := range []string{"line", "series"} {
		one := generator(t, shape, size)
		rss, code, stderr := childMaxRSS(t, bin, "metrics", "lint", "--timeout", "5m", "--max-bytes", strconv.Itoa(size), "-o", "json", "http://"+one+"/metrics")
		check("metrics lint of one 64 MiB "+shape+" body", rss, code, stderr, cmdutil.ExitOK, cmdutil.ExitFindings)

		var targets []string
		for i := 0; i < 6; i++ {
			targets = append(targets, "be="+generator(t, shape, size))
		}
		// -o table: the JSON of six payloads lists 60,000 problems (30 MB of
		// output, rendered in memory by the report package); the budget here
		// is the fetching and linting.
		rss, code, stderr = childMaxRSS(t, bin, "metrics", "scrape", "--timeout", "5m", "--max-bytes", strconv.Itoa(size), "-o", "table", "--targets", strings.Join(targets, ","))
		check("metrics scrape of six 64 MiB "+shape+" bodies", rss, code, stderr, cmdutil.ExitOK, cmdutil.ExitFindings)
	}

	// check over the real MySQL protocol: SHOW BACKENDS names six BEs
	// whose /metrics are 64 MiB each.
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	snap.Backends = nil
	for i := 0; i < 6; i++ {
		h, p, _ := net.SplitHostPort(generator(t, "series", size))
		port, _ := strconv.Atoi(p)
		snap.Backends = append(snap.Backends, snapshot.Node{Kind: "be", ID: strconv.Itoa(10001 + i), Host: h, HTTPPort: port, Alive: true})
	}
	e, err := emulator.New(snap, emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	host, port, _ := net.SplitHostPort(e.Addr())
	_, hport, _ := net.SplitHostPort(e.HTTPAddr())
	rss, code, stderr := childMaxRSS(t, bin, "check", "--timeout", "5m", "-o", "json", "--fail-on", "none", "--host", host, "--port", port, "--http-port", hport)
	check("check of six BEs with 64 MiB bodies", rss, code, stderr, cmdutil.ExitOK)
}
