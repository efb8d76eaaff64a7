package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/report"
)

// The tso commands' table and JSON output, pinned.
func TestTSOGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"tso_decode.txt", "", []string{"tso", "decode", "469067681628160003", "395181938313123110", "0x6828f3b1b8c00003", "N/A", "9223372036854775807"}, cmdutil.ExitOK},
		{"tso_decode.json", "", []string{"tso", "decode", "-o", "json", "--", "469067681628160003", "-1"}, cmdutil.ExitOK},
		{"tso_decode.md", "", []string{"tso", "decode", "469067681628160003", "-o", "markdown"}, cmdutil.ExitOK},
		{"tso_decode_local.txt", "", []string{"tso", "decode", "469067681628160003", "--local", "--tz", "Asia/Shanghai"}, cmdutil.ExitOK},
		{"tso_decode_stdin_bad.txt", "469067681628160003\n\nnot-a-tso\n395181938313123110\n", []string{"tso", "decode"}, cmdutil.ExitError},
		{"tso_encode.txt", "", []string{"tso", "encode", "2026-11-30 18:00:00.250", "--tz", "Asia/Shanghai", "--logical", "7"}, cmdutil.ExitOK},
		{"tso_encode.json", "", []string{"tso", "encode", "2026-11-30T10:00:00Z", "-o", "json"}, cmdutil.ExitOK},
		{"tso_diff.txt", "", []string{"tso", "diff", "469067681628160003", "469067419484160000"}, cmdutil.ExitOK},
		{"tso_diff.json", "", []string{"tso", "diff", "469067419484160000", "469067681628160003", "-o", "json"}, cmdutil.ExitOK},
		{"tso_lag.txt", "", []string{"tso", "lag", "262144000"}, cmdutil.ExitOK},
		{"tso_lag_versions.json", "", []string{"tso", "lag", "3", "--offset", "469067681628160003", "-o", "json"}, cmdutil.ExitOK},
		{"tso_lag_na.txt", "", []string{"tso", "lag", "N/A"}, cmdutil.ExitOK},
		{"tso_headroom_expired.txt", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z"}, cmdutil.ExitOK},
		{"tso_headroom_expired.json", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "-o", "json"}, cmdutil.ExitOK},
		// Issue 21: the calculator reads no cluster; without the user's word an
		// expired offset is a worded warning (exit 0 at --fail-on critical),
		// with --assume-ttl-enforced the critical.
		{"tso_headroom_expired_unknown_gate.txt", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "--fail-on", "critical"}, cmdutil.ExitOK},
		{"tso_headroom_expired_enforced.txt", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "--assume-ttl-enforced", "--fail-on", "critical"}, cmdutil.ExitFindings},
		{"tso_headroom_expired_not_enforced.txt", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "--assume-ttl-enforced=false", "--fail-on", "warning"}, cmdutil.ExitOK},
		{"tso_headroom_ok.txt", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-14 12:00:00"}, cmdutil.ExitOK},
		{"tso_headroom_na.txt", "", []string{"tso", "headroom", "--offset", "N/A", "--ttl", "86400", "--now", "469099767398400000"}, cmdutil.ExitOK},
		{"tso_headroom_expired.md", "", []string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "-o", "markdown"}, cmdutil.ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, nil, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			if stderr != "" {
				out += "--- stderr ---\n" + stderr
			}
			golden(t, tc.name, out)
		})
	}
}

// The acceptance case, verified by hand in tso/retention_test.go:
// physical(C) = 1789351202500 (doris.md's 1789351206000 is the example row's
// LAST_CONSUMPTION_TIME, not the offset's physical time), X = 1789387200000.
func TestTSOHeadroomAcceptance(t *testing.T) {
	out, _, code := run(t, nil, "", "tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"schema_version":      float64(report.SchemaVersion),
		"cutoff_tso":          "469077118157062143", // (1789387200000+1)<<18 - 1
		"retention_floor_tso": "469077118157062144", // 1789387200001<<18
		"next_required_tso":   "469067681628160004", // C+1
		"can_resume":          false,
		"headroom_seconds":    -35997.501, // (1789351202500-1789387200001)/1000
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestTSOExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"tso", "decode", "garbage"}, cmdutil.ExitError},
		{[]string{"tso", "decode", "18446744073709551616"}, cmdutil.ExitError},
		{[]string{"tso", "decode", "1", "-o", "prom"}, cmdutil.ExitError},
		{[]string{"tso", "encode", "yesterday"}, cmdutil.ExitError},
		{[]string{"tso", "encode", "2026-11-30", "--logical", "262144"}, cmdutil.ExitError},
		{[]string{"tso", "diff", "1"}, cmdutil.ExitError},
		{[]string{"tso", "diff", "N/A", "1"}, cmdutil.ExitError},
		{[]string{"tso", "headroom", "--offset", "1", "--ttl", "0", "--now", "469099767398400000"}, cmdutil.ExitError},
		{[]string{"tso", "headroom", "--offset", "1", "--ttl", "60"}, cmdutil.ExitError},
		{[]string{"tso", "headroom", "--offset", "1", "--ttl", "60", "--now", "1", "--now-time", "now"}, cmdutil.ExitError},
		// --fail-on turns the verdict into exit 1 for CI; an expired offset is
		// critical only on a build that enforces the TTL (issue 21).
		{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "--fail-on", "critical", "--assume-ttl-enforced"}, cmdutil.ExitFindings},
		{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "--fail-on", "critical"}, cmdutil.ExitOK},
		{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "--fail-on", "warning"}, cmdutil.ExitFindings},
		{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-14T12:00:00Z", "--fail-on", "critical"}, cmdutil.ExitOK},
		// 2026-09-15T01:40:00Z: 20m03s left < 30m → warning.
		{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T01:40:00Z", "--fail-on", "warning"}, cmdutil.ExitFindings},
		{[]string{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T01:40:00Z", "--fail-on", "critical"}, cmdutil.ExitOK},
	} {
		_, stderr, code := run(t, nil, "", tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", strings.Join(tc.args, " "), code, tc.code, stderr)
		}
	}
}

// Every tso JSON document has exactly one top-level "kind", the document's
// own: `tso encode -o json` printed a second ("kind": "tso", the decoded
// value's) after it, and decoders keep whichever key comes last.
func TestTSOJSONHasOneKind(t *testing.T) {
	for _, args := range [][]string{
		{"tso", "decode", "-o", "json", "--", "469067681628160003", "-1", "9223372036854775807"},
		{"tso", "encode", "2026-11-30T10:00:00Z", "-o", "json"},
		{"tso", "diff", "469067419484160000", "469067681628160003", "-o", "json"},
		{"tso", "lag", "262144000", "-o", "json"},
		{"tso", "lag", "N/A", "-o", "json"},
		{"tso", "headroom", "--offset", "469067681628160003", "--ttl", "86400", "--now-time", "2026-09-15T12:00:00Z", "-o", "json"},
		{"tso", "headroom", "--offset", "N/A", "--ttl", "86400", "--now", "469099767398400000", "-o", "json"},
	} {
		name := strings.Join(args[:2], "_")
		out, stderr, code := run(t, nil, "", args...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d (stderr %q)", strings.Join(args, " "), code, stderr)
		}
		var kinds []string
		dec := json.NewDecoder(strings.NewReader(out))
		if _, err := dec.Token(); err != nil { // {
			t.Fatalf("%s: %v", name, err)
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if key == "kind" {
				kinds = append(kinds, string(v))
			}
		}
		if want := `"` + name + `"`; len(kinds) != 1 || kinds[0] != want {
			t.Errorf("%s: top-level kind keys %v, want exactly [%s]", strings.Join(args, " "), kinds, want)
		}
	}
}

// A bad LAG, a bad --offset next to a real LAG, and an unbounded or
// overflowing headroom input are usage errors naming the input, not panics.
func TestTSOBadInputs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tso", "lag", "x"}, "dorisdiag:"},
		{[]string{"tso", "lag", "3", "--offset", "garbage"}, "dorisdiag:"},
		{[]string{"tso", "headroom", "--offset", "9223372036854775807", "--ttl", "60", "--now", "469099767398400000"}, "--offset 9223372036854775807 is UNBOUNDED_TSO"},
		{[]string{"tso", "headroom", "--offset", "1", "--ttl", "9223372036854776", "--now", "469099767398400000"}, `--ttl "9223372036854776": at most 9223372036854775 seconds`},
	} {
		_, stderr, code := run(t, nil, "", tc.args...)
		if code != cmdutil.ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming %q", strings.Join(tc.args, " "), code, stderr, cmdutil.ExitError, tc.want)
		}
	}
}
