package diag

import (
	"fmt"
	"path"
	"strings"
)

// Policy is what a team decides about findings in its config file: per-code
// severity overrides, and ignores by code and object pattern — so a job
// paused on purpose does not fail CI every day (issue 7, check --config).
type Policy struct {
	Severity map[string]Severity // code → severity
	Ignores  []Ignore
}

// Ignore drops findings whose code matches Code ("" or "*" = any) and whose
// object matches Object, a shell pattern over "db.name" ("" = any), e.g.
// "demo.mv_inventory" or "staging.*".
type Ignore struct {
	Code   string `yaml:"code" json:"code"`
	Object string `yaml:"object" json:"object"`
	Reason string `yaml:"reason" json:"reason"`
}

// Validate checks the patterns and codes, so a typo fails loudly instead of
// silencing nothing (or everything).
func (p Policy) Validate() error {
	for code := range p.Severity {
		if _, ok := LookupCode(code); !ok {
			return fmt.Errorf("severity override for unknown finding code %q (see dorisdiag explain)", code)
		}
	}
	for i, ig := range p.Ignores {
		if ig.Code != "" && ig.Code != "*" {
			if _, ok := LookupCode(ig.Code); !ok {
				return fmt.Errorf("ignore #%d: unknown finding code %q (see dorisdiag explain)", i+1, ig.Code)
			}
		}
		if ig.Object != "" {
			if _, err := path.Match(ig.Object, ""); err != nil {
				return fmt.Errorf("ignore #%d: bad object pattern %q: %v", i+1, ig.Object, err)
			}
		}
		if ig.Code == "" && ig.Object == "" {
			return fmt.Errorf("ignore #%d matches every finding: give a code or an object pattern", i+1)
		}
	}
	return nil
}

// Suppressed is a finding an ignore rule dropped, kept so reports can say
// how many were silenced and why (nothing silently dropped).
type Suppressed struct {
	Finding Finding `json:"finding"`
	Reason  string  `json:"reason"`
}

// Apply overrides severities and removes ignored findings. kept is fs
// filtered in place (it shares fs's array, which Apply overwrites): a check
// of 400,000 streams has 800,000 findings, and a second array of them was
// 160 MB (docs/performance.md "Bounded snapshots").
func (p Policy) Apply(fs []Finding) (kept []Finding, suppressed []Suppressed) {
	kept = fs[:0]
	for _, f := range fs {
		if s, ok := p.Severity[f.Code.String()]; ok {
			f.Severity = s
		}
		if ig, ok := p.match(f); ok {
			reason := ig.Reason
			if reason == "" {
				reason = "ignored by config"
			}
			suppressed = append(suppressed, Suppressed{Finding: f, Reason: reason})
			continue
		}
		kept = append(kept, f)
	}
	return kept, suppressed
}

func (p Policy) match(f Finding) (Ignore, bool) {
	name := f.Object.DB + "." + f.Object.Name
	if f.Object.DB == "" {
		name = f.Object.Name
	}
	for _, ig := range p.Ignores {
		if ig.Code != "" && ig.Code != "*" && !strings.EqualFold(ig.Code, f.Code.String()) {
			continue
		}
		if ig.Object != "" {
			if ok, _ := path.Match(ig.Object, name); !ok {
				continue
			}
		}
		return ig, true
	}
	return Ignore{}, false
}
