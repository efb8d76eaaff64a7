package lint

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// TestPromtoolAgrees cross-checks the fixtures with a real promtool when one
// is installed (Debian package prometheus): exit 1 is a parse failure, 0 and
// 3 (lint problems only) mean it parses. Skipped cleanly when absent.
func TestPromtoolAgrees(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed")
	}
	files, _ := filepath.Glob("../../fixtures/metrics/*.prom")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		res, _ := Lint(bytes.NewReader(data), exposition.Options{})
		if res.Parseable != (code != 1) {
			t.Errorf("%s: linter parseable=%v, promtool exit %d: %s", filepath.Base(f), res.Parseable, code, stderr.String())
		}
	}
}
