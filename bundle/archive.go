// Package bundle writes `dorisdiag bundle`'s support archive (docs/bundle.md):
// one gzip-compressed tar of the snapshot, check's verdicts, doctor's
// results, the configuration, the topology and the raw /metrics, with
// manifest.json listing each member's bytes, sha256, source and timing,
// what was skipped and why, and the redaction rules applied with their
// counts. Every member passes through one chokepoint (Redactor.apply,
// called only by Writer.add) before it is written; the archive is streamed
// member by member, each bounded by MaxMember.
package bundle

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"
)

// ManifestKind is the manifest's "kind".
const ManifestKind = "bundle_manifest"

// ManifestSchemaVersion is the manifest's schema version.
const ManifestSchemaVersion = 1

// ManifestName and SnapshotName are the members every reader looks for.
const (
	ManifestName = "manifest.json"
	SnapshotName = "snapshot.json"
)

// DefaultMaxMember bounds one member (after redaction): a text member over
// it is cut at a line boundary (the cut recorded), a JSON member is
// skipped (a cut JSON document would not parse).
const DefaultMaxMember = 256 << 20

// Tool is the build that wrote the bundle.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	VCSTime   string `json:"vcs_time,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	GoVersion string `json:"go_version,omitempty"`
}

// Manifest is manifest.json (docs/schema/bundle_manifest.schema.json).
type Manifest struct {
	Kind          string   `json:"kind"`
	SchemaVersion int      `json:"schema_version"`
	Tool          Tool     `json:"tool"`
	CommandLine   []string `json:"command_line"`
	// Source is live, file or demo: what the bundle was made from.
	Source     string      `json:"source"`
	StartedAt  time.Time   `json:"started_at"`
	FinishedAt time.Time   `json:"finished_at"`
	Files      []FileEntry `json:"files"`
	Skipped    []Skipped   `json:"skipped"`
	Redaction  Redaction   `json:"redaction"`
}

// Origin is where a member's content came from and when.
type Origin struct {
	// Source is the statement, the URL, or what dorisdiag derived the
	// member from ("check over snapshot.json").
	Source    string    `json:"source"`
	StartedAt time.Time `json:"started_at,omitempty"`
	ElapsedMs int64     `json:"elapsed_ms"`
}

// FileEntry is one member of the archive.
type FileEntry struct {
	Path   string `json:"path"` // under the archive's top directory
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Origin
	// TruncatedFromBytes is the member's size before it was cut at
	// MaxMember (a text member only); absent when whole.
	TruncatedFromBytes int64 `json:"truncated_from_bytes,omitempty"`
}

// Skipped is a member that is not in the archive, with why.
type Skipped struct {
	Path   string `json:"path"`
	Source string `json:"source,omitempty"`
	Reason string `json:"reason"`
}

// Redaction says which rules ran and how many values each replaced.
type Redaction struct {
	Rules []RuleCount `json:"rules"`
	// SQLLength is where SQL text was cut (characters).
	SQLLength int `json:"sql_length"`
	// NamesPseudonymised: --redact-names; the mapping is outside the
	// archive, in MappingFile (its base name).
	NamesPseudonymised bool   `json:"names_pseudonymised"`
	MappingFile        string `json:"mapping_file,omitempty"`
	Pseudonyms         int    `json:"pseudonyms,omitempty"`
}

// RuleCount is one rule and how many values it replaced (never the values).
type RuleCount struct {
	Rule    string `json:"rule"`
	Applied bool   `json:"applied"`
	Count   int    `json:"count"`
	Note    string `json:"note,omitempty"`
}

// Writer streams an archive: each member redacted, hashed and written at
// once; the manifest last.
type Writer struct {
	gz        *gzip.Writer
	tw        *tar.Writer
	red       *Redactor
	dir       string
	modTime   time.Time
	maxMember int64
	m         Manifest
	seen      map[string]bool
	closed    bool
}

// NewWriter starts an archive on w whose members live under dir (the
// archive's top directory), redacted by red.
func NewWriter(w io.Writer, dir string, red *Redactor, m Manifest, maxMember int64) *Writer {
	if maxMember <= 0 {
		maxMember = DefaultMaxMember
	}
	gz := gzip.NewWriter(w)
	m.Kind, m.SchemaVersion = ManifestKind, ManifestSchemaVersion
	m.Files, m.Skipped = []FileEntry{}, []Skipped{}
	return &Writer{gz: gz, tw: tar.NewWriter(gz), red: red, dir: dir, modTime: m.StartedAt.UTC().Truncate(time.Second),
		maxMember: maxMember, m: m, seen: map[string]bool{}}
}

// AddJSON writes v as a JSON member.
func (w *Writer) AddJSON(name string, v any, o Origin) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return w.add(name, contentJSON, data, o)
}

// AddText writes a text member (markdown, Prometheus text).
func (w *Writer) AddText(name string, data []byte, o Origin) error {
	return w.add(name, contentText, data, o)
}

// Skip records a member that is not in the archive, and why. The reason
// and source pass through the redactor (an error can quote a URL).
func (w *Writer) Skip(name, source, reason string) {
	w.m.Skipped = append(w.m.Skipped, Skipped{Path: w.red.Text(name), Source: w.red.Text(source), Reason: w.red.Text(reason)})
}

// add is the one way into the archive: redact, bound, hash, write.
func (w *Writer) add(name, kind string, data []byte, o Origin) error {
	if w.closed {
		return errors.New("bundle: archive closed")
	}
	name = w.red.Text(name) // a member's name can hold a host
	if name == ManifestName || w.seen[name] || !validMember(name) {
		return fmt.Errorf("bundle: member name %q refused", name)
	}
	out, err := w.red.apply(kind, data)
	if err != nil {
		w.Skip(name, o.Source, err.Error())
		return nil
	}
	o.Source = w.red.Text(o.Source)
	e := FileEntry{Path: name, Origin: o}
	if int64(len(out)) > w.maxMember {
		if kind == contentJSON {
			w.Skip(name, o.Source, fmt.Sprintf("%d bytes, over the %d-byte limit of one member", len(out), w.maxMember))
			return nil
		}
		e.TruncatedFromBytes = int64(len(out))
		cut := out[:w.maxMember]
		if i := strings.LastIndexByte(string(cut), '\n'); i > 0 {
			cut = cut[:i+1]
		}
		out = cut
	}
	sum := sha256.Sum256(out)
	e.Bytes, e.SHA256 = int64(len(out)), hex.EncodeToString(sum[:])
	if err := w.write(name, out); err != nil {
		return err
	}
	w.seen[name] = true
	w.m.Files = append(w.m.Files, e)
	return nil
}

func validMember(name string) bool {
	return name != "" && !strings.HasPrefix(name, "/") && path.Clean(name) == name && !strings.HasPrefix(name, "..") && len(name) < 200
}

func (w *Writer) write(name string, data []byte) error {
	hdr := &tar.Header{Name: w.dir + "/" + name, Mode: 0o600, Size: int64(len(data)), ModTime: w.modTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := w.tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := w.tw.Write(data)
	return err
}

// Close writes the manifest (itself through the redactor) and ends the
// archive. rules says which rules applied (with a note each).
func (w *Writer) Close(finished time.Time, mappingFile string) error {
	if w.closed {
		return nil
	}
	counts := w.red.Counts()
	w.m.FinishedAt = finished.UTC()
	w.m.Redaction = Redaction{SQLLength: w.red.SQLLength(), NamesPseudonymised: w.red.o.RedactNames}
	if w.red.o.RedactNames {
		w.m.Redaction.MappingFile = mappingFile
		w.m.Redaction.Pseudonyms = len(w.red.names)
	}
	notes := map[string]string{
		RulePassword:        "every occurrence of the session's password",
		RuleAuthorization:   "the value of every Authorization header",
		RuleURLUserInfo:     "user info of every URL removed",
		RuleSensitiveConfig: "the value of every configuration key naming a password, secret, token or access key",
		RuleSQLText:         "SQL and error text cut to sql_length characters",
		RuleNames:           "database, table, stream, MV and host names replaced by pseudonyms",
	}
	for _, rule := range []string{RulePassword, RuleAuthorization, RuleURLUserInfo, RuleSensitiveConfig, RuleSQLText, RuleNames} {
		rc := RuleCount{Rule: rule, Applied: true, Count: counts[rule], Note: notes[rule]}
		switch {
		case rule == RulePassword && !w.red.PasswordSearched():
			rc.Applied, rc.Note = false, "no password of 4 characters or more was given: none searched for"
		case rule == RuleNames && !w.red.o.RedactNames:
			rc.Applied, rc.Note = false, "without --redact-names names are kept"
		}
		w.m.Redaction.Rules = append(w.m.Redaction.Rules, rc)
	}
	sort.SliceStable(w.m.Files, func(i, j int) bool { return w.m.Files[i].Path < w.m.Files[j].Path })
	for i := range w.m.CommandLine {
		w.m.CommandLine[i] = w.red.Text(w.m.CommandLine[i])
	}
	data, err := json.Marshal(w.m)
	if err != nil {
		return err
	}
	// The manifest's own replacements are not in its counts.
	out, err := w.red.apply(contentJSON, data)
	if err != nil {
		return err
	}
	if err := w.write(ManifestName, out); err != nil {
		return err
	}
	w.closed = true
	if err := w.tw.Close(); err != nil {
		return err
	}
	return w.gz.Close()
}

// Manifest is the manifest as it stands (tests, the command's summary).
func (w *Writer) Manifest() Manifest { return w.m }
