package streams

import (
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Partial failure that shows (design.md "Partial failures", issue 14): when
// a source could not be read, every object it would have described and
// another source names is still listed, with its state unknown and the
// reason, never left out. table_streams is the list of streams: without it
// the streams known from table_stream_consumption (and the IVM internal
// streams ivm_dependencies names) are listed UNKNOWN, and an MV whose
// refresh may be incremental is still listed, UNKNOWN, instead of being
// taken for a non-IVM MV.

// StreamsUnreadableReason is the state reason of a stream or an MV when
// table_streams could not be read.
func StreamsUnreadableReason(why string) string {
	return snapshot.SourceTableStreams + " could not be read (" + why + "): the stream list, states and offsets are unknown"
}

// knownStream is a stream another source names, when table_streams could
// not be read.
type knownStream struct {
	db, name string
	from     string // the source that names it
}

// streamsNamedElsewhere collects the streams that sources other than
// table_streams name, by STREAM_ID: the consumption rows, then the internal
// streams of ivm_dependencies.
func streamsNamedElsewhere(s *snapshot.Snapshot) map[int64]knownStream {
	out := map[int64]knownStream{}
	for i := range s.Consumption {
		c := &s.Consumption[i]
		if _, ok := out[c.StreamID]; !ok {
			out[c.StreamID] = knownStream{c.DB, c.StreamName, snapshot.SourceTableStreamConsumption}
		}
	}
	for i := range s.Dependencies {
		d := &s.Dependencies[i]
		if d.StreamID == nil || d.StreamName == "" {
			continue
		}
		if _, ok := out[*d.StreamID]; !ok {
			out[*d.StreamID] = knownStream{d.DB, d.StreamName, snapshot.SourceIVMDependencies}
		}
	}
	return out
}

// unknownStream is the row of a stream table_streams could not describe:
// its name and id from another source, its state UNKNOWN with the reason,
// no partition judged (nothing of the stream itself was read: not its
// base table, mode or enable flag), and one STREAM_STATE_UNKNOWN finding.
func (a *streamAnalyzer) unknownStream(id int64, k knownStream, why string) (Stream, diag.Finding) {
	sr := a.streamBase(&snapshot.Stream{ID: id, DB: k.db, Name: k.name})
	reason := StreamsUnreadableReason(why)
	sr.State, sr.StateReason, sr.StateSource = StateUnknown, reason, diag.SourceClient
	sr.TTLSeconds, sr.TTLSource, sr.TTLNote = nil, "", "the base table is unknown: "+snapshot.SourceTableStreams+" could not be read"
	sr.ReadMode, sr.ReadModeNote = "", ""
	sr.Partitions = []Partition{}
	sr.MaxPendingAge = diag.UnknownValue(diag.SourceClient, reason)
	sr.Verdict = []string{"state unknown: " + reason}
	f := diag.Finding{
		Code: CodeStateUnknown, Severity: CodeStateUnknown.Severity(),
		Object:   diag.Object{Kind: "stream", DB: k.db, Name: k.name, ID: i64(id)},
		Summary:  "state unknown: " + snapshot.SourceTableStreams + " could not be read; the stream is known from " + k.from,
		Detail:   "Nothing of the stream itself (base table, mode, enabled, staleness) was read, so neither its state nor its retention could be judged: " + why,
		Evidence: map[string]string{"stream_id": strconv.FormatInt(id, 10), "known_from": k.from, "error": why},
		Next:     "dorisdiag snapshot --summary  # then fix access to " + snapshot.SourceTableStreams + " and re-run",
	}
	sr.severity = f.Severity
	sr.Severity = f.Severity.String()
	return sr, f
}
