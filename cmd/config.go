package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
)

// fileConfig is dorisdiag.yaml (docs/check.md "Config file"): thresholds,
// per-code severity overrides and ignores. Flags given on the command line
// win over the file. go.yaml.in/yaml/v3 is already in the module graph
// through cobra and prometheus/common, so reading YAML adds no module.
type fileConfig struct {
	FailOn     string            `yaml:"fail_on"`
	Thresholds fileThresholds    `yaml:"thresholds"`
	Severity   map[string]string `yaml:"severity"`
	Ignore     []diag.Ignore     `yaml:"ignore"`
}

type fileThresholds struct {
	MaxDelay    *duration `yaml:"max_delay"`
	MinHeadroom *duration `yaml:"min_headroom"`
	MaxPending  *duration `yaml:"max_pending"`
	MaxFailures *int      `yaml:"max_failures"`
	MaxRunning  *duration `yaml:"max_running"`
	MaxQueued   *duration `yaml:"max_queued"`
}

// duration reads "5m", "1h30m" (Go syntax) or a number of seconds.
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("line %d: want a duration such as 5m", n.Line)
	}
	if v, err := time.ParseDuration(strings.TrimSpace(s)); err == nil {
		*d = duration(v)
		return nil
	}
	var secs float64
	if _, err := fmt.Sscanf(s, "%g", &secs); err == nil && fmt.Sprint(secs) == strings.TrimSpace(s) {
		*d = duration(time.Duration(secs * float64(time.Second)))
		return nil
	}
	return fmt.Errorf("line %d: invalid duration %q (want e.g. 5m, 1h30m or seconds)", n.Line, s)
}

// maxConfigBytes bounds the config file read (design.md "Bounded reads").
const maxConfigBytes = 1 << 20

// loadConfig reads and validates a config file. Unknown keys are errors, so
// a misspelt threshold fails loudly instead of silently doing nothing.
func loadConfig(path string) (*fileConfig, diag.Policy, error) {
	var pol diag.Policy
	f, _, err := fileio.OpenInput(path) // a regular file only: a FIFO would block (docs/security.md "Files")
	if err != nil {
		return nil, pol, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, pol, fmt.Errorf("config %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, pol, fmt.Errorf("config %s: larger than %d bytes", path, maxConfigBytes)
	}
	cfg, pol, err := parseConfig(data)
	if err != nil {
		return nil, pol, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, pol, nil
}

func parseConfig(data []byte) (*fileConfig, diag.Policy, error) {
	var pol diag.Policy
	cfg := &fileConfig{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, pol, err
	}
	if cfg.FailOn != "" {
		s, err := diag.ParseSeverity(cfg.FailOn)
		if err != nil || s == diag.SeverityInfo {
			return nil, pol, fmt.Errorf("fail_on %q: want none, warning or critical", cfg.FailOn)
		}
	}
	if len(cfg.Severity) > 0 {
		pol.Severity = map[string]diag.Severity{}
		for code, sv := range cfg.Severity {
			s, err := diag.ParseSeverity(sv)
			if err != nil || s == diag.SeverityNone {
				return nil, pol, fmt.Errorf("severity of %s: %q: want info, warning or critical", code, sv)
			}
			pol.Severity[strings.ToUpper(code)] = s
		}
	}
	pol.Ignores = cfg.Ignore
	if err := pol.Validate(); err != nil {
		return nil, pol, err
	}
	return cfg, pol, nil
}
