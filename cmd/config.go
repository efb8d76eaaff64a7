package cmd

import (
	"errors"
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// fileConfig is dorisdiag.yaml (docs/check.md "Config file"): thresholds,
// per-code severity overrides and ignores. Flags given on the command line
// win over the file. go.yaml.in/yaml/v3 is already in the module graph
// through cobra and prometheus/common, so reading YAML adds no module.
// It is read through yaml.v3's node tree (parseConfig), not decoded into
// these types, so an error names the key and line and never a Go type; the
// yaml tags document the keys.
type fileConfig struct {
	FailOn     string            `yaml:"fail_on"`
	Thresholds fileThresholds    `yaml:"thresholds"`
	Severity   map[string]string `yaml:"severity"`
	Ignore     []diag.Ignore     `yaml:"ignore"`
	// AssumeTTLEnforced: the build expires changes past the TTL
	// (ttl_enforcement.go); nil when the key is absent.
	AssumeTTLEnforced *bool `yaml:"assume_ttl_enforced"`
	// Consumers are the external consumers (docs/consumers.md): each
	// entry's declaration, read by a live collection.
	Consumers []snapshot.ExternalConsumer `yaml:"consumers"`
}

type fileThresholds struct {
	MaxDelay    *duration `yaml:"max_delay"`
	MinHeadroom *duration `yaml:"min_headroom"`
	MaxPending  *duration `yaml:"max_pending"`
	MaxFailures *int      `yaml:"max_failures"`
	MaxRunning  *duration `yaml:"max_running"`
	MaxQueued   *duration `yaml:"max_queued"`
	// MaxPublishAge: CONSUMER_PUBLISHER_STALE above it (docs/consumers.md).
	MaxPublishAge *duration `yaml:"max_publish_age"`
}

// duration is a threshold: "5m", "1h30m" (Go syntax) or a number of seconds.
type duration time.Duration

func parseDurationValue(v string) (duration, bool) {
	v = strings.TrimSpace(v)
	if d, err := time.ParseDuration(v); err == nil {
		return duration(d), true
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(secs) && !math.IsInf(secs, 0) {
		return duration(time.Duration(secs * float64(time.Second))), true
	}
	return 0, false
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

// configKeys are the keys of each mapping of the file, in the order the
// errors list them.
var (
	configTopKeys       = []string{"fail_on", "thresholds", "severity", "ignore", cmdutil.TTLConfigKey, "consumers"}
	configThresholdKeys = []string{"max_delay", "min_headroom", "max_pending", "max_failures", "max_running", "max_queued", "max_publish_age"}
	configConsumerKeys  = []string{"name", "offset_table", "consumer_id", "source_table", "increment_type", "time_zone", "max_publish_age"}
	configIgnoreKeys    = []string{"code", "object", "reason"}
)

// configError names the line and the key path of what is wrong, in the
// file's terms (docs/check.md "Config file"), never a Go type.
func configError(n *yaml.Node, key, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if key != "" {
		msg = key + ": " + msg
	}
	return fmt.Errorf("line %d: %s", n.Line, msg)
}

// describe says what a node is, as the user wrote it.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

// mappingPairs returns the key and value nodes of a mapping, rejecting
// unknown and repeated keys with the nearest known one.
func mappingPairs(n *yaml.Node, path string, known []string) ([][2]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, configError(n, path, "want a mapping (key: value lines), got %s", describe(n))
	}
	seen := map[string]bool{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, configError(k, path, "a key must be a plain name")
		}
		full := k.Value
		if path != "" {
			full = path + "." + k.Value
		}
		if known != nil && !cmdutil.Contains(known, k.Value) {
			hint := ""
			if near := cmdutil.NearestNames(k.Value, known, 1); len(near) > 0 && cmdutil.Levenshtein(k.Value, near[0]) <= 3 {
				hint = fmt.Sprintf("; did you mean %q?", near[0])
			}
			return nil, configError(k, "", "unknown key %q%s (keys here: %s)", full, hint, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return nil, configError(k, "", "key %q given twice", full)
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

func scalar(n *yaml.Node, key, want string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", configError(n, key, "want %s, got %s", want, describe(n))
	}
	return n.Value, nil
}

// parseConfig reads dorisdiag.yaml through yaml.v3's node tree, so every
// error names the line and the key (docs/check.md "Config file").
func parseConfig(data []byte) (*fileConfig, diag.Policy, error) {
	var pol diag.Policy
	cfg := &fileConfig{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, pol, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return cfg, pol, nil // empty file
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return cfg, pol, nil
	}
	top, err := mappingPairs(root, "", configTopKeys)
	if err != nil {
		return nil, pol, err
	}
	for _, kv := range top {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "fail_on":
			s, err := scalar(v, "fail_on", "none, warning or critical")
			if err != nil {
				return nil, pol, err
			}
			if sv, err := diag.ParseSeverity(s); err != nil || sv == diag.SeverityInfo {
				return nil, pol, configError(v, "fail_on", "%q: want none, warning or critical", s)
			}
			cfg.FailOn = s
		case cmdutil.TTLConfigKey:
			s, err := scalar(v, cmdutil.TTLConfigKey, "true or false")
			if err != nil {
				return nil, pol, err
			}
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, pol, configError(v, cmdutil.TTLConfigKey, "%q: want true or false", s)
			}
			cfg.AssumeTTLEnforced = &b
		case "consumers":
			cs, err := parseConsumers(v)
			if err != nil {
				return nil, pol, err
			}
			cfg.Consumers = cs
		case "thresholds":
			if err := parseThresholds(v, &cfg.Thresholds); err != nil {
				return nil, pol, err
			}
		case "severity":
			pairs, err := mappingPairs(v, "severity", nil)
			if err != nil {
				return nil, pol, err
			}
			pol.Severity = map[string]diag.Severity{}
			for _, p := range pairs {
				code := strings.ToUpper(p[0].Value)
				key := "severity." + p[0].Value
				if _, ok := diag.LookupCode(code); !ok {
					return nil, pol, configError(p[0], key, "unknown finding code (see dorisdiag explain)")
				}
				s, err := scalar(p[1], key, "info, warning or critical")
				if err != nil {
					return nil, pol, err
				}
				sv, err := diag.ParseSeverity(s)
				if err != nil || sv == diag.SeverityNone {
					return nil, pol, configError(p[1], key, "%q: want info, warning or critical", s)
				}
				cfg.Severity = setKey(cfg.Severity, code, s)
				pol.Severity[code] = sv
			}
		case "ignore":
			if v.Kind != yaml.SequenceNode {
				return nil, pol, configError(v, "ignore", "want a list of {code, object, reason}, got %s", describe(v))
			}
			for i, item := range v.Content {
				key := fmt.Sprintf("ignore[%d]", i+1)
				pairs, err := mappingPairs(item, key, configIgnoreKeys)
				if err != nil {
					return nil, pol, err
				}
				var ig diag.Ignore
				for _, p := range pairs {
					s, err := scalar(p[1], key+"."+p[0].Value, "text")
					if err != nil {
						return nil, pol, err
					}
					switch p[0].Value {
					case "code":
						ig.Code = strings.ToUpper(s)
					case "object":
						ig.Object = s
					case "reason":
						ig.Reason = s
					}
				}
				if err := (diag.Policy{Ignores: []diag.Ignore{ig}}).Validate(); err != nil {
					return nil, pol, configError(item, key, "%s", strings.TrimLeft(strings.TrimPrefix(err.Error(), "ignore #1"), ": "))
				}
				cfg.Ignore = append(cfg.Ignore, ig)
			}
		}
	}
	pol.Ignores = cfg.Ignore
	if err := pol.Validate(); err != nil {
		return nil, pol, err
	}
	return cfg, pol, nil
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func parseThresholds(n *yaml.Node, t *fileThresholds) error {
	pairs, err := mappingPairs(n, "thresholds", configThresholdKeys)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		key := "thresholds." + p[0].Value
		if p[0].Value == "max_failures" {
			s, err := scalar(p[1], key, "a whole number")
			if err != nil {
				return err
			}
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v < 1 {
				return configError(p[1], key, "want a whole number of at least 1, got %q", s)
			}
			t.MaxFailures = &v
			continue
		}
		s, err := scalar(p[1], key, "a duration such as 5m, 1h30m or seconds")
		if err != nil {
			return err
		}
		d, ok := parseDurationValue(s)
		if !ok || d <= 0 {
			return configError(p[1], key, "want a positive duration such as 5m, 1h30m or seconds, got %q", s)
		}
		dst := map[string]**duration{"max_delay": &t.MaxDelay, "min_headroom": &t.MinHeadroom, "max_pending": &t.MaxPending,
			"max_running": &t.MaxRunning, "max_queued": &t.MaxQueued, "max_publish_age": &t.MaxPublishAge}[p[0].Value]
		*dst = &d
	}
	return nil
}

// parseConsumers reads consumers: a list of {name, offset_table,
// consumer_id, source_table, increment_type, time_zone?, max_publish_age?}
// (docs/consumers.md "Config"), each error naming the key and the line.
func parseConsumers(n *yaml.Node) ([]snapshot.ExternalConsumer, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, configError(n, "consumers", "want a list of {name, offset_table, consumer_id, source_table, increment_type}, got %s", describe(n))
	}
	var out []snapshot.ExternalConsumer
	names := map[string]bool{}
	for i, item := range n.Content {
		key := fmt.Sprintf("consumers[%d]", i+1)
		pairs, err := mappingPairs(item, key, configConsumerKeys)
		if err != nil {
			return nil, err
		}
		var c snapshot.ExternalConsumer
		seen := map[string]bool{}
		for _, p := range pairs {
			k := key + "." + p[0].Value
			s, err := scalar(p[1], k, "text")
			if err != nil {
				return nil, err
			}
			s = strings.TrimSpace(s)
			seen[p[0].Value] = true
			switch p[0].Value {
			case "name":
				if s == "" || strings.ContainsAny(s, "\x00\n\r\t\x1b") {
					return nil, configError(p[1], k, "want a non-empty name on one line, got %q", s)
				}
				if names[s] {
					return nil, configError(p[1], k, "consumer %q given twice", s)
				}
				names[s] = true
				c.Name = s
			case "offset_table", "source_table":
				if _, _, ok := (snapshot.ExternalConsumer{SourceTable: s}).SourceTableParts(); !ok {
					return nil, configError(p[1], k, "want db.table, got %q", s)
				}
				if p[0].Value == "offset_table" {
					c.OffsetTable = s
				} else {
					c.SourceTable = s
				}
			case "consumer_id":
				if s == "" {
					return nil, configError(p[1], k, "want the job's source.binlog.consumer-id, got nothing")
				}
				c.ConsumerID = s
			case "increment_type":
				v := strings.ToLower(strings.ReplaceAll(s, "-", "_"))
				if !cmdutil.Contains(snapshot.IncrementTypes, v) {
					return nil, configError(p[1], k, "%q: want %s", s, strings.Join(snapshot.IncrementTypes, ", "))
				}
				c.IncrementType = v
			case "time_zone":
				if _, ok := snapshot.ParseTimeZone(s); !ok {
					return nil, configError(p[1], k, "%q: want an IANA name (Asia/Shanghai), UTC or an offset (+08:00)", s)
				}
				c.TimeZone = s
			case "max_publish_age":
				d, ok := parseDurationValue(s)
				if !ok || d <= 0 {
					return nil, configError(p[1], k, "want a positive duration such as 5m, 1h30m or seconds, got %q", s)
				}
				c.MaxPublishAgeSeconds = time.Duration(d).Seconds()
			}
		}
		for _, req := range []string{"name", "offset_table", "consumer_id", "source_table", "increment_type"} {
			if !seen[req] {
				return nil, configError(item, key, "missing key %q (keys: %s)", req, strings.Join(configConsumerKeys, ", "))
			}
		}
		out = append(out, c)
	}
	return out, nil
}
