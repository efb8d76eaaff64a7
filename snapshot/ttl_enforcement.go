package snapshot

import (
	"bufio"

	"github.com/dorisdiag/dorisdiag/doris"

	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Whether this build enforces the changelog TTL. Builds differ
// (docs/notes-realbuilds-evidence.md "TTL enforcement"): the ROW binlog of
// the earlier builds keeps every change whatever binlog.ttl_seconds says
// (apache/doris#65897; the table-stream docs: "The current version never
// cleans up Row Binlog data"), while later builds filter expired changes when
// a read is planned and reclaim them in compaction (apache/doris#68226 and
// the regression suite row_binlog_p0/test_row_binlog_ttl), and the Doris 5.0
// changelog (changelog.ttl_seconds) makes expired changes invisible at once.
// Every conclusion that rests on expiry says which of the three holds.
const (
	TTLEnforced    = "yes"
	TTLNotEnforced = "no"
	TTLUnknown     = "unknown"
)

// Kinds of TTL-enforcement evidence.
const (
	// EvidenceChangelogProperties: a base table uses the changelog.* property
	// spelling of the Doris 5.0 changelog, which expires changes at once.
	EvidenceChangelogProperties = "changelog_properties"
	// EvidenceExpiredOffsetError: a task failed with the error a build that
	// enforces the TTL raises for an expired offset ("... offset has expired
	// according to binlog.ttl_seconds").
	EvidenceExpiredOffsetError = "expired_offset_error"
	// EvidenceTTLSeries: a /metrics payload carries the TTL series of the
	// monitoring design (doris_be_changelog_ttl_*, the expired outcomes of
	// doris_fe_changelog_read_window_events_total): a build that cleans up
	// or filters by TTL. Says yes whether the series moved or not; Detail
	// tells which.
	EvidenceTTLSeries = "ttl_series"
	// EvidenceServerRetention: table_stream_consumption has the monitoring
	// design's retention columns (RETENTION_APPLICABLE, CAN_RESUME): the
	// server computes the TTL cut-off itself.
	EvidenceServerRetention = "server_retention_columns"
	// EvidenceTTLNotPositive: a table holds binlog.ttl_seconds <= 0, which a
	// build that enforces the ROW binlog TTL refuses ("ROW
	// binlog.ttl_seconds must be greater than 0"). A hint only: the value
	// may predate an upgrade.
	EvidenceTTLNotPositive = "ttl_not_positive"
	// EvidenceUser: the user's word (a config key or flag).
	EvidenceUser = "user"
)

// What a piece of evidence says.
const (
	SaysYes  = "yes"
	SaysNo   = "no"
	SaysHint = "hint"
)

// TTLEnforcement records whether the build enforces the changelog TTL and
// why the tool believes so.
type TTLEnforcement struct {
	// Verdict is TTLEnforced, TTLNotEnforced or TTLUnknown. The cluster's
	// own evidence of enforcement wins over the user's "no" (a proven
	// expiry cannot be assumed away); otherwise the user's word decides;
	// with neither, unknown.
	Verdict  string        `json:"verdict"`
	Evidence []TTLEvidence `json:"evidence,omitempty"`
}

// TTLEvidence is one fact behind TTLEnforcement.
type TTLEvidence struct {
	Kind   string `json:"kind"`
	Says   string `json:"says"`   // yes | no | hint
	Source string `json:"source"` // where: a relation and row, a /metrics target and series, or the config key / flag
	Detail string `json:"detail,omitempty"`
}

// TTL returns the snapshot's TTL enforcement, unknown with no evidence when
// none was recorded.
func (s *Snapshot) TTL() TTLEnforcement {
	if s.TTLEnforcement == nil {
		return TTLEnforcement{Verdict: TTLUnknown}
	}
	return *s.TTLEnforcement
}

// AssumeTTLEnforced records the user's word on enforcement (cmd's
// --assume-ttl-enforced and its config key; source names which) and
// recomputes the verdict. A second call replaces the first.
func (s *Snapshot) AssumeTTLEnforced(enforced bool, source string) {
	says := SaysNo
	if enforced {
		says = SaysYes
	}
	var kept []TTLEvidence
	if s.TTLEnforcement != nil {
		for _, e := range s.TTLEnforcement.Evidence {
			if e.Kind != EvidenceUser {
				kept = append(kept, e)
			}
		}
	}
	kept = append(kept, TTLEvidence{Kind: EvidenceUser, Says: says, Source: source,
		Detail: "the user's word: " + map[bool]string{true: "this build enforces the TTL", false: "this build does not enforce the TTL"}[enforced]})
	s.TTLEnforcement = &TTLEnforcement{Verdict: ttlVerdict(kept), Evidence: kept}
}

// deriveTTLEnforcement recomputes the cluster's evidence from the snapshot's
// rows (the user's entries are kept: they are not in the rows).
func (s *Snapshot) deriveTTLEnforcement() {
	var ev []TTLEvidence
	if s.TTLEnforcement != nil {
		for _, e := range s.TTLEnforcement.Evidence {
			if e.Kind == EvidenceUser {
				ev = append(ev, e)
			}
		}
	}
	var changelogTables, notPositive []string
	for _, t := range s.Tables {
		name := t.DB + "." + t.Name
		if t.PropertyNaming == "changelog" {
			changelogTables = append(changelogTables, name)
		}
		if t.PropertyNaming == "binlog" && t.TTLSeconds != nil && *t.TTLSeconds <= 0 && t.TTLSource != "default" {
			notPositive = append(notPositive, fmt.Sprintf("%s (binlog.ttl_seconds=%d)", name, *t.TTLSeconds))
		}
	}
	if len(changelogTables) > 0 {
		ev = append(ev, TTLEvidence{Kind: EvidenceChangelogProperties, Says: SaysYes, Source: SourceTableProperties + ": " + list(changelogTables),
			Detail: "changelog.* properties: the Doris 5.0 changelog, whose expired changes are invisible at once"})
	}
	if len(notPositive) > 0 {
		ev = append(ev, TTLEvidence{Kind: EvidenceTTLNotPositive, Says: SaysHint, Source: SourceTableProperties + ": " + list(notPositive),
			Detail: "a build that enforces the ROW binlog TTL refuses ttl_seconds <= 0; the value may predate an upgrade"})
	}
	var expired []string
	for _, t := range s.Tasks {
		if IsExpiredOffsetError(t.ErrorMsg) {
			expired = append(expired, fmt.Sprintf("%s.%s task %d", t.MVDatabaseName, t.MVName, t.TaskID))
		}
	}
	for _, m := range s.MVStatus {
		if IsExpiredOffsetError(m.LastErrorMessage) {
			expired = append(expired, fmt.Sprintf("%s.%s (ivm_mv_status)", m.DB, m.MVName))
		}
	}
	if len(expired) > 0 {
		ev = append(ev, TTLEvidence{Kind: EvidenceExpiredOffsetError, Says: SaysYes, Source: SourceTasks + ": " + list(expired),
			Detail: "an expired-offset error: the build rejects reads past the TTL"})
	}
	if c, ok := s.Capabilities.Sources[SourceTableStreamConsumption]; ok {
		for _, col := range c.Columns {
			if strings.EqualFold(col, doris.TableStreamConsumption.RetentionApplicable.Name) ||
				strings.EqualFold(col, doris.TableStreamConsumption.CanResume.Name) {
				ev = append(ev, TTLEvidence{Kind: EvidenceServerRetention, Says: SaysYes, Source: SourceTableStreamConsumption + "." + strings.ToUpper(col),
					Detail: "the server computes the TTL cut-off itself (apache/doris#69907)"})
				break
			}
		}
	}
	for _, m := range s.Metrics {
		if e, ok := ttlSeries(m); ok {
			ev = append(ev, e)
		}
	}
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].Kind < ev[j].Kind })
	if len(ev) == 0 {
		s.TTLEnforcement = nil
		return
	}
	s.TTLEnforcement = &TTLEnforcement{Verdict: ttlVerdict(ev), Evidence: ev}
}

func ttlVerdict(ev []TTLEvidence) string {
	user := ""
	for _, e := range ev {
		if e.Kind != EvidenceUser && e.Says == SaysYes {
			return TTLEnforced
		}
		if e.Kind == EvidenceUser {
			user = e.Says
		}
	}
	switch user {
	case SaysYes:
		return TTLEnforced
	case SaysNo:
		return TTLNotEnforced
	}
	return TTLUnknown
}

// IsExpiredOffsetError says whether an error text is the one a build that
// enforces the TTL raises for an expired offset: "Row binlog offset has
// expired according to binlog.ttl_seconds" (regression suite
// row_binlog_p0/test_row_binlog_ttl), in either property spelling.
func IsExpiredOffsetError(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "offset has expired according to binlog.ttl_seconds") ||
		strings.Contains(m, "offset has expired according to changelog.ttl_seconds")
}

func list(items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	const show = 3
	if len(items) <= show {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:show], ", "), len(items)-show)
}

// ttlSeriesPrefixes are the TTL series of the monitoring design
// (apache/doris#69907, "Reference": the BE's TTL cleanup, the FE's TTL
// rejections and clips).
var ttlSeriesPrefixes = []string{
	"doris_be_changelog_ttl_cleanup_total",
	"doris_be_changelog_ttl_reclaimed_bytes_total",
	"doris_be_changelog_ttl_last_success_timestamp_seconds",
	"doris_fe_changelog_read_window_events_total",
}

// ttlSeries looks for the design's TTL series in one payload: present (the
// build implements TTL expiry) and moved (a value above 0: a cleanup ran, or
// a read was rejected or clipped for expiry).
func ttlSeries(m MetricsPayload) (TTLEvidence, bool) {
	if m.Body == "" {
		return TTLEvidence{}, false
	}
	var present, moved []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(m.Body))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, p := range ttlSeriesPrefixes {
			if !strings.HasPrefix(line, p) {
				continue
			}
			rest := line[len(p):]
			if rest != "" && rest[0] != '{' && rest[0] != ' ' && rest[0] != '\t' {
				continue
			}
			if p == "doris_fe_changelog_read_window_events_total" && !strings.Contains(rest, `outcome="expired_`) {
				continue
			}
			if !seen[p] {
				seen[p] = true
				present = append(present, p)
			}
			f := strings.Fields(rest[strings.LastIndexByte(rest, '}')+1:])
			if len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil && v > 0 && !seen[p+" moved"] {
					seen[p+" moved"] = true
					moved = append(moved, p)
				}
			}
		}
	}
	if len(present) == 0 {
		return TTLEvidence{}, false
	}
	detail := "the build exports the design's TTL series (no cleanup or expiry counted yet)"
	if len(moved) > 0 {
		detail = "TTL series moved: " + strings.Join(moved, ", ")
	}
	return TTLEvidence{Kind: EvidenceTTLSeries, Says: SaysYes, Source: SourceMetrics + " " + m.Target + ": " + strings.Join(present, ", "),
		Detail: detail}, true
}
