package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// Why 10 (issue 14), the file half: `"streams":[null]` in a snapshot file
// became a phantom stream (id 0, no name) with a STREAM_DISABLED warning. It
// is a SOURCE_MALFORMED_VALUE naming $.streams[0], and no stream.
func TestNullArrayElementIsMalformedNotAStream(t *testing.T) {
	for elems, n := range map[string]string{"null": "1", "null,null": "2"} {
		checkNoPhantomStream(t, `{"schema_version":1,"kind":"snapshot","cluster":{"current_tso":"470819222323200000"},"could_not_read":[],
	"streams":[`+elems+`]}`, n)
	}
}

func checkNoPhantomStream(t *testing.T, doc, count string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(p, []byte(doc), 0o600)
	out, stderr, code := run(t, nil, "", "check", "--snapshot", p, "-o", "json", "--fail-on", "none")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Findings []struct {
			Code     string
			Object   struct{ Kind, Name string }
			Evidence map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Code, "STREAM_") {
			t.Errorf("a finding about a stream that does not exist: %+v", f)
		}
		if f.Code == "SOURCE_MALFORMED_VALUE" && f.Evidence["first_row"] == "$.streams[0]" && f.Evidence["count"] == count {
			found = true
		}
	}
	if !found {
		t.Errorf("no SOURCE_MALFORMED_VALUE naming $.streams[0] (%s values): %s", count, out)
	}
	out, _, _ = run(t, nil, "", "streams", "--snapshot", p, "-o", "json")
	if strings.Contains(out, `"id": 0`) || strings.Contains(out, `"stream_id": 0`) {
		t.Errorf("streams lists a phantom stream: %s", out)
	}
}

// A wrongly typed element refuses the file, exit 2, naming its JSON path
// (it said "cannot unmarshal number into .1 of type snapshot.Stream").
func TestWronglyTypedArrayElementNamesItsPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(p, []byte(`{"schema_version":1,"kind":"snapshot","cluster":{"current_tso":"470819222323200000"},"streams":[null,42]}`), 0o600)
	_, stderr, code := run(t, nil, "", "check", "--snapshot", p)
	if code != cmdutil.ExitError || !strings.Contains(stderr, "$.streams[1]: a number where an object belongs") {
		t.Errorf("exit %d %q, want 2 and the element's path", code, stderr)
	}
}
