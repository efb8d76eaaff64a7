package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type member struct {
	name string
	data []byte
	typ  byte
}

func tarGz(t *testing.T, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		typ := m.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: m.name, Mode: 0o600, Size: int64(len(m.data)), Typeflag: typ}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write(m.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestLoadBundle: --snapshot FILE.tar.gz reads the one snapshot.json under
// the archive's top directory, checked against the manifest; anything else
// is refused with a clear error, never extracted.
func TestLoadBundle(t *testing.T) {
	snap := minimal(t)
	good := `{"files":[{"path":"snapshot.json","sha256":"` + sum(snap) + `"}]}`
	for _, tc := range []struct {
		name    string
		archive []byte
		limit   int64
		err     string
	}{
		{"ok", tarGz(t, []member{{name: "top/verdicts/check.json", data: []byte("{}")}, {name: "top/snapshot.json", data: snap}, {name: "top/manifest.json", data: []byte(good)}}), 0, ""},
		{"ok without manifest", tarGz(t, []member{{name: "top/snapshot.json", data: snap}}), 0, ""},
		{"no snapshot", tarGz(t, []member{{name: "top/check.json", data: []byte("{}")}}), 0, "no snapshot.json"},
		{"deeper snapshot ignored", tarGz(t, []member{{name: "top/x/snapshot.json", data: snap}}), 0, "no snapshot.json"},
		{"two snapshots", tarGz(t, []member{{name: "top/snapshot.json", data: snap}, {name: "other/snapshot.json", data: snap}}), 0, "more than one snapshot.json"},
		{"symlink named snapshot", tarGz(t, []member{{name: "top/snapshot.json", typ: tar.TypeSymlink}}), 0, "no snapshot.json"},
		{"over the limit", tarGz(t, []member{{name: "top/snapshot.json", data: snap}}), 100, "larger than the 100-byte snapshot limit"},
		{"hash mismatch", tarGz(t, []member{{name: "top/snapshot.json", data: snap}, {name: "top/manifest.json", data: []byte(`{"files":[{"path":"snapshot.json","sha256":"00"}]}`)}}), 0, "does not match the manifest"},
		{"not json inside", tarGz(t, []member{{name: "top/snapshot.json", data: []byte("garbage")}}), 0, "top/snapshot.json"},
		{"gzip of no tar", gzipOf(t, []byte(strings.Repeat("x", 2000))), 0, "not a tar archive"},
		{"truncated gzip", tarGz(t, []member{{name: "top/snapshot.json", data: snap}})[:40], 0, "bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "b.tar.gz")
			if err := os.WriteFile(p, tc.archive, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := LoadFile(p, tc.limit)
			if tc.err == "" {
				if err != nil || s == nil || s.Source.File != p {
					t.Fatalf("LoadFile: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), p) {
				t.Errorf("LoadFile: %v, want an error naming the file and %q", err, tc.err)
			}
		})
	}
}

func gzipOf(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write(b)
	gz.Close()
	return buf.Bytes()
}

// TestLoadBundleBoundsDecompression: an archive that decompresses past the
// bound (a gzip bomb of zeros in a member nobody reads) is refused, not
// read to its end.
func TestLoadBundleBoundsDecompression(t *testing.T) {
	old := maxBundleBytes
	maxBundleBytes = func(int64) int64 { return 1 << 20 }
	defer func() { maxBundleBytes = old }()
	snap := minimal(t)
	archive := tarGz(t, []member{{name: "top/metrics/big.prom", data: make([]byte, 4<<20)}, {name: "top/snapshot.json", data: snap}})
	p := filepath.Join(t.TempDir(), "bomb.tar.gz")
	if err := os.WriteFile(p, archive, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(p, 0); err == nil || !strings.Contains(err.Error(), "bytes uncompressed") {
		t.Errorf("LoadFile: %v, want the uncompressed bound", err)
	}
}
