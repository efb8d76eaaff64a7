package cmd

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// The shim `dorisdiag exporter` on the built binaries (issue 24 item 3: the
// exporter is its own program, dorisdiag-exporter, and dorisdiag links
// nothing of it): it replaces itself with dorisdiag-exporter found beside
// it, with the same arguments (global flags before the command word too),
// and says where it looked when it is not installed.

// runBin runs bin with args and env (nil: this process's) and returns its
// output and exit code.
func runBin(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Env = env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func TestExporterShimHelpIsTheExporters(t *testing.T) {
	bin := testbin.DorisdiagWithExporter(t)
	for _, args := range [][]string{{"exporter", "--help"}, {"help", "exporter"}, {"--demo", "incident", "exporter", "-h"}} {
		out, stderr, code := runBin(t, bin, nil, args...)
		if code != 0 || !strings.Contains(out, "--web.listen-address") || !strings.Contains(out, "--design-series") {
			t.Errorf("dorisdiag %s: exit %d, stderr %q; the exporter's flags are not in its help:\n%s", strings.Join(args, " "), code, stderr, out)
		}
	}
}

// TestExporterShimExecs: a short run through the shim is the exporter
// itself in the same process (the pid the caller started serves /metrics:
// systemd's MainPID and its signals reach the exporter), and its flags
// reach it.
func TestExporterShimExecs(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc")
	}
	bin := testbin.DorisdiagWithExporter(t)
	p := startExporterProc(t, bin, "--demo", "incident", "--interval", "1s")
	exe, err := os.Readlink("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(exe) != cmdutil.ExporterBinary {
		t.Errorf("the process started as `dorisdiag exporter` runs %s, want %s in its place", exe, cmdutil.ExporterBinary)
	}
	p.waitRounds(t, 1, 200*time.Millisecond)
	resp, err := http.Get("http://" + p.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `cluster="demo-incident"`) {
		t.Errorf("--demo incident did not reach the exporter: /metrics has no cluster=\"demo-incident\"")
	}
	// Stopped as systemd stops it: SIGTERM to the pid it started.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("SIGTERM: the exporter did not stop gracefully (exit 0): %v", err)
	}
}

// TestExporterShimNotFound: dorisdiag alone in a directory and nothing on
// PATH: exit 2, naming both places and the install line; nothing on stdout.
func TestExporterShimNotFound(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(testbin.Dorisdiag(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "dorisdiag")
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + t.TempDir(), "HOME=" + dir}
	for _, args := range [][]string{{"exporter", "--demo"}, {"--host", "fe1", "exporter"}} {
		out, stderr, code := runBin(t, bin, env, args...)
		if code != cmdutil.ExitError || out != "" {
			t.Errorf("dorisdiag %s without dorisdiag-exporter: exit %d, stdout %q; want exit %d and nothing", strings.Join(args, " "), code, out, cmdutil.ExitError)
		}
		for _, want := range []string{"dorisdiag-exporter not found", dir, "PATH", cmdutil.ExporterInstall} {
			if !strings.Contains(stderr, want) {
				t.Errorf("dorisdiag %s without dorisdiag-exporter: stderr %q does not name %q", strings.Join(args, " "), stderr, want)
			}
		}
	}
}

// TestExporterShimCompletes: TAB after `dorisdiag exporter` completes the
// exporter's flags and their values, asked of dorisdiag-exporter.
func TestExporterShimCompletes(t *testing.T) {
	bin := testbin.DorisdiagWithExporter(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "exporter", "--web.l"}, "--web.listen-address"},
		{[]string{"__complete", "exporter", "--interval", "1s", "--demo", ""}, "incident"},
	} {
		out, stderr, code := runBin(t, bin, nil, tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("dorisdiag %s: exit %d, stderr %q; want %q among:\n%s", strings.Join(tc.args, " "), code, stderr, tc.want, out)
		}
	}
}
