package tso

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/report"
	"io"
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag/tsotool"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The documents of `dorisdiag tso` (docs/tso.md): decode, encode, diff, lag
// and headroom, each in table, json and markdown. The JSON of each is its
// fields under one "kind" (tso_decode, ...): no field of a document is
// itself called "kind".

// TSODecodeDoc is `tso decode` (kind "tso_decode"); Local adds the LOCAL
// TIME column to the tables.
type TSODecodeDoc struct {
	tsotool.DecodeResult
	Local bool `json:"-"`
}

// TSOEncodeDoc is `tso encode` (kind "tso_encode"): the time given and the
// TSO it encodes to. An encoded value is always a real TSO, so unlike a
// decoded one it carries no value kind.
type TSOEncodeDoc struct {
	Input      string  `json:"input"`
	TSO        tso.TSO `json:"tso"`
	PhysicalMs int64   `json:"physical_ms"`
	Time       string  `json:"time"`
	Logical    int64   `json:"logical"`
	Hex        string  `json:"hex"`
}

// NewTSOEncodeDoc is the document of input encoded as v.
func NewTSOEncodeDoc(input string, v tso.TSO) TSOEncodeDoc {
	return TSOEncodeDoc{Input: input, TSO: v, PhysicalMs: v.Physical(), Time: v.Time().Format(tso.TimeLayout), Logical: v.Logical(), Hex: v.Hex()}
}

// TSODiffDoc is `tso diff` (kind "tso_diff").
type TSODiffDoc struct{ tsotool.DiffResult }

// TSOLagDoc is `tso lag` (kind "tso_lag").
type TSOLagDoc struct{ tsotool.LagResult }

// TSOHeadroomDoc is `tso headroom` (kind "tso_headroom").
type TSOHeadroomDoc struct{ tsotool.HeadroomResult }

// Kind implements Doc.
func (TSODecodeDoc) Kind() string { return "tso_decode" }

// Kind implements Doc.
func (TSOEncodeDoc) Kind() string { return "tso_encode" }

// Kind implements Doc.
func (TSODiffDoc) Kind() string { return "tso_diff" }

// Kind implements Doc.
func (TSOLagDoc) Kind() string { return "tso_lag" }

// Kind implements Doc.
func (TSOHeadroomDoc) Kind() string { return "tso_headroom" }

func init() {
	report.Register("tso_decode", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return tsoDecode(w, d.(TSODecodeDoc), st.Table)
	})
	report.Register("tso_decode", report.FormatWide, func(w io.Writer, st report.Style, d report.Doc) error {
		return tsoDecode(w, d.(TSODecodeDoc), st.Table)
	})
	report.Register("tso_decode", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		return tsoDecode(w, d.(TSODecodeDoc), report.Markdown)
	})
	for kind, kv := range map[string]func(report.Doc) [][2]string{
		"tso_encode": func(d report.Doc) [][2]string { return tsoEncodeKV(d.(TSOEncodeDoc)) },
		"tso_diff":   func(d report.Doc) [][2]string { return tsoDiffKV(d.(TSODiffDoc)) },
		"tso_lag":    func(d report.Doc) [][2]string { return tsoLagKV(d.(TSOLagDoc)) },
	} {
		kv := kv
		report.Register(kind, report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error { return style{st}.kvTable(w, kv(d)) })
		report.Register(kind, report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error { return kvMarkdown(w, kv(d)) })
	}
	report.Register("tso_headroom", report.FormatTable, func(w io.Writer, st report.Style, d report.Doc) error {
		return tsoHeadroom(w, st, d.(TSOHeadroomDoc), style{st}.kvTable)
	})
	report.Register("tso_headroom", report.FormatMarkdown, func(w io.Writer, _ report.Style, d report.Doc) error {
		return tsoHeadroom(w, report.Style{}, d.(TSOHeadroomDoc), kvMarkdown)
	})
}

// tsoDecode writes one row per decoded value (nothing when there is none:
// every input was bad and is reported on stderr). Columns by importance, so
// that on a narrow terminal the raw forms (PHYSICAL_MS, HEX) are the ones
// left to -o wide.
func tsoDecode(w io.Writer, d TSODecodeDoc, write func(io.Writer, []string, [][]string) error) error {
	headers := []string{"TSO", "TIME (UTC)", "LOGICAL", "PHYSICAL_MS", "HEX"}
	if d.Local {
		headers = withLocal(headers, "LOCAL TIME")
	}
	var rows [][]string
	for _, v := range d.TSOs {
		row := []string{v.Input, v.Note, "-", "-", v.Hex}
		local := "-"
		if v.Kind == tso.KindTSO.String() {
			row = []string{v.TSO.String(), v.Time, strconv.FormatInt(*v.Logical, 10), strconv.FormatInt(*v.PhysicalMs, 10), v.Hex}
			local = v.LocalTime
		}
		if d.Local {
			row = withLocal(row, local)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	return write(w, headers, rows)
}

// withLocal inserts the local-time cell after the UTC time (the third column).
func withLocal(row []string, cell string) []string {
	out := make([]string, 0, len(row)+1)
	out = append(out, row[:2]...)
	out = append(out, cell)
	return append(out, row[2:]...)
}

func tsoEncodeKV(d TSOEncodeDoc) [][2]string {
	return [][2]string{
		{"tso", d.TSO.String()},
		{"hex", d.Hex},
		{"time", d.Time},
		{"physical_ms", strconv.FormatInt(d.PhysicalMs, 10)},
		{"logical", strconv.FormatInt(d.Logical, 10)},
	}
}

func tsoDiffKV(d TSODiffDoc) [][2]string {
	return [][2]string{
		{"a", d.A.String() + "  (" + d.A.Time().Format(tso.TimeLayout) + ")"},
		{"b", d.B.String() + "  (" + d.B.Time().Format(tso.TimeLayout) + ")"},
		{"physical_ms", strconv.FormatInt(d.PhysicalMs, 10)},
		{"logical", strconv.FormatInt(d.Logical, 10)},
		{"duration", d.Duration},
	}
}

func tsoLagKV(d TSOLagDoc) [][2]string {
	kv := [][2]string{{"lag", d.Lag}}
	if d.Milliseconds != nil {
		kv = append(kv, [2]string{"milliseconds", strconv.FormatFloat(*d.Milliseconds, 'f', 3, 64) + " (approximate)"}, [2]string{"duration", d.Duration})
	}
	if d.Note != "" {
		kv = append(kv, [2]string{"note", d.Note})
	}
	return kv
}

// kvTable is a key/value list as aligned lines.
func (st style) kvTable(w io.Writer, kv [][2]string) error {
	st.KeyValues(w, kv)
	return nil
}

// kvMarkdown is a key/value list as a two-column markdown table.
func kvMarkdown(w io.Writer, kv [][2]string) error {
	rows := make([][]string, 0, len(kv))
	for _, p := range kv {
		rows = append(rows, []string{p[0], p[1]})
	}
	return report.Markdown(w, []string{"field", "value"}, rows)
}

// tsoHeadroom writes the retention computation, what each read mode does
// next, and the findings (none printed when there are none).
func tsoHeadroom(w io.Writer, st report.Style, d TSOHeadroomDoc, writeKV func(io.Writer, [][2]string) error) error {
	res := d.HeadroomResult
	kv := [][2]string{
		{"now (reference)", res.ReferenceTSO.String() + "  " + res.ReferenceTime},
		{"ttl_seconds", strconv.FormatInt(res.TTLSeconds, 10) + "  (" + tso.FormatDuration(res.TTLSeconds*1000) + ")"},
		{"cutoff_tso", res.CutoffTSO.String()},
		{"retention_floor_tso", res.RetentionFloorTSO.String() + "  " + res.RetentionFloor},
	}
	if res.HasOffset {
		verdict := st.Severity("ok", "yes")
		if !*res.CanResume {
			verdict = st.Severity("critical", "NO")
		}
		kv = append(kv,
			[2]string{"consumed (offset C)", res.ConsumedTSO.String() + "  " + res.ConsumedTime},
			[2]string{"next_required_tso", res.NextRequiredTSO.String()},
			[2]string{"can_resume", verdict},
			[2]string{"headroom_seconds", strconv.FormatFloat(*res.HeadroomSeconds, 'f', 3, 64) + "  (" + res.Headroom + ")"},
		)
		if res.LostSeconds != nil {
			kv = append(kv, [2]string{"expired window", tso.FormatDuration(int64(*res.LostSeconds*1000)) + " of changes before the floor are gone"})
		}
	} else {
		kv = append(kv, [2]string{"consumed (offset C)", "none (" + res.Offset + "): no committed offset"})
	}
	if err := writeKV(w, kv); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nNext read, by read mode:\n")
	for _, e := range res.ReadEffects {
		fmt.Fprintf(w, "  %-12s %-20s %s\n", e.Mode, st.Severity(readEffectSeverity(e.Effect), e.Effect), e.Detail)
	}
	if len(res.Findings) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n")
	return report.Findings(w, st, res.Findings)
}

// readEffectSeverity colours a read effect: proceeding is ok, a rejected or
// clipped read critical, the rest (no offset) a warning.
func readEffectSeverity(effect string) string {
	switch effect {
	case "proceed":
		return "ok"
	case "rejected", "clipped":
		return "critical"
	}
	return "warning"
}

// style is report.Style with this package's table writers as methods.
type style struct{ report.Style }
