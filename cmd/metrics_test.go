package cmd

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dorisdiag/dorisdiag/internal/testnet"
)

const fixtureNow = "1796083200" // the fixtures' last_sample_timestamp is 10 s before

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "metrics", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMetricsLintFiveErrors(t *testing.T) {
	path := filepath.Join("..", "fixtures", "metrics", "five_errors.prom")
	out, stderr, code := run(t, nil, "", "metrics", "lint", path, "--now", fixtureNow)
	if code != cmdutil.ExitFindings || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1: a linter fails on a payload that does not parse", code, stderr)
	}
	golden(t, "metrics_lint_five_errors.txt", strings.ReplaceAll(out, path, "five_errors.prom"))
	// All five escaping errors, each with line:col and the label.
	for _, want := range []string{":23:29: label-value-bad-escape: doris_fe_query_total user=", ":28:28: label-value-bad-escape: doris_fe_query_err user=",
		":34:36: label-value-bad-escape: doris_fe_connection_total user=", ":67:58: label-value-raw-quote: doris_fe_table_data_size table_name=",
		":187:102: label-value-raw-newline: doris_fe_ivm_mv_data_delay_seconds mv_name="} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if _, _, code := run(t, nil, "", "metrics", "lint", path, "--fail-on", "none"); code != cmdutil.ExitOK {
		t.Errorf("--fail-on none: exit %d, want 0", code)
	}
	if _, _, code := run(t, nil, "", "metrics", "lint", filepath.Join("..", "fixtures", "metrics", "fe_master.prom"), "--now", fixtureNow, "--fail-on", "critical"); code != cmdutil.ExitOK {
		t.Errorf("clean payload with --fail-on critical: exit %d, want 0", code)
	}
}

func TestMetricsLintJSONAndStdin(t *testing.T) {
	out, _, code := run(t, nil, readFixture(t, "user_backslash.prom"), "metrics", "lint", "-o", "json", "--now", fixtureNow)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, want 0 (expfmt rejects the payload, a Prometheus server keeps it: a warning)", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "kind", "source", "parseable", "lines", "series", "bytes", "errors", "warnings", "infos", "problems", "conformance", "families", "findings"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if doc["kind"] != "metrics_lint" || doc["parseable"] != false || doc["source"] != "stdin" || doc["prometheus_server"] != "kept" || doc["expfmt"] != "rejected" {
		t.Errorf("%v %v %v", doc["kind"], doc["parseable"], doc["source"])
	}
	golden(t, "metrics_lint_user_backslash.json", out)
}

func TestMetricsLintFix(t *testing.T) {
	out, stderr, code := run(t, nil, readFixture(t, "five_errors.prom"), "metrics", "lint", "--fix")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	if _, err := p.TextToMetricFamilies(strings.NewReader(out)); err != nil {
		t.Fatalf("fixed output does not parse: %v", err)
	}
	if !strings.Contains(stderr, "fixed, 5 change(s); the output parses") {
		t.Errorf("report on stderr: %q", stderr)
	}
	dir := t.TempDir()
	w := filepath.Join(dir, "fixed.prom")
	out, _, code = run(t, nil, readFixture(t, "linefeed.prom"), "metrics", "lint", "--fix", "-w", w)
	if code != cmdutil.ExitOK || !strings.Contains(out, "rejoined a sample split by a raw line feed") {
		t.Errorf("exit %d: %q", code, out)
	}
	if b, err := os.ReadFile(w); err != nil || !strings.Contains(string(b), `mv_name="mv_customer\nltv"`) {
		t.Errorf("written file: %v", err)
	}
	if _, _, code := run(t, nil, "", "metrics", "lint", "x.prom", "-w", "y"); code != cmdutil.ExitError {
		t.Errorf("-w without --fix: exit %d", code)
	}
}

func TestMetricsLintBadInput(t *testing.T) {
	if _, stderr, code := run(t, nil, "", "metrics", "lint", "/no/such/file.prom"); code != cmdutil.ExitError || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: exit %d %q", code, stderr)
	}
	if _, stderr, code := run(t, nil, strings.Repeat("a 1\n", 100), "metrics", "lint", "--max-bytes", "50"); code != cmdutil.ExitError || !strings.Contains(stderr, "limit") {
		t.Errorf("over the limit: exit %d %q", code, stderr)
	}
	// Bad bytes are findings, not errors; nothing panics.
	if _, _, code := run(t, nil, "\xff\xfe{\"\\", "metrics", "lint", "--fail-on", "critical"); code != cmdutil.ExitFindings {
		t.Errorf("garbage: exit %d", code)
	}
}

func TestMetricsScrape(t *testing.T) {
	serve := func(body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }))
		t.Cleanup(s.Close)
		return strings.TrimPrefix(s.URL, "http://")
	}
	master := serve(readFixture(t, "fe_master.prom"))
	follower := serve(readFixture(t, "fe_follower.prom"))
	broken := serve(readFixture(t, "user_backslash.prom"))
	be := serve(readFixture(t, "be.prom"))
	silent := testnet.SilentListener(t)
	targets := "fe=" + master + ",fe=" + follower + ",fe=" + broken + ",be=" + be + ",be=" + silent
	args := []string{"metrics", "scrape", "--targets", targets, "--header-timeout", "300ms", "--connect-timeout", "300ms", "--now", fixtureNow, "--no-color"}
	out, stderr, code := run(t, nil, "", append(args, "--fail-on", "critical")...)
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1 (an unreachable BE and an unparseable FE): %s", code, stderr)
	}
	for _, want := range []string{silent + " accepted the connection but sent no response headers within 300ms", "METRICS_TARGET_UNREACHABLE", "METRICS_UNPARSEABLE",
		"CHANGELOG_TTL_CLEANUP_FAILED", "METRICS_STATE_ON_FOLLOWER", "Changelog space"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = run(t, nil, "", append(args, "-o", "json")...)
	var doc struct {
		Targets []struct {
			Target    struct{ Kind, Host string }
			Reachable bool
			Parseable *bool
			Error     string
		}
		Findings []struct{ Code string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Targets) != 5 || doc.Targets[4].Reachable || doc.Targets[2].Parseable == nil || *doc.Targets[2].Parseable {
		t.Errorf("%+v", doc.Targets)
	}
	if _, stderr, code := run(t, nil, "", "metrics", "scrape"); code != cmdutil.ExitError || !strings.Contains(stderr, "no targets") {
		t.Errorf("no targets: exit %d %q", code, stderr)
	}
	if _, _, code := run(t, nil, "", "metrics", "scrape", "--targets", "nohost"); code != cmdutil.ExitError {
		t.Errorf("bad targets: exit %d", code)
	}
}

var _ = bytes.NewReader

func TestMetricsLintSnapshotPayloads(t *testing.T) {
	out, _, code := run(t, nil, "", "metrics", "lint", "--demo", "incident", "--fail-on", "critical", "--no-color")
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1: the incident Master payload carries a raw quote", code)
	}
	for _, want := range []string{"fe1.demo.invalid:8030: DOES NOT PARSE", "label-value-raw-quote: doris_fe_table_data_size table_name=", "design-ttl-cleanup-failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	out, _, code = run(t, nil, "", "metrics", "lint", "--demo", "healthy", "--fail-on", "critical", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Errorf("healthy: exit %d\n%s", code, out)
	}
	if _, _, code := run(t, nil, "", "metrics", "lint", "--demo", "incident", "--fix"); code != cmdutil.ExitError {
		t.Errorf("--fix on a snapshot: exit %d, want 2", code)
	}
}

// TestMetricsFixJSONEscapesOnce: --fix -o json holds each value's text as
// the payload and the output hold it, escaped once by JSON alone. Decoded,
// `before` is in the input and `after` in the fixed output, and `after`,
// read by the exposition format's rules, is the value prometheus/common's
// parser reads from the output (the values carry a backslash, quotes and a
// line feed). Before, the display escaping came on top of JSON's: `a\b`
// was "a\\\\b" in JSON.
func TestMetricsFixJSONEscapesOnce(t *testing.T) {
	in := "m{user=\"a\\b\"} 1\nm{user=\"say \"hi\"\"} 2\nm{user=\"one\ntwo\"} 3\n"
	want := map[float64]string{1: `a\b`, 2: `say "hi"`, 3: "one\ntwo"}
	out, stderr, code := run(t, nil, in, "metrics", "lint", "--fix", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Fix struct {
			Changes []struct {
				Line          int
				Before, After string
			}
		}
	}
	if err := json.Unmarshal([]byte(stderr), &doc); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(out))
	if err != nil {
		t.Fatalf("fixed output does not parse: %v", err)
	}
	parsed := map[int]string{}
	for _, m := range fams["m"].GetMetric() {
		parsed[int(m.GetUntyped().GetValue())] = m.GetLabel()[0].GetValue()
	}
	if len(doc.Fix.Changes) != 3 {
		t.Fatalf("changes: %+v", doc.Fix.Changes)
	}
	unescape := strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n")
	for i, c := range doc.Fix.Changes {
		n := i + 1
		if !strings.Contains(in, `"`+c.Before+`"`) {
			t.Errorf("line %d: before %q is not the input's text", c.Line, c.Before)
		}
		if !strings.Contains(out, `"`+c.After+`"`) {
			t.Errorf("line %d: after %q is not the output's text", c.Line, c.After)
		}
		if got := unescape.Replace(c.After); got != parsed[n] || got != want[float64(n)] {
			t.Errorf("line %d: after %q reads %q; prometheus/common reads %q, want %q", c.Line, c.After, got, parsed[n], want[float64(n)])
		}
	}
}

// Why (issue 25, "JSON and text warts"): `metrics lint -o json` wrote each
// problem's value escaped for display and then by JSON, so `a\b` in the
// payload read "a\\\\b" in JSON. Decoded, every value is the payload's own
// text (a byte-for-byte substring of it), cut only when value_cut says so;
// the table format still shows it display-escaped.
func TestMetricsLintJSONValueIsThePayloadText(t *testing.T) {
	long := strings.Repeat("é", 60) // 120 bytes: cut on a rune boundary
	in := "m{user=\"a\\b\"} 1\nm{user=\"say \"hi\"\"} 2\nm{user=\"one\ntwo\"} 3\nm{user=\"" + long + "\\q\"} 4\n"
	out, stderr, code := run(t, nil, in, "metrics", "lint", "-", "-o", "json")
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Problems []struct {
			Rule     string
			Line     int
			Value    string
			ValueCut bool `json:"value_cut"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	want := map[int]string{1: `a\b`, 2: `say "hi"`, 3: "one\ntwo"}
	seen := map[int]bool{}
	for _, p := range doc.Problems {
		if p.Value == "" {
			continue
		}
		seen[p.Line] = true
		if !strings.Contains(in, p.Value) || !utf8.ValidString(p.Value) {
			t.Errorf("line %d %s: value %q is not the payload's text", p.Line, p.Rule, p.Value)
		}
		if w, ok := want[p.Line]; ok && !strings.HasPrefix(p.Value, w) {
			t.Errorf("line %d %s: value %q, want %q", p.Line, p.Rule, p.Value, w)
		}
		if p.Line == 5 && (!p.ValueCut || len(p.Value) > 80 || !strings.HasPrefix(long, p.Value)) {
			t.Errorf("line 5 %s: value %q (cut %v), want the first ≤80 bytes of the value, cut", p.Rule, p.Value, p.ValueCut)
		}
	}
	for _, line := range []int{1, 2, 3, 5} { // the raw line feed makes line 3 two lines
		if !seen[line] {
			t.Errorf("line %d: no problem with a value: %+v", line, doc.Problems)
		}
	}
	// The table format shows it escaped for a terminal: `a\b` as a\\b.
	table, _, _ := run(t, nil, in, "metrics", "lint", "-")
	if !strings.Contains(table, `user="a\\b"`) {
		t.Errorf("table: want the display-escaped value a\\\\b:\n%s", table)
	}
}
