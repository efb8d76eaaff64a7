package cmd

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// TestEmulatorRecipeLeavesNothingRunning runs docs/emulator.md's "Running
// it" block as written — build, start, wait for the ready file, query,
// kill — on free ports instead of 9030/8030 and in a temporary directory
// instead of /tmp, and checks that nothing is left running: the process is
// gone, the ready file removed, both ports free (issue 13: the old "go run
// ... &" then "kill $!" left a child holding port 9030).
func TestEmulatorRecipeLeavesNothingRunning(t *testing.T) {
	t.Parallel() // self-contained: its own buffers, processes, shells and temp dirs; no global or env
	if testing.Short() {
		t.Skip("builds and starts the emulator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	data, err := os.ReadFile(filepath.Join("..", "docs", "emulator.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, "## Running it\n")
	j := strings.Index(doc[i:], "```sh\n")
	if i < 0 || j < 0 {
		t.Fatal(`docs/emulator.md: no sh block under "## Running it"`)
	}
	block := doc[i+j+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	if strings.Contains(block, "go run") || !strings.Contains(block, "--ready-file") || !strings.Contains(block, "kill ") {
		t.Fatalf("the recipe must build, use --ready-file and kill:\n%s", block)
	}

	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testbin.Build(t, testbin.DorisdiagTest), filepath.Join(bin, "dorisdiag")); err != nil {
		t.Fatal(err)
	}
	ports := []string{freePort(t), freePort(t)}
	script := strings.NewReplacer("/tmp/", dir+"/", "9030", ports[0], "8030", ports[1]).Replace(block)
	script += "\nkill -0 $EMULATOR 2>/dev/null && echo STILL-RUNNING\necho RECIPE-DONE\n"
	if !strings.Contains(script, "--addr 127.0.0.1:"+ports[0]) || !strings.Contains(script, "--http-addr 127.0.0.1:"+ports[1]) {
		t.Fatalf("the recipe must give the emulator --addr 127.0.0.1:9030 --http-addr 127.0.0.1:8030 (so this test can move them):\n%s", block)
	}
	sh := exec.Command("sh", "-ec", script)
	sh.Dir = ".."
	sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Its own process group: whatever the recipe leaves behind when a step
	// fails is killed at the end, and output is not awaited forever from a
	// leftover process that holds the pipe.
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sh.WaitDelay = 5 * time.Second
	var outBuf strings.Builder
	sh.Stdout, sh.Stderr = &outBuf, &outBuf
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) })
	err = sh.Wait()
	out := outBuf.String()
	if err != nil || !strings.Contains(string(out), "RECIPE-DONE") {
		t.Fatalf("recipe: %v\n%s\n---\n%s", err, script, out)
	}
	if strings.Contains(string(out), "STILL-RUNNING") {
		t.Errorf("the emulator is still running after the recipe's kill:\n%s", out)
	}
	for _, want := range []string{"MYSQL_PORT=" + ports[0], "HTTP_PORT=" + ports[1], "table_streams"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("recipe output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "doris-emulator.ready")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ready file left behind: %v", err)
	}
	for _, p := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:"+p)
		if err != nil {
			t.Errorf("port %s still held after the recipe: %v", p, err)
			continue
		}
		l.Close()
	}
}

// freePort is a 127.0.0.1 port nobody listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}
