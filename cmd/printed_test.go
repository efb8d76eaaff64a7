package cmd

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	_ "github.com/go-sql-driver/mysql"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Printed commands are safe to paste (issue 14 item 2, Why 4 and 9;
// docs/security.md "Printed commands and names"). A bundled scenario is
// renamed so that its database, MVs, streams, tables and partitions carry
// hostile names; every command and statement any output prints is then
// pasted for real: shell commands into sh (sh -n, then run with dorisdiag
// and curl replaced by functions that print their argv, in an empty
// directory that must stay empty), the argument given back to the real
// dorisdiag, and read-only SQL executed against the emulator serving the
// same snapshot.

// hostileNames renames the objects of the incident and legacy scenarios.
var hostileNames = map[string]string{
	// MVs
	"mv_orders_daily":    "ev$(touch pwned)",
	"mv_payments_rollup": "mv.x`touch pwned2`",
	"mv_customer_ltv":    "o_s%",
	"mv_big_join":        "it's\nrm -rf pwned3",
	"mv_revenue":         "日本\u202e;id",
	"mv_events_hourly":   "a b\tc\\d\"e;",
	// an MV whose name extends another's: its internal streams must not
	// show up in the query for the shorter one
	"mv_inventory": "o_s%_more",
	// user streams
	"s_orders_cdc":     "s;touch pwned4",
	"s_orders_audit":   "$(touch p5)`x`",
	"s_customers_idle": "new\nline",
	// tables and partitions
	"orders":    "t'`$(touch p6)",
	"payments":  "pay.ments",
	"p20261130": "p$(touch p7)",
	"p20261126": "p26\nDROP DATABASE x;\r-- ",
	"customers": "c\nd",
}

// nameKeys are the snapshot fields that hold an object name.
var nameKeys = map[string]bool{"db": true, "name": true, "mv_name": true, "mv_database_name": true, "base_table_db": true,
	"base_table_name": true, "stream_name": true, "table": true, "unit": true, "worst_partition": true, "lagging_partitions": true,
	"lagging_dependencies": true, "excluded_outdated_dependencies": true, "partition_name": true}

// hostileDBs: the database of the scenario becomes each of these in turn: the
// issue's own example, then one with a dot, a quote, a line break and a
// substitution.
var hostileDBs = []string{"shop", "sh.op'\n$(touch pwned-db)"}

func renameValue(key, v string) string {
	if v == "demo" {
		return hostileDB
	}
	if r, ok := hostileNames[v]; ok {
		return r
	}
	if strings.HasPrefix(v, doris.IvmStreamPrefix) {
		rest := v[len(doris.IvmStreamPrefix):]
		best := ""
		for old := range hostileNames {
			if strings.HasPrefix(rest, old+"_") && len(old) > len(best) && strings.HasPrefix(old, "mv_") {
				best = old
			}
		}
		if best != "" {
			return doris.IvmStreamPrefix + hostileNames[best] + rest[len(best):]
		}
	}
	if strings.Contains(v, ",") || strings.Contains(v, ".") {
		parts := strings.Split(v, ",")
		for i, p := range parts {
			if db, tbl, ok := strings.Cut(p, "."); ok {
				parts[i] = renameValue(key, db) + "." + renameValue(key, tbl)
			} else {
				parts[i] = renameValue(key, p)
			}
		}
		return strings.Join(parts, ",")
	}
	return v
}

// hostileHost replaces an FE's host name wherever a node is named (a
// host name comes from SHOW FRONTENDS: the cluster's text too).
const hostileHost = "fe1$(touch p8);x.demo.invalid"

func renameJSON(x any) any {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && nameKeys[k] {
				v[k] = renameValue(k, s)
				continue
			}
			if s, ok := e.(string); ok && (k == "host" || k == "target" || k == "url") {
				v[k] = strings.ReplaceAll(s, "fe1.demo.invalid", hostileHost)
				continue
			}
			v[k] = renameJSON(e)
		}
	case []any:
		for i := range v {
			v[i] = renameJSON(v[i])
		}
	}
	return x
}

var hostileDB string

// hostileSnapshot writes scenario name with hostileNames applied and
// returns its path and the loaded snapshot.
func hostileSnapshot(t *testing.T, name, db string) (string, *snapshot.Snapshot) {
	t.Helper()
	hostileDB = db
	s, err := scenario.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := snapshot.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(renameJSON(doc))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+"-hostile.json")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.LoadFile(path, 0)
	if err != nil {
		t.Fatalf("hostile %s: %v", name, err)
	}
	return path, snap
}

// printedText is one command or statement an output printed, and where.
type printedText struct{ where, text string }

// collectPrinted runs every command that prints next steps, headlines and
// verdicts, over the snapshot, and returns each statement they print.
func collectPrinted(t *testing.T, path string, snap *snapshot.Snapshot) (out []printedText, mvs, streams []cmdutil.ObjectRef) {
	t.Helper()
	series := []*snapshot.Snapshot{snap}
	mvs, streams = cmdutil.ObjectRefs(series, cmdutil.KindMV), cmdutil.ObjectRefs(series, cmdutil.KindStream)
	cmds := [][]string{{"check"}, {"streams"}, {"mv", "list"}, {"headroom", "--in", "20h"}}
	for _, m := range mvs {
		cmds = append(cmds, []string{"mv", "explain", m.String()})
	}
	for _, s := range streams {
		cmds = append(cmds, []string{"streams", "show", s.String()})
	}
	for _, c := range cmds {
		stdout, stderr, code := run(t, nil, "", append(c, "--snapshot", path, "-o", "json", "--fail-on", "none")...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%q: exit %d: %s", c, code, stderr)
		}
		var doc any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		where := strings.Join(c, " ")
		walkPrinted(doc, "", func(key string, v any) {
			switch key {
			case "next":
				switch n := v.(type) {
				case string: // a finding's next step: statements, one per line
					for _, s := range diag.SplitNext(n) {
						out = append(out, printedText{where + " (finding next)", s})
					}
				case []any: // mv explain's next[]: each entry is one statement (Why 9)
					for _, e := range n {
						s, _ := e.(string)
						if parts := diag.SplitNext(s); len(parts) != 1 {
							t.Errorf("%s: one next[] entry splits into %d statements: %q", where, len(parts), s)
						}
						out = append(out, printedText{where + " (next[])", s})
					}
				}
			case "headline":
				// "...; next: STATEMENT" — the statement is whole (Why 9).
				if h, _ := v.(string); strings.Contains(h, "; next: ") {
					out = append(out, printedText{where + " (headline)", h[strings.LastIndex(h, "; next: ")+len("; next: "):]})
				}
			case "verdict":
				list, _ := v.([]any) // a stream's verdict lines; ttl_enforcement's verdict is a word
				for _, e := range list {
					if s, _ := e.(string); strings.Contains(s, "check: ") {
						out = append(out, printedText{where + " (verdict)", s[strings.LastIndex(s, "check: ")+len("check: "):]})
					}
				}
			}
		})
	}
	return out, mvs, streams
}

func walkPrinted(x any, key string, f func(string, any)) {
	f(key, x)
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			walkPrinted(e, k, f)
		}
	case []any:
		for _, e := range v {
			walkPrinted(e, key+"[]", f)
		}
	}
}

// shellStub replaces the programs a printed command may run by functions
// that print their argv (NUL-separated) and do nothing else.
const shellStub = `dorisdiag() { printf '%s\0' dorisdiag "$@"; }
curl() { printf '%s\0' curl "$@"; }
grep() { cat >/dev/null; }
`

func TestPrintedCommandsAreSafeToPaste(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, tc := range []struct{ name, db string }{{"incident", hostileDBs[0]}, {"incident", hostileDBs[1]}, {"legacy", hostileDBs[0]}, {"legacy", hostileDBs[1]}} {
		name := tc.name
		t.Run(fmt.Sprintf("%s/%q", name, tc.db), func(t *testing.T) {
			path, snap := hostileSnapshot(t, name, tc.db)
			printed, mvs, streams := collectPrinted(t, path, snap)
			e, err := emulator.New(snap, emulator.Options{Legacy: name == "legacy"})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			db, err := sql.Open("mysql", "root@tcp("+e.Addr()+")/")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()

			seen := map[string]bool{}
			hostCommands = 0
			var nShell, nSQL, nName int
			for _, p := range printed {
				if seen[p.text] {
					continue
				}
				seen[p.text] = true
				trim := strings.TrimSpace(p.text)
				switch {
				case strings.HasPrefix(trim, "dorisdiag ") || strings.HasPrefix(trim, "curl "):
					nShell++
					nName += checkShellCommand(t, sh, path, p, mvs, streams)
				case strings.Contains(trim, "@reset()") || hasPrefixFold(trim, "SHOW QUERY PROFILE"):
					// Not read-only (a @reset() read moves the stream's
					// offset), or Doris-only syntax the emulator's parser does
					// not know: not executed; their names are QuoteIdent's.
				case hasPrefixFold(trim, "SELECT ") || hasPrefixFold(trim, "SHOW "):
					nSQL++
					checkSQL(t, db, p, snap)
				}
			}
			// The scenario prints commands naming hostile objects: a test
			// that checked nothing would pass on any code.
			t.Logf("%d shell commands (%d naming an object), %d SQL statements executed", nShell, nName, nSQL)
			if hostCommands == 0 && name == "incident" { // legacy holds no /metrics payloads
				t.Errorf("no printed command names the hostile FE host: the rename missed")
			}
			if nShell < 5 || nSQL < 10 || nName < 3 {
				t.Errorf("checked %d shell commands (%d naming an object) and %d SQL statements: too few, the rename missed", nShell, nName, nSQL)
			}
		})
	}
}

func hasPrefixFold(s, p string) bool { return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) }

// hostCommands counts the printed commands that name the hostile FE host.
var hostCommands int

// checkShellCommand pastes one command into sh and returns 1 when it named an
// object (and that object was checked).
func checkShellCommand(t *testing.T, sh, path string, p printedText, mvs, streams []cmdutil.ObjectRef) int {
	t.Helper()
	if out, err := exec.Command(sh, "-n", "-c", p.text).CombinedOutput(); err != nil {
		t.Errorf("%s: sh -n rejects %q: %v %s", p.where, p.text, err, out)
		return 0
	}
	dir := t.TempDir()
	c := exec.Command(sh, "-c", shellStub+p.text)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Errorf("%s: sh -c %q: %v", p.where, p.text, err)
	}
	if ls, _ := os.ReadDir(dir); len(ls) != 0 {
		t.Errorf("%s: pasting %q ran something: %s appeared", p.where, p.text, ls[0].Name())
	}
	argv := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Contains(p.text, "touch p8") {
		// A command naming the hostile FE host: the host is one argument, whole.
		hostArg := false
		for _, a := range argv {
			hostArg = hostArg || strings.Contains(a, hostileHost)
		}
		if !hostArg {
			t.Errorf("%s: %q: no argument holds the host %q whole: %q", p.where, p.text, hostileHost, argv)
		}
		hostCommands++
	}
	if len(argv) < 3 || argv[0] != "dorisdiag" {
		return 0
	}
	var refs []cmdutil.ObjectRef
	switch {
	case argv[1] == "mv" && argv[2] == "explain":
		refs = mvs
	case argv[1] == "streams" && argv[2] == "show":
		refs = streams
	default:
		return 0
	}
	if len(argv) != 4 {
		t.Errorf("%s: %q runs dorisdiag with %d arguments %q, want one name", p.where, p.text, len(argv)-1, argv[1:])
		return 0
	}
	n, err := doris.ParseName(argv[3])
	if err != nil {
		t.Errorf("%s: %q: the name argument %q does not parse: %v", p.where, p.text, argv[3], err)
		return 0
	}
	found := false
	for _, r := range refs {
		found = found || (r.DB == n.DB && r.Name == n.Name)
	}
	if !found || !n.Qualified {
		t.Errorf("%s: %q names %+v, which is no object of the snapshot", p.where, p.text, n)
		return 0
	}
	// The real dorisdiag, given that argument, shows that very object.
	stdout, stderr, code := run(t, nil, "", argv[1], argv[2], argv[3], "--snapshot", path, "-o", "json")
	if code == cmdutil.ExitError {
		t.Errorf("%s: %q: dorisdiag refuses its own suggestion: %s", p.where, p.text, stderr)
		return 0
	}
	var doc struct {
		MV, Stream *struct{ DB, Name string }
	}
	_ = json.Unmarshal([]byte(stdout), &doc)
	got := doc.MV
	if got == nil {
		got = doc.Stream
	}
	if got == nil || got.DB != n.DB || got.Name != n.Name {
		t.Errorf("%s: %q shows %+v, want %+v", p.where, p.text, got, n)
	}
	return 1
}

// checkSQL executes one read-only statement against the emulator: it must
// run, and a query that selects one MV's or stream's rows must return rows
// of that object only.
func checkSQL(t *testing.T, db *sql.DB, p printedText, snap *snapshot.Snapshot) {
	t.Helper()
	q := strings.TrimSpace(p.text)
	if i := strings.Index(q, ";  -- "); i >= 0 {
		q = q[:i+1]
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Errorf("%s: the emulator refuses %q: %v", p.where, q, err)
		return
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var got [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		r := make([]string, len(cols))
		for i, v := range vals {
			r[i] = v.String
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Errorf("%s: %q: %v", p.where, q, err)
	}
	// The internal-stream query of an MV returns its streams, and only its
	// own (LIKE wildcards in "o_s%" escaped; "o_s%_more" excluded).
	if strings.Contains(q, "FROM information_schema.table_streams WHERE DB_NAME = ") && strings.Contains(q, "STREAM_NAME LIKE") {
		var mvName string
		for _, m := range snap.MVs {
			if strings.Contains(q, "STREAM_NAME LIKE "+doris.LikePrefix(doris.IvmStreamPrefix+m.Name+"_")) {
				mvName = m.Name
			}
		}
		if mvName == "" {
			t.Errorf("%s: %q: the LIKE names no MV of the snapshot", p.where, q)
			return
		}
		var want, names []string
		// The MV's own: __doris_ivm_stream_<mv>_<mv id base36>_<table id
		// base36> (doris.md §3); base36 has no '_'.
		own := doris.IvmStreamPrefix + mvName + "_"
		for _, s := range snap.Streams {
			if rest, ok := strings.CutPrefix(s.Name, own); ok && s.DB == hostileDB && strings.Count(rest, "_") == 1 {
				want = append(want, s.Name)
			}
		}
		if len(want) == 0 {
			t.Errorf("%s: MV %q has no internal stream in the snapshot: the check checks nothing", p.where, mvName)
		}
		for _, r := range got {
			names = append(names, r[0])
		}
		sort.Strings(want)
		sort.Strings(names)
		if fmt.Sprint(names) != fmt.Sprint(want) {
			t.Errorf("%s: %q returned streams %q, want the MV's own %q", p.where, q, names, want)
		}
	}
}

// TestLikeEscapesWildcards (issue 14 Why 9): a LIKE built from a name
// matches that name's prefix only — "o_s%" must not match "oxsab" — run by
// the emulator's LIKE (go-mysql-server, '\' escape, as Doris's BE like.h).
func TestLikeEscapesWildcards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	base := snap.Streams[0]
	names := []string{"o_s%", "o_s%x", "oxsab", "o_sx", "o\\s%", "o\\\\s%y", "a.b", "axb", "it's", "its", "日本_", "日本x"}
	for i, n := range names {
		s := base
		s.Name, s.ID = n, 900000+int64(i)
		snap.Streams = append(snap.Streams, s)
	}
	e, err := emulator.New(snap, emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	db, err := sql.Open("mysql", "root@tcp("+e.Addr()+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, prefix := range []string{"o_s%", "o\\s", "a.b", "it's", "日本_"} {
		q := "SELECT STREAM_NAME FROM information_schema.table_streams WHERE STREAM_NAME LIKE " + doris.LikePrefix(prefix)
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
		rows.Close()
		var want []string
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				want = append(want, n)
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("LIKE %s matched %q, want %q", doris.LikePrefix(prefix), got, want)
		}
	}
}
