package snapshot

import (
	"io"
	"strings"
	"testing"
)

// zeros is an endless stream of NUL bytes (a piped /dev/zero) that counts
// what was read from it.
type zeros struct{ read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += int64(len(p))
	return len(p), nil
}

// A stream that is not JSON is refused after its first bytes: the loader
// used to read it to the 512 MiB limit first (1.27 GB resident).
func TestLoadRefusesNonJSONStreamAtOnce(t *testing.T) {
	z := &zeros{}
	_, err := Load(z, 0)
	if err == nil || !strings.Contains(err.Error(), "not a dorisdiag snapshot") || !strings.Contains(err.Error(), `'\x00'`) {
		t.Fatalf("error %v, want a refusal naming the NUL byte", err)
	}
	if z.read > 64<<10 {
		t.Fatalf("read %d bytes of /dev/zero before refusing it, want at most 64 KiB", z.read)
	}
}

// A long valid prefix followed by garbage is read only up to the garbage,
// and a stream over the limit stops at the limit.
func TestLoadStopsAtLimitWhileStreaming(t *testing.T) {
	body := `{"schema_version":1,"tables":[` + strings.Repeat(`{"db":"d","name":"t"},`, 100000)
	r := io.MultiReader(strings.NewReader(body), &zeros{})
	if _, err := Load(r, 1<<20); err == nil || !strings.Contains(err.Error(), "larger than the 1048576-byte limit") {
		t.Fatalf("error %v, want the size limit", err)
	}
}

// schema_version is checked before the values are used, wherever it comes
// in the object: a newer schema is refused as such, not as a type error of
// a field whose shape it changed.
func TestLoadChecksVersionBeforeValues(t *testing.T) {
	_, err := Load(strings.NewReader(`{"cluster":{"current_tso":[1]},"streams":{"new":"shape"},"schema_version":99}`), 0)
	if err == nil || !strings.Contains(err.Error(), "schema_version 99 is newer than this dorisdiag reads") {
		t.Fatalf("error %v, want the newer-schema refusal", err)
	}
	_, err = Load(strings.NewReader(`{"schema_version":99,"streams":{"new":"shape"}}`), 0)
	if err == nil || !strings.Contains(err.Error(), "newer than this dorisdiag reads") {
		t.Fatalf("error %v, want the newer-schema refusal", err)
	}
}

// Values before schema_version, unknown keys (a "kind" from a newer writer)
// and keys in any case decode as encoding/json would.
func TestLoadKeyOrderAndUnknownKeys(t *testing.T) {
	for _, in := range []string{
		`{"cluster":{"current_tso":"470819222323200000"},"streams":[{"db":"d","name":"s","id":7}],"schema_version":1}`,
		`{"schema_version":1,"kind":"snapshot","cluster":{"current_tso":"470819222323200000"},"streams":[{"db":"d","name":"s","id":7}]}`,
		`{"kind":"snapshot","Schema_Version":1,"Cluster":{"current_tso":"470819222323200000"},"STREAMS":[{"db":"d","name":"s","id":7}]}`,
	} {
		s, err := Load(strings.NewReader(in), 0)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if s.SchemaVersion != 1 || len(s.Streams) != 1 || s.Streams[0].ID != 7 || s.Cluster.CurrentTSO != 470819222323200000 {
			t.Fatalf("%s: decoded %d %+v %d", in, s.SchemaVersion, s.Streams, s.Cluster.CurrentTSO)
		}
	}
}

// Errors keep their line and column, from memory and from a stream.
func TestLoadErrorPositions(t *testing.T) {
	in := "{\"schema_version\":1,\n\"streams\": [\n{\"id\":1},\n {\"id\":true}]}"
	for name, load := range map[string]func() error{
		"stream": func() error { _, err := Load(strings.NewReader(in), 0); return err },
		"memory": func() error { _, err := Decode([]byte(in)); return err },
	} {
		if err := load(); err == nil || !strings.Contains(err.Error(), "line 4, column 1") || !strings.Contains(err.Error(), "id of type int64") {
			t.Errorf("%s: error %v, want line 4 and the field", name, err)
		}
	}
}

// Why 10 (issue 14): a null element of a snapshot array is reported as
// malformed with its JSON path and left out, never turned into an object
// (`"streams":[null]` became a stream with id 0 and no name); a wrongly
// typed element refuses the file, naming its JSON path.
func TestNonObjectArrayElementsAreMalformed(t *testing.T) {
	in := `{"schema_version":1,"cluster":{"current_tso":"470819222323200000"},
	"streams":[null,{"db":"d","name":"s","id":7},null],
	"mvs":[null],"tasks":[{"mv_name":"m"}, null],
	"malformed":[{"source":"t","column":"c","value":"v","error":"e"}]}`
	for name, load := range map[string]func() (*Snapshot, error){
		"stream": func() (*Snapshot, error) { return Load(strings.NewReader(in), 0) },
		"memory": func() (*Snapshot, error) { return Decode([]byte(in)) },
	} {
		s, err := load()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Streams) != 1 || s.Streams[0].ID != 7 || s.Streams[0].Name != "s" {
			t.Errorf("%s: streams %+v, want only the real one", name, s.Streams)
		}
		if len(s.MVs) != 0 || s.MVs == nil || len(s.Tasks) != 1 {
			t.Errorf("%s: mvs %+v tasks %+v", name, s.MVs, s.Tasks)
		}
		got := map[string]string{}
		for _, m := range s.Malformed {
			got[m.Row] = m.Value
		}
		want := map[string]string{"$.streams[0]": "null", "$.streams[2]": "null", "$.mvs[0]": "null", "$.tasks[1]": "null", "": "v"}
		if len(got) != len(want) {
			t.Errorf("%s: malformed %+v, want %v", name, s.Malformed, want)
		}
		for row, v := range want {
			if got[row] != v {
				t.Errorf("%s: malformed %s = %q, want %q (all: %+v)", name, row, got[row], v, s.Malformed)
			}
		}
	}
	const head = `{"schema_version":1,"cluster":{"current_tso":"470819222323200000"},`
	for in, want := range map[string]string{
		head + `"streams":[{"id":1},42]}`:         "$.streams[1]: a number where an object belongs",
		head + `"streams":[null,"x"]}`:            "$.streams[1]: a string where an object belongs",
		head + `"mvs":[[1]]}`:                     "$.mvs[0]: an array where an object belongs",
		head + `"streams":[{"id":1},{"id":"x"}]}`: "$.streams[1].id: json: cannot unmarshal string",
		head + `"streams":{"id":1}}`:              "cannot unmarshal object",
		head + `"streams":5}`:                     "cannot unmarshal number",
	} {
		if _, err := Load(strings.NewReader(in), 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	// "streams": null is no list, as before.
	s, err := Load(strings.NewReader(head+`"streams":null}`), 0)
	if err != nil || s.Streams != nil || len(s.Malformed) != 0 {
		t.Errorf("streams null: %v %+v %+v", err, s.Streams, s.Malformed)
	}
}
