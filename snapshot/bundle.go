package snapshot

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"
)

// Reading the snapshot inside a `dorisdiag bundle` archive (docs/bundle.md):
// --snapshot FILE.tar.gz loads its snapshot.json as a snapshot file. The
// archive is hostile input: nothing is extracted (no path is ever created),
// the archive must hold exactly one snapshot.json directly under its top
// directory, every member is bounded (the snapshot by the snapshot limit,
// the manifest by maxManifestBytes, the whole archive by
// maxBundleBytes uncompressed and maxBundleMembers members), and when the
// manifest lists the snapshot's sha256 the snapshot read must match it.

const (
	maxBundleMembers = 100000
	maxManifestBytes = 16 << 20
)

// maxBundleBytes bounds everything the reader decompresses (a variable:
// tests lower it).
var maxBundleBytes = func(snapLimit int64) int64 { return 4*snapLimit + (1 << 30) }

// IsGzip says whether the first bytes are gzip's magic number.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// loadBundle reads the snapshot of a bundle archive from r.
func loadBundle(r io.Reader, maxBytes int64) (*Snapshot, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("bundle: not a gzip archive: %w", err)
	}
	defer gz.Close()
	total := &limitReader{r: gz, left: maxBundleBytes(maxBytes)}
	tr := tar.NewReader(total)
	var (
		snap     *Snapshot
		snapName string
		snapSum  string
		manifest []byte
		members  int
	)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if total.over {
			return nil, fmt.Errorf("bundle: more than %d bytes uncompressed", maxBundleBytes(maxBytes))
		}
		if err != nil {
			if members == 0 {
				return nil, fmt.Errorf("bundle: not a tar archive: %w", err)
			}
			return nil, fmt.Errorf("bundle: reading member %d: %w", members+1, err)
		}
		if members++; members > maxBundleMembers {
			return nil, fmt.Errorf("bundle: more than %d members", maxBundleMembers)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		base, depth := path.Base(hdr.Name), strings.Count(strings.Trim(path.Clean(hdr.Name), "/"), "/")
		if depth > 1 {
			continue
		}
		switch base {
		case "snapshot.json":
			if snap != nil {
				return nil, fmt.Errorf("bundle: more than one snapshot.json (%q and %q)", snapName, hdr.Name)
			}
			if hdr.Size > maxBytes {
				return nil, fmt.Errorf("bundle: %s is larger than the %d-byte snapshot limit (%d bytes)", hdr.Name, maxBytes, hdr.Size)
			}
			h := sha256.New()
			s, err := Load(io.TeeReader(tr, h), maxBytes)
			if err != nil {
				return nil, fmt.Errorf("bundle: %s: %w", hdr.Name, err)
			}
			if _, err := io.Copy(h, tr); err != nil {
				return nil, fmt.Errorf("bundle: %s: %w", hdr.Name, err)
			}
			snap, snapName, snapSum = s, hdr.Name, sumHex(h)
		case "manifest.json":
			if manifest != nil {
				return nil, fmt.Errorf("bundle: more than one manifest.json")
			}
			if hdr.Size > maxManifestBytes {
				return nil, fmt.Errorf("bundle: %s is larger than %d bytes", hdr.Name, maxManifestBytes)
			}
			if manifest, err = io.ReadAll(io.LimitReader(tr, maxManifestBytes)); err != nil {
				return nil, fmt.Errorf("bundle: %s: %w", hdr.Name, err)
			}
		}
	}
	if total.over {
		return nil, fmt.Errorf("bundle: more than %d bytes uncompressed", maxBundleBytes(maxBytes))
	}
	if snap == nil {
		return nil, errors.New("bundle: no snapshot.json in the archive (was it made with --include without snapshot?)")
	}
	if manifest != nil {
		var m struct {
			Files []struct {
				Path   string `json:"path"`
				SHA256 string `json:"sha256"`
			} `json:"files"`
		}
		if err := json.Unmarshal(manifest, &m); err != nil {
			return nil, fmt.Errorf("bundle: manifest.json: %w", err)
		}
		for _, f := range m.Files {
			if f.Path == "snapshot.json" && f.SHA256 != snapSum {
				return nil, fmt.Errorf("bundle: snapshot.json does not match the manifest's sha256 (%s, the manifest says %s)", snapSum, f.SHA256)
			}
		}
	}
	return snap, nil
}

func sumHex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
