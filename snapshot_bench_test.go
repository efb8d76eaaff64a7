package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

// BenchmarkCheckSnapshotScale and BenchmarkCheckDemoScale run `check` on the
// scale scenario as whole processes, side by side in one run: from a
// snapshot file (decode + analysis) and generated in memory (--demo). The
// budget (issue 14): --snapshot within 1.5x of --demo, and a peak RSS of at
// most 3x the file size, reported as the maxRSS-MB and file-MB metrics (from
// the child's rusage; valid because the parent stays small). The binary and the
// file are made once, outside the
// timed loop; the file is never committed.

var (
	scaleOnce sync.Once
	scaleBin  string
	scaleFile string
	scaleErr  error
)

func scaleSetup(b *testing.B) (bin, file string) {
	scaleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dorisdiag-bench-")
		if err != nil {
			scaleErr = err
			return
		}
		scaleBin = testbin.Dorisdiag(b)
		// Written by a child: generating it here would leave this process
		// large, and a child's max RSS starts at its parent's (the rusage
		// high-water mark survives the fork and exec).
		scaleFile = filepath.Join(dir, "scale.json")
		scaleErr = exec.Command(scaleBin, "snapshot", "--demo", "scale", "-f", scaleFile).Run()
	})
	if scaleErr != nil {
		b.Fatal(scaleErr)
	}
	return scaleBin, scaleFile
}

func benchCheckProcess(b *testing.B, args ...string) {
	bin, file := scaleSetup(b)
	fi, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	var maxRSS int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, args...)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		if _, exit := err.(*exec.ExitError); err != nil && !exit || out.Len() == 0 {
			b.Fatalf("%v: %v (%d bytes out)", args, err, out.Len())
		}
		if cmd.ProcessState.ExitCode() > 2 {
			b.Fatalf("%v: exit %d", args, cmd.ProcessState.ExitCode())
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > maxRSS {
			maxRSS = ru.Maxrss * 1024
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(maxRSS)/(1<<20), "maxRSS-MB")
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
}

func BenchmarkCheckDemoScale(b *testing.B) {
	benchCheckProcess(b, "check", "--demo", "scale", "-o", "json")
}

func BenchmarkCheckSnapshotScale(b *testing.B) {
	_, file := scaleSetup(b)
	benchCheckProcess(b, "check", "--snapshot", file, "-o", "json")
}
