package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/report"
)

// The overview's smallest headroom is coloured against --min-headroom
// (decided in diag), not a hard-coded 30 minutes: healthy's ~59m42s is a
// warning below a 2h threshold and ok at the default.
func TestCheckOverviewHeadroomFollowsMinHeadroom(t *testing.T) {
	runTTY := func(args ...string) string {
		var out, errb bytes.Buffer
		ios := &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, IsTTY: true, Getenv: func(string) string { return "" }}
		if code := Main(args, ios); code != ExitOK && code != ExitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	st := report.NewStyle(&bytes.Buffer{}, true)
	const h = "59m42s"
	if out := runTTY("check", "--demo", "healthy", "--min-headroom", "2h"); !strings.Contains(out, "user min headroom "+st.Severity("warning", h)) {
		t.Errorf("--min-headroom 2h: headroom %s is not coloured as a warning:\n%q", h, out)
	}
	if out := runTTY("check", "--demo", "healthy"); !strings.Contains(out, "user min headroom "+st.Severity("ok", h)) {
		t.Errorf("default --min-headroom: headroom %s is not coloured ok:\n%q", h, out)
	}
}
