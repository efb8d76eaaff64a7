package cmd

import (
	"net"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// Issue "never green by mistake": every usage error is exit 2, with a message
// that says what was wrong and what exists instead.

// TestUnknownSubcommandIsUsageError: "mv lsit", "metrics lnt" and "tso decod
// 1" printed the group's help and exited 0, so a CI step with a typo was
// green forever.
func TestUnknownSubcommandIsUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mv", "lsit", "--fail-on", "warning"}, `unknown command "lsit" for "dorisdiag mv"; did you mean "list"?`},
		{[]string{"metrics", "lnt"}, `unknown command "lnt" for "dorisdiag metrics"; did you mean "lint"?`},
		{[]string{"tso", "decod", "1"}, `unknown command "decod" for "dorisdiag tso"; did you mean "decode"?`},
		{[]string{"streams", "shw", "demo.s"}, `unknown command "shw" for "dorisdiag streams"; did you mean "show"?`},
		{[]string{"chek", "--demo", "incident"}, `unknown command "chek" for "dorisdiag"; did you mean "check"?`},
		{[]string{"mv", "zzzzzz"}, `unknown command "zzzzzz" for "dorisdiag mv" (commands: explain, list)`},
	} {
		stdout, stderr, code := run(t, nil, "", tc.args...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: a usage error prints nothing on stdout (no help dump), got %q", tc.args, stdout)
		}
	}
}

// TestBareGroup: "dorisdiag mv" asks for help (exit 0); "dorisdiag mv
// --fail-on warning" meant to run a gate and runs nothing: exit 2.
func TestBareGroup(t *testing.T) {
	stdout, _, code := run(t, nil, "", "mv")
	if code != cmdutil.ExitOK || !strings.Contains(stdout, "Available Commands") {
		t.Errorf("bare mv: exit %d, stdout %q; want the help and exit 0", code, stdout)
	}
	_, stderr, code := run(t, nil, "", "mv", "--fail-on", "warning", "--demo", "incident")
	if code != cmdutil.ExitError || !strings.Contains(stderr, `"dorisdiag mv" needs a subcommand: explain, list`) {
		t.Errorf("mv --fail-on warning: exit %d, stderr %q", code, stderr)
	}
}

// TestNameMatchingNothing: "streams --db nosuch" and "mv list --db nosuch"
// printed "No findings." and exited 0.
func TestNameMatchingNothing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"streams", "--db", "nosuch"}, `--db: no database "nosuch" with a stream (1 in the snapshot; nearest: demo)`},
		{[]string{"mv", "list", "--db", "nosuch"}, `--db: no database "nosuch" with an IVM materialized view (1 in the snapshot; nearest: demo)`},
		{[]string{"headroom", "--in", "1h", "--db", "nosuch"}, `--db: no database "nosuch" with a stream`},
		{[]string{"mv", "explain", "demo.mv_order_daily"}, `no IVM materialized view "demo.mv_order_daily" (11 in the snapshot; nearest: demo.mv_orders_daily,`},
		{[]string{"streams", "show", "demo.s_event_dup"}, `no stream "demo.s_event_dup" (24 in the snapshot; nearest: demo.s_events_dup,`},
	} {
		stdout, stderr, code := run(t, nil, "", append(tc.args, "--demo", "incident", "-o", "json")...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: nothing may be printed as if it were the answer, got %q", tc.args, stdout)
		}
	}
	// The names that exist still work (mv list compares databases
	// case-insensitively, as before).
	for _, args := range [][]string{{"streams", "--db", "demo"}, {"mv", "list", "--db", "DEMO"}, {"headroom", "--in", "1h", "--db", "demo"}} {
		if _, stderr, code := run(t, nil, "", append(args, "--demo", "healthy")...); code != cmdutil.ExitOK {
			t.Errorf("%v: exit %d (%s)", args, code, stderr)
		}
	}
	// --state and --kind select by condition: matching nothing is an answer.
	if _, stderr, code := run(t, nil, "", "streams", "--demo", "healthy", "--state", "disabled"); code != cmdutil.ExitOK {
		t.Errorf("--state matching no stream: exit %d (%s)", code, stderr)
	}
}

// TestFailOnEmptyOrUnknown: --fail-on "" silently meant the default.
func TestFailOnEmptyOrUnknown(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--fail-on", ""},
		{"check", "--fail-on="},
		{"streams", "--fail-on", " "},
		{"check", "--fail-on", "info"},
		{"check", "--fail-on", "critcal"},
	} {
		_, stderr, code := run(t, nil, "", append(args, "--demo", "healthy")...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, "want none, warning or critical") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2", args, code, stderr)
		}
	}
}

// TestPasswordRefused: --password was "unknown flag"; now it says where the
// password goes, and never echoes it.
func TestPasswordRefused(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--demo", "incident", "--password", "hunter2"},
		{"check", "--password=hunter2", "--demo", "incident"},
		{"snapshot", "--host", "127.0.0.1", "--password"},
	} {
		stdout, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, "set DORISDIAG_PASSWORD (or MYSQL_PWD)") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
		if strings.Contains(stderr+stdout, "hunter2") {
			t.Errorf("%q: the password was echoed: %q", args, stderr)
		}
	}
	if stdout, _, _ := run(t, nil, "", "--help"); strings.Contains(stdout, "--password") {
		t.Errorf("--password is hidden from --help")
	}
}

// TestHostPortSplit: --host h:port is --host h --port port.
func TestHostPortSplit(t *testing.T) {
	for _, tc := range []struct {
		host      string
		port      int
		portGiven bool
		wantHost  string
		wantPort  int
		wantErr   string
	}{
		{"fe1", 9030, false, "fe1", 9030, ""},
		{"fe1:9031", 9030, false, "fe1", 9031, ""},
		{"fe1:9031", 9031, true, "fe1", 9031, ""},
		{"[::1]:9031", 9030, false, "::1", 9031, ""},
		{"::1", 9030, false, "::1", 9030, ""},
		{"fe1:9031", 9030, true, "", 0, `--host "fe1:9031" and --port 9030 name two different ports`},
		{"fe1:8030", 9030, false, "", 0, "8030 is the HTTP port (--http-port)"},
		{"fe1:x", 9030, false, "", 0, `port "x" is not a port number`},
		{"fe1:70000", 9030, false, "", 0, `port "70000" is not a port number`},
		{":9030", 9030, false, "", 0, "want HOST or HOST:PORT"},
		{"mysql://fe1:9030", 9030, false, "", 0, "not a URL"},
	} {
		o := cmdutil.ConnOptions{Host: tc.host, Port: tc.port, HTTPPort: 8030}
		err := o.SplitHostPort(tc.portGiven)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.host, err, tc.wantErr)
			}
			continue
		}
		if err != nil || o.Host != tc.wantHost || o.Port != tc.wantPort {
			t.Errorf("%q: got %q %d %v, want %q %d", tc.host, o.Host, o.Port, err, tc.wantHost, tc.wantPort)
		}
	}
	_, stderr, code := run(t, nil, "", "snapshot", "--host", "127.0.0.1:9031", "--port", "9032")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "two different ports") {
		t.Errorf("conflict end to end: exit %d, %q", code, stderr)
	}
}

// TestHostPortDialsThatPort: the port in --host is the one dialled (a
// loopback listener that accepts and hangs up: the error names its port).
func TestHostPortDialsThatPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	_, stderr, code := run(t, nil, "", "snapshot", "--host", addr)
	if code != cmdutil.ExitError || !strings.Contains(stderr, addr) {
		t.Errorf("--host %s: exit %d, stderr %q; want the error to name %s", addr, code, stderr, addr)
	}
}

func TestNearestNames(t *testing.T) {
	got := cmdutil.NearestNames("demo.mv_order_daily", []string{"x.y", "demo.mv_orders_daily", "demo.mv_orders_daily", "demo.mv_fresh"}, 2)
	if strings.Join(got, ",") != "demo.mv_orders_daily,demo.mv_fresh" {
		t.Errorf("nearest: %v", got)
	}
	if cmdutil.Levenshtein("lsit", "list") != 2 || cmdutil.Levenshtein("", "abc") != 3 || cmdutil.Levenshtein("Tür", "Tor") != 1 {
		t.Errorf("levenshtein")
	}
}
