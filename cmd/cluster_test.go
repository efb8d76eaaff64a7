package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// TestPromTextfilesOfTwoClustersDoNotCollide (issue 20 item 4, Why: `check
// -o prom -f FILE` had no cluster label, so two clusters' textfiles on one
// node_exporter wrote the same series; and the file was 0600, unreadable to
// a node_exporter running as another user): every -o prom series carries
// cluster="NAME" (--cluster, default the --host given or demo-SCENARIO),
// the union of two clusters' textfiles has no duplicate series, and -f
// writes a textfile 0644 unless --file-mode says otherwise.
func TestPromTextfilesOfTwoClustersDoNotCollide(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.prom"), filepath.Join(dir, "b.prom")
	if _, stderr, code := run(t, nil, "", "check", "--demo", "incident", "--cluster", "prod-a", "-o", "prom", "--fail-on", "none", "-f", a); code != 0 {
		t.Fatalf("check a: exit %d: %s", code, stderr)
	}
	// The default label: demo-SCENARIO (the --host given, live).
	if _, stderr, code := run(t, nil, "", "check", "--demo", "incident", "-o", "prom", "--fail-on", "none", "-f", b, "--file-mode", "0640"); code != 0 {
		t.Fatalf("check b: exit %d: %s", code, stderr)
	}
	seen := map[string]string{}
	for file, cluster := range map[string]string{a: "prod-a", b: "demo-incident"} {
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o644)
		if file == b {
			want = 0o640
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(file), fi.Mode().Perm(), want)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		n := 0
		for name, fam := range fams {
			for _, m := range fam.Metric {
				n++
				ls := model.LabelSet{}
				for _, l := range m.Label {
					ls[model.LabelName(l.GetName())] = model.LabelValue(l.GetValue())
				}
				if string(ls["cluster"]) != cluster {
					t.Errorf("%s: %s%v has cluster %q, want %q", filepath.Base(file), name, ls, ls["cluster"], cluster)
				}
				key := name + ls.String()
				if other, dup := seen[key]; dup {
					t.Errorf("%s%v is in both %s and %s", name, ls, other, filepath.Base(file))
				}
				seen[key] = filepath.Base(file)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no series", file)
		}
	}
	if _, stderr, code := run(t, nil, "", "check", "--demo", "incident", "-o", "prom", "--file-mode", "999"); code != cmdutil.ExitError || !strings.Contains(stderr, "--file-mode") {
		t.Errorf("--file-mode 999: exit %d, %q; want a usage error", code, stderr)
	}
}
