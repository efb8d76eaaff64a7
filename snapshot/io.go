package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dorisdiag/dorisdiag/tso"
)

// DefaultMaxBytes bounds a snapshot file read (design.md "Bounded reads"): a
// 2,000-MV, 50,000-partition snapshot is about 60 MB of JSON.
const DefaultMaxBytes = 512 << 20

// Load decodes a snapshot, refusing more than maxBytes (<= 0: DefaultMaxBytes),
// a schema_version newer than this build reads, and trailing garbage. It
// never panics on bad input.
func Load(r io.Reader, maxBytes int64) (*Snapshot, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("snapshot is larger than the %d-byte limit", maxBytes)
	}
	return Decode(data)
}

// Decode parses snapshot JSON already in memory.
func Decode(data []byte) (*Snapshot, error) {
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a dorisdiag snapshot: %w", jsonErr(data, err))
	}
	switch {
	case head.SchemaVersion == nil:
		return nil, errors.New("not a dorisdiag snapshot: no schema_version field")
	case *head.SchemaVersion > SchemaVersion:
		return nil, fmt.Errorf("snapshot schema_version %d is newer than this dorisdiag reads (%d): upgrade dorisdiag", *head.SchemaVersion, SchemaVersion)
	case *head.SchemaVersion < 1:
		return nil, fmt.Errorf("snapshot schema_version %d is invalid", *head.SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("decoding snapshot: %w", jsonErr(data, err))
	}
	if dec.More() {
		return nil, errors.New("decoding snapshot: trailing data after the JSON object")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// LoadFile loads a snapshot file and records its path in Source.File.
func LoadFile(path string, maxBytes int64) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening snapshot: %w", err)
	}
	defer f.Close()
	s, err := Load(f, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Source.File = path
	return s, nil
}

// Validate checks what every diagnosis relies on: a real current TSO, from
// which Now is derived when absent.
func (s *Snapshot) Validate() error {
	if !realTSO(s.Cluster.CurrentTSO) {
		return fmt.Errorf("snapshot cluster.current_tso %d is not a real TSO", int64(s.Cluster.CurrentTSO))
	}
	now := time.UnixMilli(s.Cluster.CurrentTSO.Physical()).UTC()
	if s.Cluster.Now.IsZero() {
		s.Cluster.Now = now
	}
	if s.Capabilities.Sources == nil {
		s.Capabilities.Sources = map[string]SourceCapability{}
	}
	return nil
}

func realTSO(t tso.TSO) bool { return t > 0 && t < 1<<63-1 }

// Write encodes a snapshot as indented JSON with a final newline.
func Write(w io.Writer, s *Snapshot) error {
	if s.SchemaVersion == 0 {
		s.SchemaVersion = SchemaVersion
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}

// jsonErr adds the line and column to a JSON syntax or type error.
func jsonErr(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}
