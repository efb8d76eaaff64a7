package cmd

import (
	"bufio"
	"bytes"
	"context"
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
	// Bounded: a shim that ran the exporter in-process (or found the wrong
	// program) would serve until stopped; that must fail, not hang.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Env = env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s still ran after 2 minutes", bin, strings.Join(args, " "))
	}
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
	c := exec.Command(bin, "exporter", "--web.listen-address", "127.0.0.1:0", "--demo", "incident", "--interval", "1s")
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	// Self-contained (not exporter_process_test.go's helpers): the address
	// from the exporter's "listening" line.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "msg=listening address="); ok {
				a, _, _ = strings.Cut(a, " ")
				addr <- a
			}
		}
		close(addr)
	}()
	a, ok := <-addr
	if !ok {
		t.Fatal("`dorisdiag exporter` never said where it listens")
	}
	go func() {
		for range addr { // drain the rest of stderr
		}
	}()
	exe, err := os.Readlink("/proc/" + strconv.Itoa(c.Process.Pid) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(exe) != cmdutil.ExporterBinary {
		t.Errorf("the process started as `dorisdiag exporter` runs %s, want %s in its place", exe, cmdutil.ExporterBinary)
	}
	var body []byte
	for i := 0; i < 600 && !bytes.Contains(body, []byte("\ndorisdiag_exporter_rounds_total{")); i++ {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		resp, err := http.Get("http://" + a + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if !bytes.Contains(body, []byte(`cluster="demo-incident"`)) {
		t.Errorf("--demo incident did not reach the exporter: /metrics has no cluster=\"demo-incident\":\n%.2000s", body)
	}
	// Stopped as systemd stops it: SIGTERM to the pid it started.
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
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
	for _, args := range [][]string{{"exporter", "--demo", "--web.listen-address", "127.0.0.1:0"}, {"--demo", "incident", "exporter", "--web.listen-address", "127.0.0.1:0"}} {
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
