package snapshot

import (
	"bytes"
	"testing"
)

// FuzzDecode: no input makes Decode panic, and whatever it accepts writes
// back and decodes again to the same JSON.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":1,"cluster":{"current_tso":"470819222323200000"}}`,
		`{"schema_version":1,"cluster":{"current_tso":470819222323200000},"streams":[{"db":"d","name":"s","id":1}]}`,
		`{"schema_version":1,"cluster":{"current_tso":"1"},"consumption":[{"offset":"-1","lag_value":5}]}`,
		`{"schema_version":2}`,
		`{"schema_version":1,"cluster":{"current_tso":"9223372036854775807"}}`,
		`{"schema_version":1,"capabilities":{"sources":{"x":{"present":true,"columns":["A"]}}},"cluster":{"current_tso":"5"}}`,
		`[]`, `null`, `{"schema_version":"1"}`, "{\"schema_version\":1}\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, s); err != nil {
			t.Fatalf("accepted input does not write back: %v", err)
		}
		s2, err := Decode(buf.Bytes())
		if err != nil {
			t.Fatalf("written snapshot does not decode: %v\n%s", err, buf.Bytes())
		}
		var buf2 bytes.Buffer
		if err := Write(&buf2, s2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("write/decode is not stable:\n%s\n---\n%s", buf.Bytes(), buf2.Bytes())
		}
	})
}
