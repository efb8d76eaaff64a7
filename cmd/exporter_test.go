package cmd

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// syncBuffer is a stderr the test reads while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningRE = regexp.MustCompile(`msg=listening address=(127\.0\.0\.1:\d+)`)

// runExporter starts `dorisdiag exporter` in-process on 127.0.0.1:0, waits
// for its first round, returns the /metrics body, then stops it with SIGTERM
// and returns the exit code and stderr.
func runExporter(t *testing.T, args ...string) (metrics string, code int, stderr string) {
	t.Helper()
	errb := &syncBuffer{}
	var out bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: errb, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	args = append([]string{"exporter", "--web.listen-address", "127.0.0.1:0", "--interval", "1h"}, args...)
	go func() { done <- Main(args, ios) }()
	var addr string
	for i := 0; i < 1000 && addr == ""; i++ {
		if m := listeningRE.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case c := <-done:
			t.Fatalf("exporter exited %d before listening: %s", c, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if addr == "" {
		t.Fatalf("exporter never listened: %s", errb.String())
	}
	// The first round runs at once; poll until it is served.
	for i := 0; i < 1000; i++ {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// Every series carries cluster="..." (--cluster; the host given, or
		// demo-SCENARIO): compare the rest.
		if !strings.Contains(string(b), `cluster="`) {
			t.Fatalf("a series without the cluster label:\n%.500s", b)
		}
		b = []byte(clusterLabel.ReplaceAllString(clusterFirst.ReplaceAllString(string(b), "{"), ""))
		if strings.Contains(string(b), "dorisdiag_exporter_rounds_total 1") || strings.Contains(string(b), "dorisdiag_exporter_round_failures_total 1") {
			metrics = string(b)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code = <-done
	return metrics, code, errb.String()
}

// clusterLabel and clusterFirst strip the cluster label a test does not
// compare: `{cluster="x"}` and `cluster="x",` at the front of a label set.
var (
	clusterLabel = regexp.MustCompile(`\{cluster="[^"]*"\}`)
	clusterFirst = regexp.MustCompile(`\{cluster="[^"]*",`)
)

// TestExporterDemoIncident: `dorisdiag exporter --demo incident` serves the
// design's series, and stops on SIGTERM with exit 0.
func TestExporterDemoIncident(t *testing.T) {
	body, code, stderr := runExporter(t, "--demo", "incident")
	if code != 0 || !strings.Contains(stderr, "msg=stopped") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{`doris_fe_changelog_streams{kind="user",state="cannot_resume"} 3`, "doris_fe_ivm_mvs{state=",
		"doris_fe_ivm_mv_data_delay_seconds{", "dorisdiag_exporter_design_series 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestExporterLive: --host serves the design's series live from the
// emulator (a build without the monitor: the legacy scenario).
func TestExporterLive(t *testing.T) {
	flags, _ := startEmulator(t, "legacy")
	body, code, stderr := runExporter(t, flags...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{`doris_fe_changelog_streams{kind="ivm",state=`, "doris_fe_ivm_mvs{state=", "dorisdiag_exporter_design_series 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%.2000s", want, body)
		}
	}
	if !regexp.MustCompile(`dorisdiag_exporter_statements [1-9]`).MatchString(body) {
		t.Error("the statement count of a live round is not exported")
	}
}

// TestExporterLiveWithServerMonitor: on a build whose own monitor exports the
// design's series, auto serves only the cross-check and the self-series,
// and says so at start.
func TestExporterLiveWithServerMonitor(t *testing.T) {
	flags, _ := startEmulator(t, "incident")
	body, code, stderr := runExporter(t, flags...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Contains(body, "\ndoris_fe_") || !strings.Contains(body, "dorisdiag_exporter_design_series 0") {
		t.Errorf("with the server's monitor present, doris_fe_* series were served:\n%.1500s", body)
	}
	if !strings.Contains(stderr, "the build's own monitor exports them") {
		t.Errorf("the start does not say why the design's series are not served:\n%s", stderr)
	}
}

func TestExporterUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"exporter"},
		{"exporter", "--snapshot", "x.json"},
		{"exporter", "--demo", "incident", "--interval", "0s"},
		{"exporter", "--demo", "incident", "--design-series", "maybe"},
		{"exporter", "--demo", "incident", "--web.telemetry-path", "metrics"},
		{"exporter", "--demo", "incident", "--mv-quota", "-1"},
	} {
		_, stderr, code := run(t, nil, "", args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage); stderr %s", args, code, stderr)
		}
	}
}
