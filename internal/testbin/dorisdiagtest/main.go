// Command dorisdiagtest is dorisdiag as the tests run it in a child process
// (the recipes of the docs through sh, completion typed into real shells,
// per-process memory): the real command (cmd.Main), with a process-wide dial
// guard that refuses any address outside the loopback range before a name
// is looked up or a byte sent, and — when DORISDIAG_TEST_PEAK_MEMORY_FILE
// names a file — its peak resident set (VmHWM) and total heap allocation
// written there at exit. Tests build it once (testbin.Build) instead of
// running their own test binary as dorisdiag: that binary links the
// emulator, whose start alone costs about 0.5 s of CPU a run. Only tests
// build it; the dorisdiag binary never links it.
package main

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/cmd"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"github.com/dorisdiag/dorisdiag/scrape"
)

// PeakMemoryEnv names the file the peak memory is written to ("VmHWM
// TotalAlloc", bytes; VmHWM -1 without /proc).
const PeakMemoryEnv = "DORISDIAG_TEST_PEAK_MEMORY_FILE"

func main() {
	scrape.SetDialGuard(func(_, addr string) error {
		host, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("dorisdiagtest: refusing to dial %s (loopback only)", addr)
		}
		return nil
	})
	code := cmd.Main(os.Args[1:], cmdutil.System())
	reportPeakMemory()
	os.Exit(code)
}

// reportPeakMemory writes VmHWM (this process's own address space: unlike
// the rusage max RSS, a child started by os/exec does not inherit it from
// its parent) and the total heap allocation.
func reportPeakMemory() {
	p := os.Getenv(PeakMemoryEnv)
	if p == "" {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	hwm := int64(-1)
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				hwm = kb << 10
			}
		}
	}
	_ = os.WriteFile(p, []byte(fmt.Sprintf("%d %d", hwm, ms.TotalAlloc)), 0o600)
}
