package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/report"
)

// The overview's smallest headroom is coloured against --min-headroom
// (decided in diag), not a hard-coded 30 minutes: healthy's ~59m42s is a
// warning below a 2h threshold and ok at the default.
func TestCheckOverviewHeadroomFollowsMinHeadroom(t *testing.T) {
	runTTY := func(args ...string) string {
		var out, errb bytes.Buffer
		ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, IsTTY: true, Getenv: func(string) string { return "" }}
		if code := Main(args, ios); code != cmdutil.ExitOK && code != cmdutil.ExitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	st := report.NewStyle(&bytes.Buffer{}, true)
	const h = "59m42s"
	if out := runTTY("check", "--demo", "healthy", "--min-headroom", "2h"); !strings.Contains(out, "min headroom: "+st.Render(st.Severity("warning", h))) {
		t.Errorf("--min-headroom 2h: headroom %s is not coloured as a warning:\n%q", h, out)
	}
	if out := runTTY("check", "--demo", "healthy"); !strings.Contains(out, "min headroom: "+st.Render(st.Severity("ok", h))) {
		t.Errorf("default --min-headroom: headroom %s is not coloured ok:\n%q", h, out)
	}
}

// docs/commands.md lists each converted command's formats: they are the
// ones report registers for its document.
func TestCommandsDocFormatsMatchRegistry(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	for cmd, kind := range map[string]string{"`check`": "check", "`explain [CODE]`": "explain", "`streams`": "streams",
		"`streams show DB.STREAM`": "stream", "`mv list`": "mv_list", "`mv explain DB.MV`": "mv_explain"} {
		var fs []string
		for _, f := range report.Formats(kind) {
			fs = append(fs, string(f))
		}
		if want := "| " + cmd + " |"; !strings.Contains(string(data), want) {
			t.Errorf("commands.md has no row %s", want)
			continue
		}
		row := string(data)[strings.Index(string(data), "| "+cmd+" |"):]
		row = row[:strings.Index(row, "\n")]
		if !strings.Contains(row, "| "+strings.Join(fs, ", ")+" |") {
			t.Errorf("commands.md row %q does not list %s", row, strings.Join(fs, ", "))
		}
	}
}
