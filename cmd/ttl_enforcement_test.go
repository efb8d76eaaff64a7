package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/corpus"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// corpusFile writes a corpus case's collected snapshot to a file for
// --snapshot.
func corpusFile(t *testing.T, name string) string {
	t.Helper()
	s, err := corpus.Snapshot(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 21, done-when: the docs' consumption rows on a binlog.* build with
// no enforcement evidence pass --fail-on critical with a warning naming the
// uncertainty; the user's word (flag or config key) and a build with
// evidence give the critical.
func TestCheckTTLEnforcementGate(t *testing.T) {
	docs := corpusFile(t, "docs-consumption")
	out, stderr, code := run(t, nil, "", "check", "--snapshot", docs, "--fail-on", "critical", "--no-color")
	if code != cmdutil.ExitOK || !strings.Contains(out, "if this build enforces binlog.ttl_seconds (apache/doris#68226)") || !strings.Contains(out, "STREAM_CANNOT_RESUME_REJECTED") {
		t.Errorf("no evidence: exit %d (want 0 with the warning)\n%s%s", code, out, stderr)
	}
	cfg := filepath.Join(t.TempDir(), "dorisdiag.yaml")
	if err := os.WriteFile(cfg, []byte("assume_ttl_enforced: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"flag":     {"check", "--snapshot", docs, "--assume-ttl-enforced"},
		"config":   {"check", "--snapshot", docs, "--config", cfg},
		"evidence": {"check", "--snapshot", corpusFile(t, "expired-offset-error")},
	} {
		out, stderr, code := run(t, nil, "", append(args, "--fail-on", "critical", "--no-color")...)
		if code != cmdutil.ExitFindings || !strings.Contains(out, "STREAM_CANNOT_RESUME_REJECTED") || strings.Contains(out, "if this build enforces") {
			t.Errorf("%s: exit %d (want 1 with the critical)\n%s%s", name, code, out, stderr)
		}
	}
	// The user's "no": no expiry finding.
	out, _, code = run(t, nil, "", "check", "--snapshot", docs, "--assume-ttl-enforced=false", "--fail-on", "warning", "--no-color")
	if strings.Contains(out, "STREAM_CANNOT_RESUME") {
		t.Errorf("--assume-ttl-enforced=false: exit %d\n%s", code, out)
	}
	if _, stderr, code := run(t, nil, "", "check", "--snapshot", docs, "--assume-ttl-enforced=maybe"); code != cmdutil.ExitError {
		t.Errorf("--assume-ttl-enforced=maybe: exit %d, want 2 (%s)", code, stderr)
	}
}
