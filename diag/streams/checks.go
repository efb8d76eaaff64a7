package streams

import (
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/ttl"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The checks of one stream (apache/doris#69907 §1 S4), in the shape of
// go/analysis passes: each hazard is one function over the analysed stream,
// listed below in the order they run. A check's function and the
// declaration of the code it raises sit together in the checks_*.go file of
// its concern; adding one is that function, that declaration and its entry
// in a list here.

// streamCheck returns the findings of one hazard of one stream, none when
// the hazard is absent.
type streamCheck func(a *streamAnalyzer, s *streamFacts) []diag.Finding

// streamStateChecks run on every stream: what table_streams says of it.
var streamStateChecks = []streamCheck{
	checkStreamDisabled,
	checkStreamBaseTableDropped,
	checkStreamStale,
	checkStreamStateUnknown,
	checkStreamLagInVersions,
}

// streamReadChecks run on a stream that is read (not disabled or stale:
// nothing reads such a stream, so resume hazards would be noise).
var streamReadChecks = []streamCheck{
	checkIVMStreamRecomputeOnly,
	checkStreamCannotResume,
	checkStreamIdleOutOfRetention,
	checkStreamHeadroomLow,
	checkStreamPendingAge,
	checkStreamPendingAgeLowerBound,
	checkStreamNoOffsetRowsSkipped,
	checkStreamServerClientMismatch,
	checkStreamPartitionIDChanged,
}

// streamFindings raises the hazards of one stream.
func (a *streamAnalyzer) streamFindings(sr *Stream) []diag.Finding {
	s := newStreamFacts(sr)
	var fs []diag.Finding
	for _, check := range streamStateChecks {
		fs = append(fs, check(a, s)...)
	}
	if sr.State == StateDisabled || sr.State == StateStale {
		return fs
	}
	var read []diag.Finding
	for _, check := range streamReadChecks {
		read = append(read, check(a, s)...)
	}
	fs = append(fs, ttl.Qualify(a.ttl, sr.TTLProperty, read, expiryCode)...)
	a.partitionSeverities(sr)
	return fs
}

// streamFacts is what the checks of one stream share.
type streamFacts struct {
	sr    *Stream
	obj   diag.Object
	consQ string // the consumption query of the stream
	ttl   string // the TTL in seconds, "" when unknown
	// The partitions that cannot resume (seed §3), split into those behind
	// (changes pending) and those caught up (idle).
	behind, idle []*Partition
}

func newStreamFacts(sr *Stream) *streamFacts {
	s := &streamFacts{sr: sr, obj: diag.Object{Kind: "stream", DB: sr.DB, Name: sr.Name, ID: i64(sr.ID)},
		consQ: doris.SuggestStreamOffsets(sr.ID, false)}
	if sr.TTLSeconds != nil {
		s.ttl = strconv.FormatInt(*sr.TTLSeconds, 10)
	}
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		if p.CanResume == nil || *p.CanResume {
			continue
		}
		if p.CaughtUp != nil && *p.CaughtUp {
			s.idle = append(s.idle, p)
		} else {
			s.behind = append(s.behind, p)
		}
	}
	return s
}

// finding is a finding about the stream at the code's default severity.
func (s *streamFacts) finding(code diag.Code, summary, detail string, ev map[string]string, next string) []diag.Finding {
	return []diag.Finding{{Code: code, Severity: code.Severity(), Object: s.obj, Summary: summary, Detail: detail, Evidence: ev, Next: next}}
}

// measured sets the magnitude (Declaration.Magnitude) of a finding of one
// stream: the number its evidence shows too.
func measured(v *float64, fs []diag.Finding) []diag.Finding {
	for i := range fs {
		fs[i].Magnitude = copyF(v)
	}
	return fs
}

func copyF(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return f64(*v)
}

// ev is the evidence every stream finding carries plus the non-empty pairs kv.
func (s *streamFacts) ev(kv ...string) map[string]string {
	m := map[string]string{"kind": string(s.sr.Kind), "state": string(s.sr.State)}
	if s.sr.ReadMode != "" {
		m["read_mode"] = s.sr.ReadMode
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

// partitionSeverities sets each partition's severity, for "worst first".
func (a *streamAnalyzer) partitionSeverities(sr *Stream) {
	for i := range sr.Partitions {
		p := &sr.Partitions[i]
		// Expiry raises a partition's severity as it does its findings'
		// (diag/ttl): as computed when the build enforces the
		// TTL, at most a warning when that is unknown, not at all when not.
		expiry := a.ttl.Verdict != snapshot.TTLNotEnforced
		switch {
		case expiry && p.CanResume != nil && !*p.CanResume && (p.CaughtUp == nil || !*p.CaughtUp):
			if sr.Kind == KindIVM || !a.ttlEnforced() {
				p.severity = max(p.severity, diag.SeverityWarning)
			} else {
				p.severity = max(p.severity, diag.SeverityCritical)
			}
		case expiry && p.CanResume != nil && !*p.CanResume:
			p.severity = max(p.severity, diag.SeverityWarning)
		case expiry && p.HeadroomSeconds != nil && *p.HeadroomSeconds < a.opt.MinHeadroom.Seconds():
			p.severity = max(p.severity, diag.SeverityWarning)
		case sr.Kind == KindUser && p.PendingAge.Get(0) > a.opt.MaxPending.Seconds():
			p.severity = max(p.severity, diag.SeverityWarning)
		}
		if p.severity > 0 {
			p.Severity = p.severity.String()
		}
	}
}
