package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
)

func TestParseConfig(t *testing.T) {
	cfg, pol, err := parseConfig([]byte(`
fail_on: warning
thresholds:
  max_delay: 10m
  min_headroom: 3600
  max_failures: 5
severity:
  SOURCE_MALFORMED_VALUE: info
ignore:
  - code: SOURCE_UNREACHABLE
    object: "SHOW BACKENDS"
    reason: no privilege on purpose
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FailOn != "warning" || time.Duration(*cfg.Thresholds.MaxDelay) != 10*time.Minute ||
		time.Duration(*cfg.Thresholds.MinHeadroom) != time.Hour || *cfg.Thresholds.MaxFailures != 5 {
		t.Errorf("cfg = %+v", cfg)
	}
	if pol.Severity["SOURCE_MALFORMED_VALUE"] != diag.SeverityInfo || len(pol.Ignores) != 1 {
		t.Errorf("policy = %+v", pol)
	}
	for _, bad := range []string{
		"thresholds:\n  max_dleay: 5m\n",   // typo: unknown key
		"thresholds:\n  max_delay: soon\n", // bad duration
		"fail_on: sometimes\n",
		"severity:\n  NO_SUCH_CODE: info\n",
		"ignore:\n  - reason: everything\n",
		"[not a map",
	} {
		if _, _, err := parseConfig([]byte(bad)); err == nil {
			t.Errorf("config %q: want an error", bad)
		} else if strings.Contains(err.Error(), "panic") {
			t.Errorf("config %q: %v", bad, err)
		}
	}
	if _, _, err := parseConfig(nil); err != nil {
		t.Errorf("empty config: %v", err)
	}
}
