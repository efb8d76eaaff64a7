package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Names a person can type (issue 13 item 3; docs/cli.md "Object names").

// TestNameArgumentMissingListsCandidates: "streams show" without a name
// said cobra's "accepts 1 arg(s), received 0" and listed nothing.
func TestNameArgumentMissingListsCandidates(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"streams", "show"}, []string{"streams show needs the name of a stream (DB.STREAM); 24 in the snapshot: ", "demo.s_orders_cdc", "… and 14 more"}},
		{[]string{"mv", "explain"}, []string{"mv explain needs the name of an IVM materialized view (DB.MV); 11 in the snapshot: ", "demo.mv_orders_daily"}},
	} {
		stdout, stderr, code := run(t, nil, "", append(tc.args, "--demo", "incident")...)
		if code != cmdutil.ExitError || stdout != "" || strings.Contains(stderr, "accepts 1 arg") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, stdout, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, stderr, w)
			}
		}
	}
	// Two names: one line saying so, not cobra's count.
	_, stderr, code := run(t, nil, "", "mv", "explain", "demo.a", "demo.b", "--demo", "incident")
	if code != cmdutil.ExitError || !strings.Contains(stderr, "mv explain takes one name (DB.MV), got 2 arguments: demo.a demo.b") {
		t.Errorf("two names: exit %d, stderr %q", code, stderr)
	}
}

// TestUnqualifiedNameResolves: "mv explain mv_orders_daily" did not find
// demo.mv_orders_daily ("want DB.MV").
func TestUnqualifiedNameResolves(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		kind, db string
		name     string
	}{
		{[]string{"mv", "explain", "mv_orders_daily"}, "mv", "demo", "mv_orders_daily"},
		{[]string{"mv", "explain", "`mv_orders_daily`"}, "mv", "demo", "mv_orders_daily"},
		{[]string{"mv", "explain", "`demo`.mv_orders_daily"}, "mv", "demo", "mv_orders_daily"},
		{[]string{"streams", "show", "s_orders_cdc"}, "stream", "demo", "s_orders_cdc"},
	} {
		stdout, stderr, code := run(t, nil, "", append(tc.args, "--demo", "incident", "-o", "json")...)
		if code == cmdutil.ExitError {
			t.Errorf("%v: exit 2: %s", tc.args, stderr)
			continue
		}
		var doc map[string]json.RawMessage
		var got struct{ DB, Name string }
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		_ = json.Unmarshal(doc[tc.kind], &got)
		if got.DB != tc.db || got.Name != tc.name {
			t.Errorf("%v: showed %+v, want %s.%s", tc.args, got, tc.db, tc.name)
		}
	}
}

// TestMistypedBareNameSuggests: a mistyped bare name is compared with the
// names alone, and the suggestions are full DB.NAMEs that parse back.
func TestMistypedBareNameSuggests(t *testing.T) {
	_, stderr, code := run(t, nil, "", "mv", "explain", "mv_ordrs_daily", "--demo", "incident")
	if code != cmdutil.ExitError || !strings.Contains(stderr, `no IVM materialized view "mv_ordrs_daily" (11 in the snapshot; nearest: demo.mv_orders_daily,`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// saveSnapshotFile saves s to a temporary file for --snapshot.
func saveSnapshotFile(t *testing.T, s *snapshot.Snapshot) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := snapshot.Write(f, s); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAmbiguousAndDottedNames: a bare name two databases hold lists both
// (exit 2); a database and a stream whose names hold dots and backquotes
// are addressed with backquotes, and the suggestions print them so.
func TestAmbiguousAndDottedNames(t *testing.T) {
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	var extra []snapshot.Stream
	for i, st := range s.Streams {
		if st.Name == "s_orders_cdc" {
			a, b := st, st
			a.DB, a.ID = "other", 990001
			b.DB, b.Name, b.ID = "s.h.o.p", "st.x`y", 990002+int64(i)
			extra = append(extra, a, b)
		}
	}
	s.Streams = append(s.Streams, extra...)
	path := saveSnapshotFile(t, s)

	_, stderr, code := run(t, nil, "", "streams", "show", "s_orders_cdc", "--snapshot", path)
	if code != cmdutil.ExitError || !strings.Contains(stderr, `streams show "s_orders_cdc": 2 databases have a stream by that name; give the database: demo.s_orders_cdc, other.s_orders_cdc`) {
		t.Errorf("ambiguous: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "Run 'dorisdiag streams show --help' for usage.") {
		t.Errorf("ambiguous: the hint is not the command's own --help: %q", stderr)
	}

	stdout, stderr, code := run(t, nil, "", "streams", "show", "`s.h.o.p`.`st.x``y`", "--snapshot", path, "-o", "json")
	var doc struct{ Stream struct{ DB, Name string } }
	_ = json.Unmarshal([]byte(stdout), &doc)
	if code == cmdutil.ExitError || doc.Stream.DB != "s.h.o.p" || doc.Stream.Name != "st.x`y" {
		t.Errorf("backquoted: exit %d, stream %+v, stderr %s", code, doc.Stream, stderr)
	}
	// A near miss suggests it in the form that parses back, shell-quoted.
	_, stderr, _ = run(t, nil, "", "streams", "show", "`s.h.o.p`.`st.x`", "--snapshot", path)
	if !strings.Contains(stderr, "nearest: '`s.h.o.p`.`st.x``y`'") {
		t.Errorf("near miss: stderr %q", stderr)
	}
	// Unbalanced backquotes say how to write them.
	_, stderr, code = run(t, nil, "", "streams", "show", "`s.h.o.p.st", "--snapshot", path)
	if code != cmdutil.ExitError || !strings.Contains(stderr, "is not closed") {
		t.Errorf("unclosed: exit %d, stderr %q", code, stderr)
	}
	// objectNames (for completion) lists every stream as the argument takes it.
	names := cmdutil.ObjectNames([]*snapshot.Snapshot{s}, cmdutil.KindStream)
	found := false
	for _, n := range names {
		found = found || n == "`s.h.o.p`.`st.x``y`"
	}
	if !found || len(names) != len(streams.Analyze([]*snapshot.Snapshot{s}, streams.Options{}).Streams) {
		t.Errorf("objectNames: %d names, backquoted one found %v", len(names), found)
	}
}

// TestUsageErrorsPointToOwnHelp: every usage error said "Run 'dorisdiag
// --help'", the root's help, which does not show the command's arguments.
func TestUsageErrorsPointToOwnHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		help string
	}{
		{[]string{"mv", "explain", "--demo", "incident"}, "dorisdiag mv explain"},
		{[]string{"mv", "explain", "--nope"}, "dorisdiag mv explain"},
		{[]string{"streams", "show", "a.b.c", "--demo", "incident"}, "dorisdiag streams show"},
		{[]string{"streams", "--kind", "bogus", "--demo", "incident"}, "dorisdiag streams"},
		{[]string{"mv", "lsit"}, "dorisdiag mv"},
		{[]string{"tso", "decode", "--bogus"}, "dorisdiag tso decode"},
		{[]string{"nosuch"}, "dorisdiag"},
	} {
		_, stderr, code := run(t, nil, "", tc.args...)
		want := "Run '" + tc.help + " --help' for usage."
		if code != cmdutil.ExitError || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, stderr, want)
		}
	}
}

// TestCodeTextsNameRealTSOCommands: STREAM_CANNOT_RESUME_REJECTED told the
// user to run "dorisdiag tso cutoff", which does not exist.
func TestCodeTextsNameRealTSOCommands(t *testing.T) {
	root := NewRootCmd(&cmdutil.IOStreams{})
	for _, d := range diag.Codes() {
		for _, text := range []string{d.Confirm, d.Fix, d.Meaning} {
			for _, rest := range strings.Split(text, "dorisdiag tso ")[1:] {
				sub := strings.Fields(rest)[0]
				if c, _, err := root.Find([]string{"tso", sub}); err != nil || c.Name() != sub {
					t.Errorf("%s names 'dorisdiag tso %s', which is no command", d.Code, sub)
				}
			}
		}
	}
}

// TestObjectNamesFromSource: the completion helper reads the command's source
// and lists each name as the argument takes it.
func TestObjectNamesFromSource(t *testing.T) {
	series, err := testFactory(&cmdutil.Config{Demo: "incident"}).Source(cmdutil.SourceOptions{}).Load()
	if err != nil {
		t.Fatal(err)
	}
	if mvs := cmdutil.ObjectNames(series, cmdutil.KindMV); len(mvs) != 11 || mvs[0] != "demo.mv_big_join" {
		t.Errorf("mvs: %q", mvs)
	}
	if streams := cmdutil.ObjectNames(series, cmdutil.KindStream); len(streams) != 24 {
		t.Errorf("streams: %d", len(streams))
	}
}
