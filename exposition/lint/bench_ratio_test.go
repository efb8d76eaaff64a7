package lint

import (
	"bytes"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Ratios of issue 24 ("Fast and lean"), measured in one interleaved run so
// that the load of a shared machine weighs on every side alike: the linter
// against the floor (read the payload through the same 1 MiB buffer and count
// its line feeds), expfmt's parse and, when installed, `promtool check
// metrics`. docs/performance.md "metrics lint: ratios" has the command and the
// figures. No test asserts a time.

// readCountFloor is the least any line-oriented reader of r must do: read it
// through a 1 MiB buffer and find every line feed.
func readCountFloor(r io.Reader, buf []byte) int {
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
}

func BenchmarkFloor50MB(b *testing.B) {
	_, data := payloads(b)
	b.SetBytes(int64(len(data)))
	buf := make([]byte, 1<<20)
	for b.Loop() {
		if readCountFloor(bytes.NewReader(data), buf) == 0 {
			b.Fatal("no lines")
		}
	}
}

// promtoolCheck runs `promtool check metrics < path` and returns its wall
// time; exit 3 (lint problems only) counts as a parse.
func promtoolCheck(tb testing.TB, promtool, path string) time.Duration {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = f
	t0 := time.Now()
	err = cmd.Run()
	d := time.Since(t0)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		err = nil
	}
	if err != nil {
		tb.Fatalf("promtool check metrics: %v", err)
	}
	return d
}

// BenchmarkLintRatios50MB interleaves, in each iteration, the floor, the
// linter on the payload with its 5 planted errors (all must be found),
// expfmt on the clean payload, the linter on the 50-error variant and
// promtool on the clean payload (when installed;
// DORISDIAG_BENCH_NO_PROMTOOL=1 leaves it out), and reports each one's mean
// time and the ratios the budgets are stated in.
func BenchmarkLintRatios50MB(b *testing.B) {
	clean, dirty := payloads(b)
	fifty := payload50Errors(b)
	promtool, _ := exec.LookPath("promtool")
	if os.Getenv("DORISDIAG_BENCH_NO_PROMTOOL") != "" {
		promtool = ""
	}
	var cleanPath string
	if promtool != "" {
		cleanPath = filepath.Join(b.TempDir(), "clean.prom")
		if err := os.WriteFile(cleanPath, clean, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	buf := make([]byte, 1<<20)
	var floorD, lintD, lint50D, expfmtD, promD time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		readCountFloor(bytes.NewReader(dirty), buf)
		t1 := time.Now()
		res, err := Lint(bytes.NewReader(dirty), callerOptions)
		t2 := time.Now()
		if err != nil || res.Errors != plantedErrors {
			b.Fatalf("lint: %v, %d errors, want %d", err, res.Errors, plantedErrors)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		if _, err := p.TextToMetricFamilies(bytes.NewReader(clean)); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		res, err = Lint(bytes.NewReader(fifty), callerOptions)
		if err != nil || res.Errors != errors50 {
			b.Fatalf("lint: %v, %d errors, want %d", err, res.Errors, errors50)
		}
		lint50D += time.Since(t3)
		floorD += t1.Sub(t0)
		lintD += t2.Sub(t1)
		expfmtD += t3.Sub(t2)
		if promtool != "" {
			promD += promtoolCheck(b, promtool, cleanPath)
		}
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(ms(floorD), "floor-ms")
	b.ReportMetric(ms(lintD), "lint-ms")
	b.ReportMetric(ms(expfmtD), "expfmt-ms")
	b.ReportMetric(ms(lint50D), "lint50err-ms")
	b.ReportMetric(float64(lintD)/float64(floorD), "lint/floor")
	b.ReportMetric(float64(expfmtD)/float64(lintD), "expfmt/lint")
	if promtool != "" {
		b.ReportMetric(ms(promD), "promtool-ms")
		b.ReportMetric(float64(promD)/float64(lintD), "promtool/lint")
	}
}

// The payload of issue 24's second budget: 10^6 distinct families, one
// # TYPE and one sample each (about 53 MB), generated here, never committed.

var genFamilies = flag.String("genfamilies", "", "write the 10^6-family payload to this file and exit the test")

const manyFamilies = 1_000_000

var (
	familiesOnce sync.Once
	familiesData []byte
)

func familiesPayload(tb testing.TB) []byte {
	if testing.Short() {
		tb.Skip("the 10^6-family payload is not generated under -short")
	}
	familiesOnce.Do(func() { familiesData = genFamilyPayload(manyFamilies) })
	return familiesData
}

// genFamilyPayload writes n families `doris_be_t_0000000`, each a gauge
// with one sample.
func genFamilyPayload(n int) []byte {
	b := make([]byte, 0, n*54)
	var num [16]byte
	for i := 0; i < n; i++ {
		d := strconv.AppendInt(num[:0], int64(10_000_000+i), 10)[1:]
		b = append(b, "# TYPE doris_be_t_"...)
		b = append(b, d...)
		b = append(b, " gauge\ndoris_be_t_"...)
		b = append(b, d...)
		b = append(b, " 1\n"...)
	}
	return b
}

func TestGenerateFamilies(t *testing.T) {
	if *genFamilies == "" {
		t.Skip("set -genfamilies PATH to write the 10^6-family payload")
	}
	if err := os.WriteFile(*genFamilies, familiesPayload(t), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkLintFamiliesRatios interleaves the linter (with the caller's
// hooks, as `metrics lint` runs it) and expfmt on the 10^6-family payload.
func BenchmarkLintFamiliesRatios(b *testing.B) {
	data := familiesPayload(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var lintD, expfmtD time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := Lint(bytes.NewReader(data), callerOptions)
		t1 := time.Now()
		if err != nil || res.Errors != 0 || res.Series != manyFamilies {
			b.Fatalf("lint: %v, %d errors, %d series", err, res.Errors, res.Series)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		if _, err := p.TextToMetricFamilies(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		lintD += t1.Sub(t0)
		expfmtD += t2.Sub(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(lintD.Microseconds())/1000/n, "lint-ms")
	b.ReportMetric(float64(expfmtD.Microseconds())/1000/n, "expfmt-ms")
	b.ReportMetric(float64(expfmtD)/float64(lintD), "expfmt/lint")
}

// BenchmarkLintFamilies is the linter alone on the 10^6-family payload:
// its B/op is an upper bound of the heap the lint needs.
func BenchmarkLintFamilies(b *testing.B) {
	data := familiesPayload(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Lint(bytes.NewReader(data), callerOptions)
		if err != nil || res.Errors != 0 {
			b.Fatalf("lint: %v, %d errors", err, res.Errors)
		}
	}
}
